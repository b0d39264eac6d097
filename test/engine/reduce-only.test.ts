import assert from 'node:assert/strict';
import { EngineCode } from '../../src/engine/codes.ts';
import { bookTest } from './books.ts';
import {
  CAROL_BUY_2_AT_9_REDUCE_ONLY_FLAT, CAROL_BUY_2_AT_9_REDUCE_ONLY_LONG_5, CAROL_BUY_2_AT_9_REDUCE_ONLY_SHORT_3,
  CAROL_SELL_10_AT_9_REDUCE_ONLY_LONG_4, POST_ONLY, REDUCE_ONLY, T0, ALICE_BUY_5_AT_10_GTC,
} from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

bookTest('a reduce-only order with no position is rejected', ({ book, events }) => {
  assert.equal(book.place(CAROL_BUY_2_AT_9_REDUCE_ONLY_FLAT), EngineCode.ReduceOnlyWouldIncrease);
  assert.deepEqual(events.take(), [{ type: 'rejected', seq: 1, orderId: 38, owner: 31, code: EngineCode.ReduceOnlyWouldIncrease, time: T0 }]);
});

bookTest('a reduce-only order on the position\'s own side is rejected', ({ book }) => {
  assert.equal(book.place(CAROL_BUY_2_AT_9_REDUCE_ONLY_LONG_5), EngineCode.ReduceOnlyWouldIncrease);
  assert.equal(book.size, 0);
});

bookTest('a reduce-only order larger than the position is capped at it', ({ book, events }) => {
  assert.equal(book.place(CAROL_SELL_10_AT_9_REDUCE_ONLY_LONG_4), EngineCode.Ok);
  assert.deepEqual(events.take().slice(0, 2), [
    { type: 'accepted', seq: 1, orderId: 36, owner: 31, side: -1, price: 9, quantity: 4, time: T0 },
    { type: 'rested', seq: 2, orderId: 36, owner: 31, side: -1, price: 9, remaining: 4, time: T0 },
  ]);
  assert.equal(book.order(orderNo(36))?.quantity, 4);
  assert.equal(book.order(orderNo(36))?.flags, REDUCE_ONLY);
});

bookTest('a reduce-only order within the position keeps its quantity', ({ book }) => {
  book.place(CAROL_BUY_2_AT_9_REDUCE_ONLY_SHORT_3);
  assert.equal(book.order(orderNo(37))?.quantity, 2);
});

bookTest('the capped quantity is what trades', ({ book, events }) => {
  book.place(ALICE_BUY_5_AT_10_GTC);
  events.take();
  book.place(CAROL_SELL_10_AT_9_REDUCE_ONLY_LONG_4);
  const fill = events.take().find((e) => e.type === 'fill');
  assert.equal(fill?.type === 'fill' && fill.quantity, 4);
  assert.equal(book.order(orderNo(1))?.remaining, 1);
  assert.equal(book.order(orderNo(36)), undefined);
});

bookTest('reduce-only is checked before post-only', ({ book }) => {
  book.place(ALICE_BUY_5_AT_10_GTC);
  const crossingFlat = { ...CAROL_SELL_10_AT_9_REDUCE_ONLY_LONG_4, position: 0, flags: REDUCE_ONLY | POST_ONLY };
  assert.equal(book.place(crossingFlat), EngineCode.ReduceOnlyWouldIncrease);
  assert.equal(book.place({ ...crossingFlat, position: 4 }), EngineCode.PostOnlyWouldTake);
});
