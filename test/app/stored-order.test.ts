/**
 * Snapshots and history store an order's lots filled as `settled`, the name they were first
 * written with (app/order-registry `StoredOrder`): snapshots and history written before the
 * registry called it `filled` read as they are, and the state hash — taken over the snapshot's
 * JSON text, key order included — is unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OrderRegistry, orderOfStored, storedOrder } from '../../src/app/order-registry.ts';
import { stateHashOf } from '../../src/numeric/state-hash.ts';
import { ALICE_BUY_20_AT_95000_OPEN, T0 } from '../fixtures/orders.ts';
import { orderNo } from '../fixtures/ids.ts';

/** The JSON an older build wrote for `o`: the same text, the field named `settled`. */
const asWrittenBefore = (o: object) => JSON.stringify(o).replace('"filled":', '"settled":');

test('an order is stored with `filled` named `settled`, in its place, and reads back as it was', () => {
  const order = { ...ALICE_BUY_20_AT_95000_OPEN, remaining: 15, filled: 5 };
  const stored = storedOrder(order);
  assert.equal(JSON.stringify(stored), asWrittenBefore(order));
  assert.equal('filled' in stored, false);
  const back = orderOfStored(stored);
  assert.equal(JSON.stringify(back), JSON.stringify(order), 'every field, in its place');
  assert.notEqual(back, order, 'a copy');
});

test('the registry snapshots its open orders as stored, so the state hash reads the stored name', () => {
  const registry = new OrderRegistry();
  registry.submitted({ ...ALICE_BUY_20_AT_95000_OPEN });
  registry.filled(orderNo(7), 5, 15, 2, T0 + 1);
  const live = registry.get(orderNo(7))!;
  assert.equal(live.filled, 5);
  const snapshot = registry.snapshot();
  assert.equal(stateHashOf(snapshot), stateHashOf(JSON.parse(`[${asWrittenBefore(live)}]`)));

  const restored = OrderRegistry.restore(JSON.parse(JSON.stringify(snapshot)));
  assert.deepEqual(restored.get(orderNo(7)), live);
  restored.filled(orderNo(7), 15, 0, 3, T0 + 2);
  assert.equal(restored.lastKnown(orderNo(7))?.filled, 20, 'a restored order goes on counting its lots filled');
});
