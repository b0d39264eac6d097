import assert from 'node:assert/strict';
import { Reason } from '../../src/engine/codes.ts';
import { bookTest, placeAll } from './books.ts';
import { ALICE, ALICE_SUB_2, BOB, T0, limit } from './fixtures.ts';

bookTest('cancelAll cancels the owner\'s orders in orderId order with the given reason', ({ book, events }) => {
  placeAll(book, limit(ALICE, 9, 1, 1, 10), limit(ALICE, 3, -1, 2, 12), limit(BOB, 4, 1, 3, 10), limit(ALICE, 5, 1, 4, 9));
  events.take();
  assert.equal(book.cancelAll(ALICE.owner, T0 + 1, Reason.ExchangeCancelled), 3);
  assert.deepEqual(events.take(), [
    { type: 'cancelled', seq: 13, orderId: 3, owner: 11, remaining: 2, reason: Reason.ExchangeCancelled, time: T0 + 1 },
    { type: 'level', seq: 14, side: -1, price: 12, quantity: 0, time: T0 + 1 },
    { type: 'cancelled', seq: 15, orderId: 5, owner: 11, remaining: 4, reason: Reason.ExchangeCancelled, time: T0 + 1 },
    { type: 'level', seq: 16, side: 1, price: 9, quantity: 0, time: T0 + 1 },
    { type: 'cancelled', seq: 17, orderId: 9, owner: 11, remaining: 1, reason: Reason.ExchangeCancelled, time: T0 + 1 },
    { type: 'level', seq: 18, side: 1, price: 10, quantity: 3, time: T0 + 1 },
  ]);
  assert.deepEqual(book.ordersOf(ALICE.owner), []);
  assert.deepEqual(book.ordersOf(BOB.owner).map((o) => o.orderId), [4]);
});

bookTest('cancelAll leaves the same account\'s other subaccounts alone', ({ book }) => {
  placeAll(book, limit(ALICE, 1, 1, 1, 10), limit(ALICE_SUB_2, 2, 1, 1, 10));
  assert.equal(book.cancelAll(ALICE.owner, T0, Reason.Cancelled), 1);
  assert.deepEqual(book.ordersOf(ALICE_SUB_2.owner).map((o) => o.orderId), [2]);
});

bookTest('cancelAll of an owner with no orders cancels nothing and emits nothing', ({ book, events }) => {
  book.place(limit(BOB, 1, 1, 1, 10));
  events.take();
  assert.equal(book.cancelAll(ALICE.owner, T0, Reason.Cancelled), 0);
  assert.deepEqual(events.take(), []);
});

bookTest('ordersOf lists an owner\'s orders by orderId', ({ book }) => {
  placeAll(book, limit(ALICE, 7, 1, 1, 10), limit(ALICE, 2, 1, 1, 9), limit(ALICE, 5, -1, 1, 11));
  assert.deepEqual(book.ordersOf(ALICE.owner).map((o) => o.orderId), [2, 5, 7]);
});
