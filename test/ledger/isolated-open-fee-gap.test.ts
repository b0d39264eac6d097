/**
 * Found by the simulator's markets changes (docs/simulator.md, seed 12 of a hostile run with the
 * first generator): an isolated position's opening fill posts its initial margin and pays its
 * trading and originator fees out of it (ledger/settlement: the fees go through the position's
 * margin before the opened lots' margin is posted). A markets file whose fee ceiling — the larger
 * of maker and taker fee, plus `maxOriginatorFee` — reached the gap between a tier's initial and
 * maintenance fractions was accepted, and then the owner's own order opened the position below
 * maintenance (6 % taker, IMF 10 %, MMF 5 %: 4 USD of margin against 5 of maintenance),
 * liquidated at the next Tick. `parseMarkets` now refuses such a file (every shipped market:
 * 0.05 % + 0.1 % against a gap of 0.8 % or more); a fee ceiling just inside the gap opens above.
 * BTC test market: IMF 10 %, MMF 5 %, maxOriginatorFee 0.1 %; 1000 lots at 100 = 100 USD.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, MARKETS, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { ConfigError, marketsFileOf, parseMarkets } from '../../src/config/market.ts';
import { orderNo } from '../fixtures/ids.ts';

function withTakerFee(takerFee: string) {
  const file = marketsFileOf(MARKETS);
  file.markets[0] = { ...file.markets[0], takerFee };
  return file;
}

test('a markets file whose taker fee plus originator ceiling reaches a tier\'s margin gap is refused, naming both', () => {
  assert.throws(
    () => parseMarkets(withTakerFee('0.06')),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message.includes('markets[0].takerFee') &&
      error.message.includes('plus maxOriginatorFee (0.061 together) must stay below initialMarginFraction − maintenanceMarginFraction of every tier (0.05 at notional 0)'),
  );
  // Exactly at the gap is refused too: the position would open at maintenance, not above it.
  assert.throws(() => parseMarkets(withTakerFee('0.049')), ConfigError);
});

test('with the fee ceiling just inside the gap, an isolated long opened by its owner\'s own bid is above maintenance', () => {
  const h = harness(undefined, undefined, parseMarkets(withTakerFee('0.0489')));
  const alice = h.fund(ALICE, usd(100));
  const bob = h.fund(BOB, usd(1000));
  h.ledger.setIndexPrice(BTC, 100, 0);
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 0), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(2), bob, BTC, -1, 100, 1000, false, 1), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 100, 1000, false, 1), LedgerCode.Ok);
  assert.equal(h.ledger.settleFill(orderNo(2), orderNo(1), bob, alice, 1, BTC, 100, 1000, 2), LedgerCode.Ok);
  h.ledger.validateInternalState();
  assert.equal(h.ledger.positionOf(alice, BTC)!.margin, usd(10 - 4.89), 'the initial margin less the fee');
  assert.deepEqual(h.ledger.liquidatable(alice), [], 'above the 5 USD maintenance');
});
