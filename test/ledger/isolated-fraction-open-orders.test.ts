/**
 * An isolated order's fill moves its initial margin at the owner's fraction out of the cross
 * collateral; its hold reserved that margin at the fraction it was admitted with. Raising the
 * fraction while the order rests made its fill take more than was held — up to all the cross
 * collateral, whatever the cross positions needed: Alice's cross BTC short, 2 USD under water
 * and carried by her collateral, was left bankrupt by her own isolated ETH sell filled at a
 * 100 % fraction, and the insurance fund paid her BTC loss while her money sat in the ETH
 * position's margin. (Found by test/app/attack-in-flight.property, seed 720088.)
 * Test markets (test/ledger/fixtures): BTC tick 1 lot 0.001; ETH tick 0.01 lot 0.00001, IMF 5 %.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, ETH, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

test('an isolated order resting at one fraction cannot fill at a higher one: the fund pays nothing for the cross account it drains', () => {
  const h = harness();
  h.ledger.fundInsurance(usd(100), 0);
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.ledger.setIndexPrice(ETH, 1000, 0);
  const alice = h.fund(ALICE, usd(30));
  const bob = h.fund(BOB, usd(1000));
  const carol = h.fund(CAROL, usd(1000));
  h.fill(bob, alice, -1, 100, 1000); // Alice: cross short 1 BTC at 100
  h.ledger.setIndexPrice(BTC, 102, 1); // 2 USD under water, well above maintenance
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, true, 5_000_000n, 2), LedgerCode.Ok, 'ETH isolated at 5 %');
  // A sell of 40 USD of ETH at the index: IM 2 + fee 0.02 held, out of ~17.7 free.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, ETH, -1, 1000, 400_000, false, 3), LedgerCode.Ok);
  const raised = h.ledger.setMargin(ALICE, 0, ETH, true, 100_000_000n, 4);
  assert.equal(raised, LedgerCode.OrdersOpenInMarket, 'the raise is refused while her sell rests');
  h.ledger.validateInternalState();
  assert.equal(h.ledger.admitOrder(orderNo(2), carol, ETH, 1, 1000, 400_000, false, 5), LedgerCode.Ok);
  h.ledger.settleFill(orderNo(1), orderNo(2), alice, carol, 1, ETH, 1000, 400_000, 5);
  for (const order of h.ledger.checkLiquidations(6)) {
    assert.equal(h.ledger.admitOrder(orderNo(3), order.owner, order.market, order.side, order.price, order.quantity, true, 6, { liquidation: true }), LedgerCode.Ok);
    h.ledger.releaseOrder(orderNo(3), 7); // nobody buys: the fund, then ADL
  }
  h.ledger.validateInternalState();
  const shortfalls = h.ofType('insurance').filter((e) => e.reason === 'shortfall');
  assert.deepEqual(shortfalls.map((e) => e.delta), [], `the fund paid for Alice's cross account (setMargin to 100 % with the order resting: code ${raised})`);
});
