import assert from 'node:assert/strict';
import { EngineCode, Reason } from '../../src/engine/codes.ts';
import { bookTest, placeAll } from './books.ts';
import { ALICE, BOB, CAROL, T0, limit } from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

const ALICE_BUY_1_AT_10_UNTIL_T0_50 = limit(ALICE, 1, 1, 1, 10, { expiresAt: T0 + 50 });
const BOB_BUY_2_AT_9_UNTIL_T0_20 = limit(BOB, 2, 1, 2, 9, { expiresAt: T0 + 20 });
const BOB_SELL_1_AT_12_UNTIL_T0_20 = limit(BOB, 3, -1, 1, 12, { expiresAt: T0 + 20 });
const CAROL_SELL_1_AT_10_GTC = limit(CAROL, 4, -1, 1, 10);

bookTest('the expire timer does nothing before expiresAt', ({ book, events }) => {
  book.place(ALICE_BUY_1_AT_10_UNTIL_T0_50);
  events.take();
  assert.equal(book.expire(T0 + 49), 0);
  assert.deepEqual(events.take(), []);
  assert.equal(book.size, 1);
});

bookTest('orders expire at expiresAt in (expiresAt, orderId) order', ({ book, events }) => {
  placeAll(book, ALICE_BUY_1_AT_10_UNTIL_T0_50, BOB_SELL_1_AT_12_UNTIL_T0_20, BOB_BUY_2_AT_9_UNTIL_T0_20);
  events.take();
  assert.equal(book.expire(T0 + 50), 3);
  assert.deepEqual(events.take(), [
    { type: 'expired', seq: 10, orderId: 2, owner: 21, remaining: 2, reason: Reason.ExpiresAtReached, time: T0 + 50 },
    { type: 'level', seq: 11, side: 1, price: 9, quantity: 0, time: T0 + 50 },
    { type: 'expired', seq: 12, orderId: 3, owner: 21, remaining: 1, reason: Reason.ExpiresAtReached, time: T0 + 50 },
    { type: 'level', seq: 13, side: -1, price: 12, quantity: 0, time: T0 + 50 },
    { type: 'expired', seq: 14, orderId: 1, owner: 11, remaining: 1, reason: Reason.ExpiresAtReached, time: T0 + 50 },
    { type: 'level', seq: 15, side: 1, price: 10, quantity: 0, time: T0 + 50 },
  ]);
  assert.equal(book.size, 0);
});

bookTest('every command expires due orders first, so a taker never meets an expired maker', ({ book, events }) => {
  book.place(ALICE_BUY_1_AT_10_UNTIL_T0_50);
  events.take();
  book.place({ ...CAROL_SELL_1_AT_10_GTC, time: T0 + 50 });
  assert.deepEqual(events.take().map((e) => e.type), ['expired', 'level', 'accepted', 'rested', 'level']);
  assert.equal(book.bestAsk(), 10);
});

bookTest('a cancel of an order that just expired is OrderNotFound, after the expiry events', ({ book, events }) => {
  book.place(ALICE_BUY_1_AT_10_UNTIL_T0_50);
  events.take();
  assert.equal(book.cancel(orderNo(1), ALICE.owner, T0 + 60), EngineCode.OrderNotFound);
  assert.deepEqual(events.take().map((e) => e.type), ['expired', 'level']);
});

bookTest('an order whose expiresAt has passed is rejected with AlreadyExpired', ({ book }) => {
  assert.equal(book.place({ ...ALICE_BUY_1_AT_10_UNTIL_T0_50, time: T0 + 50 }), EngineCode.AlreadyExpired);
  assert.equal(book.place({ ...ALICE_BUY_1_AT_10_UNTIL_T0_50, time: T0 + 49 }), EngineCode.Ok);
});

bookTest('a good-till-cancelled order (expiresAt 0) never expires', ({ book }) => {
  book.place(CAROL_SELL_1_AT_10_GTC);
  assert.equal(book.expire(Number.MAX_SAFE_INTEGER), 0);
  assert.equal(book.size, 1);
});

bookTest('an order cancelled before its expiry does not expire later', ({ book, events }) => {
  book.place(ALICE_BUY_1_AT_10_UNTIL_T0_50);
  book.cancel(orderNo(1), ALICE.owner, T0 + 1);
  book.place(limit(ALICE, 1, 1, 1, 10, { expiresAt: T0 + 90 }));
  events.take();
  assert.equal(book.expire(T0 + 60), 0, 'the reused id keeps its own expiresAt');
  assert.equal(book.expire(T0 + 90), 1);
  assert.equal(events.take()[0].type, 'expired');
});
