/**
 * An isolated position's margin is cash: its fill moves the margin out of the cross
 * collateral, so an order in an isolated market holds what it will move against the collateral
 * not already held — never against unrealised profit, which the fill cannot move. Found by the
 * hostile simulator (a probe of seeds 3004–3043): an account with 0.005 USD of collateral and a
 * cross short in profit opened an isolated long whose hold its profit covered; the fill moved
 * the 0.005 USD it had, and the position stood below maintenance at an unchanged mark, its
 * losses beyond that margin left to the insurance fund while the cross account kept its profit.
 * Fixtures: BTC IMF 10 %; ETH IMF 5 %, MMF 3 %, taker 0.05 %, 1 ETH (100,000 lots) at 10 USD
 * (1,000 ticks) = 10 USD.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, CAROL, ETH, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

/** Alice: 11 USD, short 1 BTC at 100 on cross, the mark now 50 (50 USD of unrealised profit); ETH's mark 10, Alice cross in it. */
function aliceInProfitOnCross() {
  const h = harness();
  const alice = h.fund(ALICE, usd(11));
  const bob = h.fund(BOB, usd(10_000));
  const carol = h.fund(CAROL, usd(10_000));
  h.fill(bob, alice, -1, 100, 1000);
  h.fill(bob, carol, -1, 50, 1);
  h.fill(bob, carol, 1, 1000, 1, ETH);
  return { h, alice, carol };
}

/** The same, Alice isolated in ETH. */
function aliceInProfit() {
  const { h, alice, carol } = aliceInProfitOnCross();
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, true, 5_000_000n, 1), LedgerCode.Ok);
  assert.equal(h.ledger.collateral(alice), usd(10.95));
  assert.equal(h.ledger.stats(alice)!.freeCollateralCross, usd(10.95 + 50 - 5), 'headroom: the collateral and the profit, less the IM at 50');
  return { h, alice, carol };
}

test('ISOLATED_BUY_FUNDED_BY_UNREALISED_PROFIT: an isolated order whose hold exceeds the collateral is refused, however much profit the cross account shows', () => {
  const { h, alice } = aliceInProfit();
  // 50 ETH at 10 = 500 USD: IM 25 + fee 0.25 = 25.25, within the headroom of 55.95, beyond the collateral of 10.95.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, ETH, 1, 1000, 5_000_000, false, 2), LedgerCode.InsufficientMargin);
  assert.equal(h.ledger.holdOf(orderNo(1)), 0n);
  // 20 ETH (IM 10 + fee 0.1 = 10.1) fits in the collateral.
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, ETH, 1, 1000, 2_000_000, false, 2), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(3), alice, ETH, 1, 1000, 200_000, false, 2), LedgerCode.InsufficientMargin, '0.85 left in the collateral once order 2 holds 10.1');
});

test('an admitted isolated order fills at the mark with its initial margin posted, above maintenance', () => {
  const { h, alice, carol } = aliceInProfit();
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, ETH, 1, 1000, 2_000_000, false, 2), LedgerCode.Ok);
  assert.equal(h.ledger.settleFill(orderNo(99), orderNo(2), carol, alice, 1, ETH, 1000, 2_000_000, 3), LedgerCode.Ok);
  assert.equal(h.ledger.positionOf(alice, ETH)!.margin, usd(10 - 0.1), 'IM 10 moved in, the fee paid from it');
  assert.equal(h.ledger.prices(ETH).mark, 1000, 'the mark did not move');
  assert.deepEqual(h.ledger.liquidatable(alice), [], 'MM 6 covered');
  h.ledger.checkConservation();
  h.ledger.validateInternalState();
});

test('ISOLATE_WITH_A_CROSS_ORDER_OPEN: switching a market to isolated while an order admitted on cross is open is refused, until it is cancelled', () => {
  // Found by review: the 50 ETH buy that isolated margin refuses was admitted on cross (against
  // the profit), the market then isolated, and the fill posted the 10.95 of cash there was —
  // the position opened below its maintenance of 15 at an unchanged mark.
  const { h, alice } = aliceInProfitOnCross();
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, ETH, 1, 1000, 5_000_000, false, 2), LedgerCode.Ok, 'on cross the profit covers it');
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, true, 5_000_000n, 3), LedgerCode.OrdersOpenInMarket);
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, false, 5_000_000n, 3), LedgerCode.Ok, 'a new fraction in the same mode is allowed');
  assert.equal(h.ledger.releaseOrder(orderNo(1), 4), LedgerCode.Ok);
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, true, 5_000_000n, 5), LedgerCode.Ok, 'nothing open: isolated');
  h.ledger.checkConservation();
  h.ledger.validateInternalState();
});
