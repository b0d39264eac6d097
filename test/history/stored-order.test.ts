/**
 * History stores an order as every build wrote it: its lots filled named `settled`
 * (app/order-registry `StoredOrder`), in history.orders and in the subaccount event log. The
 * reads give the registry's shape back, `filled`, to the order routes and a resuming feed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AccountEventLog, type OrderEventRecord } from '../../src/history/account-events.ts';
import { projectionDatabase } from '../../src/history/history-env.ts';
import { ALICE_BUY_20_AT_95000_FILLED } from '../fixtures/orders.ts';
import { openTempHistory } from './temp-store.ts';

const ORDER = ALICE_BUY_20_AT_95000_FILLED;

test('history.orders holds `settled`; the reader gives `filled` back', () => {
  const h = openTempHistory();
  h.write((w) => w.onOrderUpdate({ ...ORDER }));
  const stored = h.dbs.orders.get(ORDER.orderId)!;
  assert.equal(stored.settled, 20);
  assert.equal('filled' in stored, false);
  assert.deepEqual(h.reader.order(ORDER.orderId), ORDER);
  assert.deepEqual(h.reader.orders(ORDER.owner, { limit: 10 }), [ORDER]);
  assert.deepEqual(h.reader.latestByClient([ORDER.owner], ORDER.clientId!, 10), ORDER);
});

test('the subaccount event log holds an order change with `settled`; a resuming feed reads `filled`', () => {
  const h = openTempHistory();
  const log = new AccountEventLog(h.root);
  const event: OrderEventRecord = { owner: ORDER.owner, seq: 1, kind: 'order', order: { ...ORDER } };
  h.write(() => log.onAccountEvents([event]));
  const [raw] = projectionDatabase<Array<{ order: Record<string, unknown> }>, number[]>(h.root, 'history.accountEvents').get([ORDER.owner, 1])!;
  assert.equal(raw.order.settled, 20);
  assert.equal('filled' in raw.order, false);
  assert.deepEqual(log.after(ORDER.owner, 0, 10), [event]);
});
