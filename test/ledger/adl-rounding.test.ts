/**
 * ADL closes a bankrupt position at a whole tick, and each counterparty pays its share of the
 * loss by a price distance in whole ticks. With both rounded down, the part of a loss below one
 * tick's value on the counterparty's lots was paid by nobody: no winner was left to socialise
 * the unit to, and the insurance fund went below zero (the ledger property run found a fund of −1). The counterparty's distance rounds up while its surplus over
 * maintenance allows, so the ADL pays the whole loss.
 * ETH test market: tick 0.01, lot 0.00001 → notional = ticks · lots / 10 (rounded down).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, ETH, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

test('the units of a bankruptcy below a tick’s value are paid by the ADL counterparty, not left to an empty fund', () => {
  const h = harness();
  const alice = h.fund(ALICE, 8402n);
  const bob = h.fund(BOB, usd(1000));
  h.fill(alice, bob, 1, 6000, 13, ETH); // Alice short 13 lots at 60.00: basis −7800 units
  // At 124.80 the short is worth −16224: equity 8402 − 8424 = −22 units. Bankruptcy price 124.63
  // (17 ticks: 22.1 units on 13 lots); Bob's 22 units are 16.9 ticks — 16 ticks pay only 21.
  h.ledger.setIndexPrice(ETH, 12480, 2);
  const [order] = h.ledger.checkLiquidations(2);
  assert.equal(h.ledger.admitOrder(orderNo(500), alice, ETH, order.side, order.price, order.quantity, true, 3, { liquidation: true }), LedgerCode.Ok);
  h.events.length = 0;
  h.ledger.releaseOrder(orderNo(500), 3); // nothing on the book: ADL against Bob
  assert.equal(h.ledger.position(alice, ETH), 0);
  assert.ok(h.ledger.insuranceFund >= 0n, `the fund is ${h.ledger.insuranceFund}`);
  assert.deepEqual(h.ofType('insurance'), [], 'Bob’s ADL price paid the unit');
  assert.ok(h.ledger.collateral(alice) >= 0n);
  h.ledger.validateInternalState();
});
