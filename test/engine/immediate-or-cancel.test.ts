import assert from 'node:assert/strict';
import { EngineCode, Reason } from '../../src/engine/codes.ts';
import { bookTest, placeAll } from './books.ts';
import { BOB_SELL_2_AT_12_GTC, BOB_SELL_3_AT_11_GTC, CAROL_BUY_2_AT_11_IOC, CAROL_BUY_8_AT_12_IOC, T0 } from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

bookTest('an IOC on an empty book is cancelled whole', ({ book, events }) => {
  assert.equal(book.place(CAROL_BUY_8_AT_12_IOC), EngineCode.Ok);
  assert.deepEqual(events.take(), [
    { type: 'accepted', seq: 1, orderId: 33, owner: 31, side: 1, price: 12, quantity: 8, time: T0 },
    { type: 'cancelled', seq: 2, orderId: 33, owner: 31, remaining: 8, reason: Reason.ImmediateOrCancel, time: T0 },
  ]);
  assert.equal(book.size, 0);
  assert.equal(book.bestBid(), 0);
});

bookTest('an IOC trades what crosses and cancels the rest instead of resting', ({ book, events }) => {
  placeAll(book, BOB_SELL_3_AT_11_GTC, BOB_SELL_2_AT_12_GTC);
  events.take();
  book.place(CAROL_BUY_8_AT_12_IOC);
  const seen = events.take();
  assert.deepEqual(seen.map((e) => e.type), ['accepted', 'fill', 'level', 'fill', 'level', 'cancelled']);
  assert.deepEqual(seen[5], { type: 'cancelled', seq: 12, orderId: 33, owner: 31, remaining: 3, reason: Reason.ImmediateOrCancel, time: T0 });
  assert.equal(book.order(orderNo(33)), undefined);
  assert.equal(book.size, 0);
});

bookTest('a fully filled IOC emits no cancel', ({ book, events }) => {
  book.place(BOB_SELL_3_AT_11_GTC);
  events.take();
  book.place(CAROL_BUY_2_AT_11_IOC);
  assert.deepEqual(events.take().map((e) => e.type), ['accepted', 'fill', 'level']);
  assert.equal(book.order(orderNo(22))?.remaining, 1);
});

bookTest('an IOC whose limit does not cross leaves the book untouched', ({ book, events }) => {
  book.place(BOB_SELL_2_AT_12_GTC);
  events.take();
  book.place(CAROL_BUY_2_AT_11_IOC);
  assert.deepEqual(events.take().map((e) => e.type), ['accepted', 'cancelled']);
  assert.equal(book.order(orderNo(23))?.remaining, 2);
});
