import assert from 'node:assert/strict';
import { EngineCode, Reason } from '../../src/engine/codes.ts';
import { bookTest, placeAll } from './books.ts';
import { ALICE, ALICE_BUY_5_AT_10_GTC, BOB, BOB_SELL_7_AT_10_GTC, CAROL_BUY_2_AT_10_GTC, DAVE, T0, limit } from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

bookTest('cancelling the only order at a price removes the level', ({ book, events }) => {
  book.place(ALICE_BUY_5_AT_10_GTC);
  events.take();
  assert.equal(book.cancel(orderNo(1), ALICE.owner, T0 + 1), EngineCode.Ok);
  assert.deepEqual(events.take(), [
    { type: 'cancelled', seq: 4, orderId: 1, owner: 11, remaining: 5, reason: Reason.Cancelled, time: T0 + 1 },
    { type: 'level', seq: 5, side: 1, price: 10, quantity: 0, time: T0 + 1 },
  ]);
  assert.equal(book.order(orderNo(1)), undefined);
  assert.equal(book.bestBid(), 0);
  assert.equal(book.size, 0);
  assert.deepEqual(book.ordersOf(ALICE.owner), []);
});

bookTest('cancelling one of several orders at a price reports the rest of the level', ({ book, events }) => {
  placeAll(book, ALICE_BUY_5_AT_10_GTC, CAROL_BUY_2_AT_10_GTC);
  events.take();
  book.cancel(orderNo(1), ALICE.owner, T0);
  assert.deepEqual(events.take()[1], { type: 'level', seq: 8, side: 1, price: 10, quantity: 2, time: T0 });
  assert.equal(book.bestBid(), 10);
});

bookTest('an unknown order is OrderNotFound and emits nothing', ({ book, events }) => {
  book.place(ALICE_BUY_5_AT_10_GTC);
  events.take();
  assert.equal(book.cancel(orderNo(999), ALICE.owner, T0), EngineCode.OrderNotFound);
  assert.deepEqual(events.take(), []);
  assert.equal(book.sequence, 3);
});

bookTest('another owner\'s order is NotOwner and stays on the book', ({ book, events }) => {
  book.place(ALICE_BUY_5_AT_10_GTC);
  events.take();
  assert.equal(book.cancel(orderNo(1), BOB.owner, T0), EngineCode.NotOwner);
  assert.deepEqual(events.take(), []);
  assert.equal(book.order(orderNo(1))?.remaining, 5);
});

bookTest('a filled order can no longer be cancelled', ({ book }) => {
  placeAll(book, ALICE_BUY_5_AT_10_GTC, BOB_SELL_7_AT_10_GTC);
  assert.equal(book.cancel(orderNo(1), ALICE.owner, T0), EngineCode.OrderNotFound);
  assert.equal(book.order(orderNo(25))?.remaining, 2);
});

bookTest('cancelling from the middle of a level keeps the others\' priority', ({ book, events }) => {
  placeAll(book, limit(ALICE, 1, 1, 1, 10), limit(BOB, 2, 1, 1, 10), limit(ALICE, 3, 1, 1, 10));
  book.cancel(orderNo(2), BOB.owner, T0);
  events.take();
  book.place(limit(DAVE, 4, -1, 2, 10));
  const makers = events.take().flatMap((e) => (e.type === 'fill' ? [e.maker] : []));
  assert.deepEqual(makers, [1, 3]);
  assert.equal(book.size, 0);
});
