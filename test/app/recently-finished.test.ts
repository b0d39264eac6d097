/**
 * The order registry keeps the newest finished orders in memory: a write's outcome reports the
 * order as its command left it (Sequencer `Outcome.orders`), which may be finished by then, and
 * GET /account/order reads them without waiting for history.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OrderRegistry } from '../../src/app/order-registry.ts';
import type { OrderState } from '../../src/app/order-registry.ts';
import { ALICE_BUY_20_AT_95000_OPEN, T0 } from '../fixtures/orders.ts';
import { orderNo } from '../fixtures/ids.ts';

const open = (orderId: number): OrderState => ({ ...ALICE_BUY_20_AT_95000_OPEN, orderId: orderNo(orderId), clientId: `alice-${orderId}` });

test('an order filled at once is gone from the open orders and known, filled, to lastKnown', () => {
  const registry = new OrderRegistry();
  registry.submitted(open(7));
  registry.filled(orderNo(7), 20, 0, 2, T0 + 5);
  assert.equal(registry.get(orderNo(7)), undefined, 'no longer open');
  assert.equal(registry.byClient(ALICE_BUY_20_AT_95000_OPEN.account, 'alice-7'), undefined, 'its clientId is free again');
  const last = registry.lastKnown(orderNo(7));
  assert.equal(last?.status, 'filled');
  assert.equal(last?.filled, 20);
  assert.equal(last?.lastUpdateSequenceNumber, 2);
});

test('a submission refused before the book is known as rejected, with its reason', () => {
  const registry = new OrderRegistry();
  registry.refused(open(8), 'Insufficient margin');
  assert.equal(registry.get(orderNo(8)), undefined);
  assert.deepEqual([registry.lastKnown(orderNo(8))?.status, registry.lastKnown(orderNo(8))?.reason], ['rejected', 'Insufficient margin']);
});

test('finished orders are kept up to 8,192, the oldest forgotten first; an open order is always known', () => {
  const registry = new OrderRegistry();
  registry.submitted(open(1));
  const total = 8192 + 10;
  for (let id = 2; id <= total + 1; id++) {
    registry.submitted(open(id));
    registry.closed(orderNo(id), 'cancelled', 'Cancelled by user', T0 + id);
  }
  assert.equal(registry.lastKnown(orderNo(11)), undefined, 'the oldest are forgotten');
  assert.equal(registry.lastKnown(orderNo(12))?.status, 'cancelled', 'the bound is 8,192 orders');
  assert.equal(registry.lastKnown(orderNo(total + 1))?.status, 'cancelled');
  assert.equal(registry.lastKnown(orderNo(1))?.status, 'new', 'open orders are never forgotten');
  assert.equal(registry.lastKnown(orderNo(total + 2)), undefined, 'an id never seen');
});
