/**
 * Snapshots and history store an order's lots filled as `settled`, the name they were first
 * written with (app/order-registry `StoredOrder`): snapshots and history written before the
 * registry called it `filled` read as they are, and the state hash — taken over the snapshot's
 * JSON text, key order included — is unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OrderRegistry, orderOfStored, storedOrder, type OrderState } from '../../src/app/order-registry.ts';
import { stateHashOf } from '../../src/numeric/state-hash.ts';
import { Side } from '../../src/engine/types.ts';
import { ALICE_BUY_20_AT_95000_OPEN, T0 } from '../fixtures/orders.ts';
import { marketNo, orderNo, ownerNo } from '../fixtures/ids.ts';

/** The JSON an older build wrote for `o`: the same text, the field named `settled`. */
const asWrittenBefore = (o: object) => JSON.stringify(o).replace('"filled":', '"settled":');

/**
 * A triggered take-profit child with every field set, and no two fields alike (no null, no 0
 * shared), so a field copied from the wrong place, or not at all, shows. Typed `OrderState`: a
 * field added there must be set here, and is then checked both ways below.
 */
const EVERY_FIELD_SET: OrderState = {
  orderId: orderNo(7001), market: marketNo(2), owner: ownerNo(3), account: '0x00000000000000000000000000000000000a11ce', subaccountIndex: 4,
  orderType: 'takeProfit', side: Side.Sell, price: 950_005, quantity: 20, remaining: 15, filled: 5, flags: 6, expiresAt: T0 + 7,
  nonce: 1_763_802_000_008, clientId: 'alice-9', originator: '0x0000000000000000000000000000000000000bb0', originatorFee: 10,
  triggerPrice: 950_011, parentOrderId: orderNo(7012), period: 13, trailingPercent: '1.4', groupId: 'g-15', ocoGroupId: 'oco-16',
  status: 'partiallyFilled', reason: 'reason-17', createdAt: T0 + 18, updatedAt: T0 + 19, lastUpdateSequenceNumber: 21,
};

test('the fixture sets every field to a value of its own (else a swap of two fields would go unseen)', () => {
  const values = Object.values(EVERY_FIELD_SET).map((v) => JSON.stringify(v));
  assert.equal(new Set(values).size, values.length);
});

test('every field of an order is stored under its name (lots filled as `settled`), in its place, and reads back as it was', () => {
  const stored = storedOrder(EVERY_FIELD_SET) as unknown as Record<string, unknown>;
  const storedName = (field: string) => (field === 'filled' ? 'settled' : field);
  assert.deepEqual(Object.keys(stored), Object.keys(EVERY_FIELD_SET).map(storedName), 'the same fields, in the same order');
  for (const [field, value] of Object.entries(EVERY_FIELD_SET)) assert.equal(stored[storedName(field)], value, `${field} stored as ${storedName(field)}`);
  assert.equal(JSON.stringify(stored), asWrittenBefore(EVERY_FIELD_SET));

  const back = orderOfStored(storedOrder(EVERY_FIELD_SET));
  assert.deepEqual(Object.keys(back), Object.keys(EVERY_FIELD_SET), 'read back: the same fields, in the same order');
  for (const [field, value] of Object.entries(EVERY_FIELD_SET)) assert.equal(back[field as keyof OrderState], value, `${field} read back`);
  assert.notEqual(back, EVERY_FIELD_SET, 'a copy');
});

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
