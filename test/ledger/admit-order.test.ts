import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { marketNo, orderNo, ownerNo } from '../fixtures/ids.ts';

// Hold = IM growth of the worst-case position on the order's side + taker fee on the order notional.
// 1 BTC (1000 lots) at 100 → notional 100 USD, IM 10 % = 10, fee 0.05 → hold 10.05.

test('ALICE_BUY_1_AT_100_GTC holds 10.05 and the free collateral drops by it', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 100, 1000, false, 0), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(10.05));
  assert.equal(h.ledger.stats(alice)!.freeCollateral, usd(1000 - 10.05));
  assert.equal(h.ledger.stats(alice)!.initialMarginRequirement, usd(10.05));
});

test('an order beyond free collateral is refused with InsufficientMargin and holds nothing', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(10));
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 100, 1000, false, 0), LedgerCode.InsufficientMargin);
  assert.equal(h.ledger.holdOf(orderNo(1)), 0n);
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, BTC, 1, 100, 990, false, 0), LedgerCode.Ok, '9.9 + 0.0495 fits in 10');
  assert.equal(h.ledger.admitOrder(orderNo(3), alice, BTC, 1, 100, 10, false, 0), LedgerCode.InsufficientMargin, 'open orders count');
});

test('an order that only reduces the position holds just its fee, and so does a reduce-only order', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000);
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, -1, 100, 1000, false, 0), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(0.05));
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, BTC, -1, 100, 500, true, 0), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(2)), usd(0.025), 'the taker fee on the 500 lots it closes');
  // A second sell beyond the position is a new short: full IM.
  assert.equal(h.ledger.admitOrder(orderNo(3), alice, BTC, -1, 100, 1000, false, 0), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(3)), usd(10.05));
  h.ledger.validateInternalState();
});

test('the hold is released in proportion as the order fills, and the rest on cancel', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.ledger.admitOrder(orderNo(7), alice, BTC, 1, 100, 1000, false, 0);
  h.ledger.settleFill(orderNo(99), orderNo(7), bob, alice, 1, BTC, 100, 400, 1);
  assert.equal(h.ledger.holdOf(orderNo(7)), usd(10.05) - usd(4.02));
  h.ledger.validateInternalState();
  h.ledger.releaseOrder(orderNo(7), 2);
  assert.equal(h.ledger.holdOf(orderNo(7)), 0n);
  assert.equal(h.ledger.stats(alice)!.initialMarginRequirement, usd(4), 'only the position’s IM remains');
  h.ledger.validateInternalState();
});

test('a complete fill drops the hold; a duplicate orderId is refused; bad input is refused', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  assert.equal(h.ledger.admitOrder(orderNo(7), alice, BTC, 1, 100, 1000, false, 0), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(7), alice, BTC, 1, 100, 1000, false, 0), LedgerCode.OrderExists);
  h.ledger.settleFill(orderNo(99), orderNo(7), bob, alice, 1, BTC, 100, 1000, 1);
  assert.equal(h.ledger.holdOf(orderNo(7)), 0n);
  assert.equal(h.ledger.admitOrder(orderNo(8), alice, BTC, 1, 0, 1000, false, 0), LedgerCode.InvalidOrder);
  assert.equal(h.ledger.admitOrder(orderNo(8), alice, BTC, 1, 100, 1.5, false, 0), LedgerCode.InvalidOrder);
  assert.equal(h.ledger.admitOrder(orderNo(8), ownerNo(42), BTC, 1, 100, 1, false, 0), LedgerCode.AccountNotFound);
  assert.equal(h.ledger.admitOrder(orderNo(8), alice, marketNo(9), 1, 100, 1, false, 0), LedgerCode.MarketNotFound);
  h.ledger.validateInternalState();
});

test('a sell is valued at the mark when its limit is below it, and holds what selling there loses against the mark', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  h.ledger.setIndexPrice(BTC, 200, 0);
  h.ledger.admitOrder(orderNo(1), alice, BTC, -1, 100, 1000, false, 0);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(20.1 + 100), 'IM and fee at 200, and the 100 a short sold at 100 is under water at 200 (test/ledger/open-loss)');
});

test('the originator fee is held, charged to the owner and paid to the originator', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  const builder = h.id('0x' + '1'.repeat(40));
  h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 100, 1000, false, 0, { originator: builder, originatorFee: 100_000n }); // 0.1 %
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(10.05 + 0.1));
  h.ledger.settleFill(orderNo(2), orderNo(1), bob, alice, 1, BTC, 100, 1000, 1);
  assert.equal(h.ledger.collateral(builder), usd(0.1));
  assert.equal(h.ledger.collateral(alice), usd(1000 - 0.05 - 0.1));
  assert.equal(h.ledger.positionOf(alice, BTC)!.fees, usd(0.15));
  h.ledger.validateInternalState();
});
