/**
 * An isolated sell below the mark opens a short worth the mark, not the fill: its maintenance
 * margin is measured on the mark's notional, so its initial margin must be too. Posted on the
 * fill's notional (the lower of fill and mark, right for a sell above the mark), a sell at half
 * the mark opened a short at half its initial margin — below maintenance by its owner's own
 * order, liquidated at once, the fund paying what the rest lacked and the buyer at 500 keeping
 * it. The hold had valued the lots at max(limit, mark), so the margin was held and then released
 * to the cross account instead. (Found by test/app/attack-in-flight.property, seed 700010.)
 * ETH test market (test/ledger/fixtures): tick 0.01, lot 0.00001, IMF 5 %, MMF 3 %.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, CAROL, ETH, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

test('an isolated sell filled far below the mark opens a short at its initial margin at the mark: not liquidatable by its own order', () => {
  const h = harness();
  h.ledger.setIndexPrice(ETH, 1000, 0);
  const alice = h.fund(ALICE, usd(100));
  const carol = h.fund(CAROL, usd(100));
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, true, 5_000_000n, 1), LedgerCode.Ok);
  // 10 ETH at 5 (mark 10): IM 5 at the mark + fee + open loss 50 held.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, ETH, -1, 500, 1_000_000, false, 2), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(2), carol, ETH, 1, 500, 1_000_000, false, 2), LedgerCode.Ok);
  h.ledger.settleFill(orderNo(1), orderNo(2), alice, carol, 1, ETH, 500, 1_000_000, 3);
  h.ledger.validateInternalState();
  assert.deepEqual(h.ledger.liquidatable(alice), [], `Alice's short: margin ${h.ledger.positionOf(alice, ETH)?.margin} at mark ${h.ledger.prices(ETH).mark}`);
});
