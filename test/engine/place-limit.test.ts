import assert from 'node:assert/strict';
import { EngineCode } from '../../src/engine/codes.ts';
import { bookTest, placeAll } from './books.ts';
import {
  ALICE, ALICE_BUY_3_AT_9_GTC, ALICE_BUY_5_AT_10_GTC, BOB_SELL_2_AT_12_GTC, BOB_SELL_3_AT_11_GTC, BOB_SELL_3_AT_9_GTC,
  BOB_SELL_7_AT_10_GTC, CAROL_BUY_2_AT_10_GTC, CAROL_BUY_8_AT_12_GTC, DAVE_BUY_1_AT_11_GTC, T0, at, limit,
} from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

bookTest('a buy on an empty book rests and reports its level', ({ book, events }) => {
  assert.equal(book.place(ALICE_BUY_5_AT_10_GTC), EngineCode.Ok);
  assert.deepEqual(events.take(), [
    { type: 'accepted', seq: 1, orderId: 1, owner: 11, side: 1, price: 10, quantity: 5, time: T0 },
    { type: 'rested', seq: 2, orderId: 1, owner: 11, side: 1, price: 10, remaining: 5, time: T0 },
    { type: 'level', seq: 3, side: 1, price: 10, quantity: 5, time: T0 },
  ]);
  assert.equal(book.sequence, 3);
  assert.equal(book.size, 1);
  assert.equal(book.bestBid(), 10);
  assert.equal(book.bestAsk(), 0);
  assert.deepEqual(book.order(orderNo(1)), {
    orderId: 1, owner: 11, account: 1, side: 1, price: 10, quantity: 5, remaining: 5, filled: 0, flags: 0,
    expiresAt: 0, clientId: null, status: 'new', createdAt: T0, updatedAt: T0, lastUpdateSequenceNumber: 2,
  });
});

bookTest('a crossing sell trades at the resting buy price and updates the maker', ({ book, events }) => {
  book.place(ALICE_BUY_5_AT_10_GTC);
  events.take();
  assert.equal(book.place(at(T0 + 5, BOB_SELL_3_AT_9_GTC)), EngineCode.Ok);
  assert.deepEqual(events.take(), [
    { type: 'accepted', seq: 4, orderId: 24, owner: 21, side: -1, price: 9, quantity: 3, time: T0 + 5 },
    {
      type: 'fill', seq: 5, maker: 1, taker: 24, makerOwner: 11, takerOwner: 21, takerSide: -1,
      price: 10, quantity: 3, makerRemaining: 2, takerRemaining: 0, time: T0 + 5,
    },
    { type: 'level', seq: 6, side: 1, price: 10, quantity: 2, time: T0 + 5 },
  ]);
  const maker = book.order(orderNo(1));
  assert.equal(maker?.remaining, 2);
  assert.equal(maker?.filled, 3);
  assert.equal(maker?.status, 'partiallyFilled');
  assert.equal(maker?.updatedAt, T0 + 5);
  assert.equal(maker?.createdAt, T0);
  assert.equal(maker?.lastUpdateSequenceNumber, 5);
  assert.equal(book.order(orderNo(24)), undefined, 'a filled taker does not rest');
});

bookTest('makers fill in price then time priority, with one level report per level', ({ book, events }) => {
  placeAll(book, ALICE_BUY_5_AT_10_GTC, CAROL_BUY_2_AT_10_GTC, DAVE_BUY_1_AT_11_GTC);
  events.take();
  book.place(BOB_SELL_7_AT_10_GTC);
  const seen = events.take().map((e) => (e.type === 'fill' ? `fill ${e.maker}@${e.price}x${e.quantity}` : e.type === 'level' ? `level ${e.price}=${e.quantity}` : e.type));
  assert.deepEqual(seen, ['accepted', 'fill 41@11x1', 'level 11=0', 'fill 1@10x5', 'fill 31@10x1', 'level 10=1']);
  assert.equal(book.order(orderNo(31))?.remaining, 1);
  assert.equal(book.bestBid(), 10);
});

