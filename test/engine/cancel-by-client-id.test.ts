import assert from 'node:assert/strict';
import { EngineCode, Reason } from '../../src/engine/codes.ts';
import { bookTest, placeAll } from './books.ts';
import {
  ALICE, ALICE_BUY_5_AT_10_CLIENT_A, ALICE_SUB_2_BUY_1_AT_8_CLIENT_A, BOB, BOB_BUY_1_AT_9_CLIENT_A, BOB_SELL_7_AT_10_GTC, T0,
} from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

bookTest('an order is cancelled by its account and clientId', ({ book, events }) => {
  book.place(ALICE_BUY_5_AT_10_CLIENT_A);
  events.take();
  assert.equal(book.cancelByClientId(ALICE.account, 'a', T0 + 1), EngineCode.Ok);
  assert.deepEqual(events.take(), [
    { type: 'cancelled', seq: 4, orderId: 6, owner: 11, remaining: 5, reason: Reason.Cancelled, time: T0 + 1 },
    { type: 'level', seq: 5, side: 1, price: 10, quantity: 0, time: T0 + 1 },
  ]);
  assert.equal(book.orderByClientId(ALICE.account, 'a'), undefined);
});

bookTest('an unknown clientId is OrderNotFound and another account\'s order is untouched', ({ book, events }) => {
  book.place(BOB_BUY_1_AT_9_CLIENT_A);
  events.take();
  assert.equal(book.cancelByClientId(ALICE.account, 'a', T0), EngineCode.OrderNotFound);
  assert.equal(book.cancelByClientId(BOB.account, 'b', T0), EngineCode.OrderNotFound);
  assert.deepEqual(events.take(), []);
  assert.equal(book.orderByClientId(BOB.account, 'a')?.orderId, 29);
});

bookTest('a clientId open on one subaccount is taken for the whole account', ({ book }) => {
  book.place(ALICE_BUY_5_AT_10_CLIENT_A);
  assert.equal(book.place(ALICE_SUB_2_BUY_1_AT_8_CLIENT_A), EngineCode.ClientIdExists);
  assert.equal(book.place(BOB_BUY_1_AT_9_CLIENT_A), EngineCode.Ok, 'another account may use the same clientId');
});

bookTest('a clientId is free again once its order is cancelled or filled', ({ book }) => {
  book.place(ALICE_BUY_5_AT_10_CLIENT_A);
  book.cancelByClientId(ALICE.account, 'a', T0);
  assert.equal(book.place(ALICE_SUB_2_BUY_1_AT_8_CLIENT_A), EngineCode.Ok);
  assert.equal(book.orderByClientId(ALICE.account, 'a')?.orderId, 7);
  book.cancel(orderNo(7), ALICE_SUB_2_BUY_1_AT_8_CLIENT_A.owner, T0);
  placeAll(book, ALICE_BUY_5_AT_10_CLIENT_A, BOB_SELL_7_AT_10_GTC);
  assert.equal(book.orderByClientId(ALICE.account, 'a'), undefined);
  assert.equal(book.place(ALICE_SUB_2_BUY_1_AT_8_CLIENT_A), EngineCode.Ok);
});

bookTest('cancelByClientId reaches any subaccount of the account', ({ book }) => {
  book.place(ALICE_SUB_2_BUY_1_AT_8_CLIENT_A);
  assert.equal(book.cancelByClientId(ALICE.account, 'a', T0), EngineCode.Ok);
  assert.equal(book.size, 0);
});
