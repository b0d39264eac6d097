/**
 * An isolated sell's hold values it at max(limit, mark); a bid above both may fill it. The
 * margin its fill posts must stay within what was held, or the cross account pays the rest and
 * its owner's own order leaves it below maintenance (sim seed 300021 of the hostile run, step
 * 5363: an isolated short opened at 504209 with the mark at 456498).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, ETH, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

test('an isolated sell filled far above the mark posts the initial margin of the lots at the mark, not at the fill: the cross account keeps its maintenance', () => {
  const h = harness();
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.ledger.setIndexPrice(ETH, 10_000, 0);
  const alice = h.fund(ALICE, usd(105.2));
  const bob = h.fund(BOB, usd(1000));
  const carol = h.fund(CAROL, usd(1000));
  h.fill(carol, alice, 1, 10_000, 100_000, ETH); // a cross ETH long of 100 USD: IM 5, MM 3
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 100_000_000n, 1), LedgerCode.Ok); // isolated at 1×
  // Sell 1 BTC at 100: holds IM 100 (1×) + the 0.05 fee, and the headroom has it.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, -1, 100, 1000, false, 2), LedgerCode.Ok);
  // Bob's bid at 130 fills it (the mark stays at the index's 100).
  h.ledger.settleFill(orderNo(2), orderNo(1), bob, alice, -1, BTC, 130, 1000, 3);
  assert.equal(h.ledger.prices(BTC).mark, 100);
  assert.ok(h.ledger.positionOf(alice, BTC)!.margin <= usd(100), `posted ${h.ledger.positionOf(alice, BTC)!.margin}`);
  assert.deepEqual(h.ledger.liquidatable(alice), [], `cross equity ${h.ledger.stats(alice)!.crossEquity} after its own order`);
  h.ledger.validateInternalState();
});