bookTest('a buy sweeps two ask levels and rests its remainder at its limit', ({ book, events }) => {
  placeAll(book, BOB_SELL_3_AT_11_GTC, BOB_SELL_2_AT_12_GTC);
  events.take();
  book.place(CAROL_BUY_8_AT_12_GTC);
  assert.deepEqual(events.take(), [
    { type: 'accepted', seq: 7, orderId: 32, owner: 31, side: 1, price: 12, quantity: 8, time: T0 },
    { type: 'fill', seq: 8, maker: 22, taker: 32, makerOwner: 21, takerOwner: 31, takerSide: 1, price: 11, quantity: 3, makerRemaining: 0, takerRemaining: 5, time: T0 },
    { type: 'level', seq: 9, side: -1, price: 11, quantity: 0, time: T0 },
    { type: 'fill', seq: 10, maker: 23, taker: 32, makerOwner: 21, takerOwner: 31, takerSide: 1, price: 12, quantity: 2, makerRemaining: 0, takerRemaining: 3, time: T0 },
    { type: 'level', seq: 11, side: -1, price: 12, quantity: 0, time: T0 },
    { type: 'rested', seq: 12, orderId: 32, owner: 31, side: 1, price: 12, remaining: 3, time: T0 },
    { type: 'level', seq: 13, side: 1, price: 12, quantity: 3, time: T0 },
  ]);
  assert.equal(book.bestAsk(), 0);
  assert.equal(book.bestBid(), 12);
  assert.equal(book.order(orderNo(32))?.quantity, 8);
  assert.equal(book.order(orderNo(32))?.status, 'partiallyFilled');
});

bookTest('a buy below the best ask does not trade', ({ book }) => {
  placeAll(book, BOB_SELL_3_AT_11_GTC, ALICE_BUY_5_AT_10_GTC);
  assert.equal(book.bestBid(), 10);
  assert.equal(book.bestAsk(), 11);
  assert.equal(book.size, 2);
});

bookTest('invalid quantities are rejected with InvalidQuantity before anything else', ({ book, events }) => {
  for (const quantity of [0, -1, 1.5, Number.NaN, 2 ** 53]) {
    assert.equal(book.place({ ...ALICE_BUY_5_AT_10_GTC, quantity, price: 0 }), EngineCode.InvalidQuantity);
  }
  const rejected = events.take();
  assert.equal(rejected.length, 5);
  assert.deepEqual(rejected[0], { type: 'rejected', seq: 1, orderId: 1, owner: 11, code: EngineCode.InvalidQuantity, time: T0 });
  assert.equal(book.size, 0);
  assert.equal(book.sequence, 5, 'a rejection takes a sequence number');
});

bookTest('invalid prices are rejected with InvalidPrice', ({ book }) => {
  for (const price of [0, -10, 10.5, Infinity]) {
    assert.equal(book.place({ ...ALICE_BUY_5_AT_10_GTC, price }), EngineCode.InvalidPrice);
  }
  assert.equal(book.size, 0);
});

bookTest('an order below the minimum size is rejected with BelowMinSize', ({ book }) => {
  assert.equal(book.place({ ...ALICE_BUY_5_AT_10_GTC, quantity: 2 }), EngineCode.BelowMinSize);
  assert.equal(book.place({ ...ALICE_BUY_5_AT_10_GTC, quantity: 3 }), EngineCode.Ok);
}, { minSizeLots: 3 });

bookTest('a live orderId is rejected with OrderIdExists; a gone one may be reused', ({ book, events }) => {
  book.place(ALICE_BUY_5_AT_10_GTC);
  events.take();
  assert.equal(book.place({ ...ALICE_BUY_3_AT_9_GTC, orderId: orderNo(1) }), EngineCode.OrderIdExists);
  assert.deepEqual(events.take(), [{ type: 'rejected', seq: 4, orderId: 1, owner: 11, code: EngineCode.OrderIdExists, time: T0 }]);
  assert.equal(book.order(orderNo(1))?.price, 10, 'the live order is untouched');
  book.cancel(orderNo(1), ALICE.owner, T0);
  assert.equal(book.place(limit(ALICE, 1, 1, 1, 8)), EngineCode.Ok);
});
