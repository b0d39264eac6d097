/**
 * An isolated position being deleveraged is closed at its bankruptcy price, beyond the mark,
 * in as many trades as it has counterparties; its margin is what pays for the whole of it.
 * A partial close returns to the cross account the margin the rest no longer needs — measured
 * at the mark, where the rest is not closed: under the ETH tiers the rest's maintenance margin
 * is proportionally smaller than the whole's, so the first ADL trade sent margin to the cross
 * account, and the last one closed the rest below zero, the insurance fund paying the
 * difference. (Found by test/app/attack-in-flight.property with bursts: seeds 800166, 940009,
 * 940039, 940112 — the fund paid 4.3 to 25.6 USD each time.) Now nothing leaves an isolated
 * position while it is liquidated or deleveraged: the full close returns what is left.
 *
 * Alice (500 USD) holds an isolated long of 300 ETH bought at 10 (margin 448.5: 450 of initial
 * margin less the fee); Bob (600 USD) is short 200 ETH at 10, Carol (5,000 USD) short 100. The
 * index falls to 9: Alice's equity 148.5 is below her maintenance margin 200 (30 + 10 % of
 * 1,700). No bid takes her liquidation order: ADL closes her against Bob, then Carol, at her
 * bankruptcy price 8.51. ETH test market (test/ledger/fixtures): tick 0.01, lot 0.00001, IMF 5
 * % / MMF 3 % up to 1,000 USD of notional, 20 % / 10 % above.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, CAROL, ETH, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

test('an isolated long deleveraged against two counterparties keeps its margin until it is closed: the fund pays nothing', () => {
  const h = harness();
  h.ledger.setIndexPrice(ETH, 1000, 0);
  assert.equal(h.ledger.fundInsurance(usd(1000), 0), LedgerCode.Ok);
  const alice = h.fund(ALICE, usd(500));
  const bob = h.fund(BOB, usd(600));
  const carol = h.fund(CAROL, usd(5000));
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, true, 5_000_000n, 1), LedgerCode.Ok);
  h.fill(bob, alice, 1, 1000, 30_000_000, ETH);
  h.fill(carol, bob, 1, 1000, 10_000_000, ETH);
  assert.equal(h.ledger.positionOf(alice, ETH)!.margin, usd(448.5));
  assert.deepEqual([h.ledger.position(bob, ETH), h.ledger.position(carol, ETH)], [-20_000_000, -10_000_000]);

  h.ledger.setIndexPrice(ETH, 900, 2);
  const [order] = h.ledger.checkLiquidations(3);
  assert.deepEqual([order.owner, order.bankruptcyPrice], [alice, 851]);
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, ETH, order.side, order.price, order.quantity, true, 3, { liquidation: true }), LedgerCode.Ok);
  const crossBefore = h.ledger.collateral(alice);
  h.ledger.releaseOrder(orderNo(1), 4); // no bid: ADL
  h.ledger.validateInternalState();
  assert.deepEqual(h.ofType('adl').map((e) => [e.counterparty, e.quantity, e.price]), [[bob, 20_000_000, 851], [carol, 10_000_000, 851]]);
  assert.equal(h.ledger.position(alice, ETH), 0);
  assert.equal(h.ledger.insuranceFund, usd(1000), 'the fund paid nothing');
  // 448.5 − 300 ETH × 1.49 lost = 1.5, back to the cross account at the close.
  assert.equal(h.ledger.collateral(alice) - crossBefore, usd(1.5));
});
