import assert from 'node:assert/strict';
import { Reason } from '../../src/engine/codes.ts';
import { bookTest, placeAll } from './books.ts';
import { ALICE, ALICE_SUB_2, BOB, CAROL, T0, limit, IOC } from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

bookTest('a taker meeting its own account\'s maker expires the maker and keeps matching', ({ book, events }) => {
  placeAll(book, limit(ALICE_SUB_2, 1, -1, 2, 10), limit(BOB, 2, -1, 3, 10));
  events.take();
  book.place(limit(ALICE, 3, 1, 4, 10));
  assert.deepEqual(events.take(), [
    { type: 'accepted', seq: 7, orderId: 3, owner: 11, side: 1, price: 10, quantity: 4, time: T0 },
    { type: 'expired', seq: 8, orderId: 1, owner: 12, remaining: 2, reason: Reason.SelfTrade, time: T0 },
    { type: 'fill', seq: 9, maker: 2, taker: 3, makerOwner: 21, takerOwner: 11, takerSide: 1, price: 10, quantity: 3, makerRemaining: 0, takerRemaining: 1, time: T0 },
    { type: 'level', seq: 10, side: -1, price: 10, quantity: 0, time: T0 },
    { type: 'rested', seq: 11, orderId: 3, owner: 11, side: 1, price: 10, remaining: 1, time: T0 },
    { type: 'level', seq: 12, side: 1, price: 10, quantity: 1, time: T0 },
  ]);
});

bookTest('a self-trade maker in the middle of a level goes; the level is reported once', ({ book, events }) => {
  placeAll(book, limit(BOB, 1, -1, 1, 10), limit(ALICE, 2, -1, 5, 10), limit(CAROL, 3, -1, 2, 10));
  events.take();
  book.place(limit(ALICE_SUB_2, 4, 1, 2, 10));
  const seen = events.take().map((e) => (e.type === 'fill' ? `fill ${e.maker}` : e.type === 'expired' ? `expired ${e.orderId}` : e.type === 'level' ? `level ${e.quantity}` : e.type));
  assert.deepEqual(seen, ['accepted', 'fill 1', 'expired 2', 'fill 3', 'level 1']);
  assert.equal(book.order(orderNo(3))?.remaining, 1);
  assert.equal(book.order(orderNo(2)), undefined);
});

bookTest('an IOC meeting only its own orders expires them and is cancelled', ({ book, events }) => {
  placeAll(book, limit(ALICE_SUB_2, 1, -1, 2, 10));
  events.take();
  book.place(limit(ALICE, 2, 1, 2, 10, { flags: IOC }));
  assert.deepEqual(events.take().map((e) => e.type), ['accepted', 'expired', 'level', 'cancelled']);
  assert.equal(book.size, 0);
});

bookTest('a taker filled before it reaches its own maker leaves that maker resting', ({ book }) => {
  placeAll(book, limit(BOB, 1, -1, 2, 10), limit(ALICE, 2, -1, 1, 10));
  book.place(limit(ALICE_SUB_2, 3, 1, 2, 10));
  assert.equal(book.order(orderNo(2))?.remaining, 1);
  assert.equal(book.bestAsk(), 10);
});

bookTest('orders of different accounts trade normally', ({ book }) => {
  placeAll(book, limit(BOB, 1, -1, 2, 10), limit(ALICE, 2, 1, 2, 10));
  assert.equal(book.size, 0);
  assert.equal(ALICE.account !== BOB.account, true);
});
