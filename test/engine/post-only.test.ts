import assert from 'node:assert/strict';
import { EngineCode } from '../../src/engine/codes.ts';
import { bookTest } from './books.ts';
import { ALICE_BUY_5_AT_10_GTC, ALICE_SELL_2_AT_11_GTC, BOB_SELL_2_AT_10_POST_ONLY, BOB_SELL_2_AT_11_POST_ONLY, T0, limit, ALICE, POST_ONLY } from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

bookTest('a post-only that would take is rejected, not repriced', ({ book, events }) => {
  book.place(ALICE_BUY_5_AT_10_GTC);
  events.take();
  assert.equal(book.place(BOB_SELL_2_AT_10_POST_ONLY), EngineCode.PostOnlyWouldTake);
  assert.deepEqual(events.take(), [{ type: 'rejected', seq: 4, orderId: 27, owner: 21, code: EngineCode.PostOnlyWouldTake, time: T0 }]);
  assert.equal(book.order(orderNo(1))?.remaining, 5);
  assert.equal(book.bestAsk(), 0);
});

bookTest('a post-only that does not cross rests', ({ book, events }) => {
  book.place(ALICE_BUY_5_AT_10_GTC);
  events.take();
  assert.equal(book.place(BOB_SELL_2_AT_11_POST_ONLY), EngineCode.Ok);
  assert.deepEqual(events.take().map((e) => e.type), ['accepted', 'rested', 'level']);
  assert.equal(book.bestAsk(), 11);
  assert.equal(book.order(orderNo(28))?.flags, POST_ONLY);
});

bookTest('a post-only that would only meet its own account is still rejected', ({ book }) => {
  book.place(ALICE_SELL_2_AT_11_GTC);
  assert.equal(book.place(limit(ALICE, 9, 1, 1, 11, { flags: POST_ONLY })), EngineCode.PostOnlyWouldTake);
  assert.equal(book.order(orderNo(3))?.remaining, 2);
});
