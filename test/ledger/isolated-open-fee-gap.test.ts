/**
 * Found by the simulator's markets changes (docs/simulator.md, seed 12 of a hostile run with the
 * first generator): an isolated position's opening fill posts its initial margin and pays its
 * trading and originator fees out of it (ledger/settlement: the fees go through the position's
 * margin before the opened lots' margin is posted, and `wanted` does not count them). With fees
 * inside the gap between the initial and the maintenance fraction — every shipped market: 0.05 %
 * + 0.1 % against 0.8 % — the position opens above maintenance. A markets file whose taker fee
 * (plus the originator ceiling) exceeds that gap is accepted by `parseMarkets`, and then the
 * owner's own order opens the position below maintenance, liquidated at the next Tick.
 * Marked todo: whether the fill should post the fees on top of the margin (its hold reserved
 * them) or `parseMarkets` should refuse such a file is the maintainers' call.
 * BTC test market: IMF 10 %, MMF 5 %; 1000 lots at 100 = 100 USD.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, MARKETS, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { marketsFileOf, parseMarkets } from '../../src/config/market.ts';
import { orderNo } from '../fixtures/ids.ts';

test('an isolated long opened by its owner\'s own bid with a 6 % taker fee (IMF 10 %, MMF 5 %) is not below maintenance', { todo: 'the fee is paid out of the initial margin posted: the position opens at 4 of 5 USD maintenance' }, () => {
  const file = marketsFileOf(MARKETS);
  file.markets[0] = { ...file.markets[0], takerFee: '0.06' };
  const h = harness(undefined, undefined, parseMarkets(file));
  const alice = h.fund(ALICE, usd(100));
  const bob = h.fund(BOB, usd(1000));
  h.ledger.setIndexPrice(BTC, 100, 0);
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 0), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(2), bob, BTC, -1, 100, 1000, false, 1), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 100, 1000, false, 1), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(16), 'its hold: IM 10 and the 6 USD fee');
  assert.equal(h.ledger.settleFill(orderNo(2), orderNo(1), bob, alice, 1, BTC, 100, 1000, 2), LedgerCode.Ok);
  h.ledger.validateInternalState();
  assert.deepEqual(h.ledger.liquidatable(alice), [], `isolated margin ${h.ledger.positionOf(alice, BTC)!.margin} against 5 USD maintenance`);
});
