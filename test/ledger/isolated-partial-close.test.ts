/**
 * A reduce-only close of part of an isolated position may lose, far through the mark, only the
 * position's equity beyond what the lots left need (their maintenance margin at the mark), plus
 * the cross headroom. It was allowed all of the position's equity: 2 lots of a 140-lot short,
 * bought 9 % above the mark into the only asks, took the margin the other 138 stood on, and its
 * owner's own order left the rest below maintenance (hostile simulator seed 710013, step 559).
 * A whole close still frees all of it.
 *
 * Alice is short 1 BTC isolated at 100 (10 USD margin at 10×), with 0.05 USD left in cross;
 * the index rises to 104. BTC test market: lot 0.001 BTC, IMF 10 %, MMF 5 %, taker fee 0.05 %.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

function aliceShortIsolatedUnderwater() {
  const h = harness();
  h.ledger.setIndexPrice(BTC, 100, 0);
  const alice = h.fund(ALICE, usd(10.1));
  const bob = h.fund(BOB, usd(1000));
  const carol = h.fund(CAROL, usd(1000));
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 1), LedgerCode.Ok); // isolated at 10×
  h.fill(bob, alice, -1, 100, 1000);
  h.ledger.setIndexPrice(BTC, 104, 2);
  assert.deepEqual(h.ledger.liquidatable(alice), [], 'healthy at the new mark');
  return { h, alice, carol };
}

test('a reduce-only buy of 10 lots of an isolated 1,000-lot short, priced far through the mark, may not lose the margin the other 990 need', () => {
  const { h, alice } = aliceShortIsolatedUnderwater();
  const mark = h.ledger.prices(BTC).mark;
  // Its loss against the mark, at 200: (200 − mark) × 0.01 BTC, about 0.96 USD; the position has
  // about 0.85 USD beyond the 990 lots' maintenance margin, the cross account 0.05.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 200, 10, true, 3), LedgerCode.InsufficientMargin, `mark ${mark}`);
  h.ledger.validateInternalState();
});

test('a partial close whose loss fits is admitted, and its fill leaves the rest at or above maintenance', () => {
  const { h, alice, carol } = aliceShortIsolatedUnderwater();
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 185, 10, true, 3), LedgerCode.Ok);
  h.ledger.settleFill(orderNo(2), orderNo(1), carol, alice, 1, BTC, 185, 10, 4);
  assert.equal(h.ledger.position(alice, BTC), -990);
  assert.deepEqual(h.ledger.liquidatable(alice), [], `after its own order: ${JSON.stringify(h.ledger.positionOf(alice, BTC), (_, v) => (typeof v === 'bigint' ? String(v) : v))}`);
  h.ledger.validateInternalState();
});

test('a whole close frees all of the position\'s equity', () => {
  const { h, alice, carol } = aliceShortIsolatedUnderwater();
  // The whole short bought back at 108: a loss of 4 USD against the mark, beyond the 0.85 a
  // partial close may lose, within the ~6 USD the position holds.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 108, 1000, true, 3), LedgerCode.Ok);
  h.ledger.settleFill(orderNo(2), orderNo(1), carol, alice, 1, BTC, 108, 1000, 4);
  assert.equal(h.ledger.position(alice, BTC), 0);
  assert.ok(h.ledger.collateral(alice) >= 0n);
  h.ledger.validateInternalState();
});
