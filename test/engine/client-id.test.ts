import assert from 'node:assert/strict';
import { EngineCode } from '../../src/engine/codes.ts';
import { bookTest, placeAll } from './books.ts';
import {
  ALICE, ALICE_BUY_5_AT_10_CLIENT_A, ALICE_SUB_2_BUY_1_AT_8_CLIENT_A, BOB_BUY_1_AT_9_CLIENT_A, BOB_SELL_7_AT_10_GTC, T0,
} from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

// A clientId is unique among an account's resting orders (check 5 of `place`). Cancels by
// clientId never reach the book: the exchange finds the order's id first (its order registry).

bookTest('a clientId open on one subaccount is taken for the whole account', ({ book }) => {
  book.place(ALICE_BUY_5_AT_10_CLIENT_A);
  assert.equal(book.place(ALICE_SUB_2_BUY_1_AT_8_CLIENT_A), EngineCode.ClientIdExists);
  assert.equal(book.place(BOB_BUY_1_AT_9_CLIENT_A), EngineCode.Ok, 'another account may use the same clientId');
});

bookTest('a clientId is free again once its order is cancelled or filled', ({ book }) => {
  book.place(ALICE_BUY_5_AT_10_CLIENT_A);
  book.cancel(orderNo(6), ALICE.owner, T0);
  assert.equal(book.place(ALICE_SUB_2_BUY_1_AT_8_CLIENT_A), EngineCode.Ok, 'free after a cancel');
  book.cancel(orderNo(7), ALICE_SUB_2_BUY_1_AT_8_CLIENT_A.owner, T0);
  placeAll(book, ALICE_BUY_5_AT_10_CLIENT_A, BOB_SELL_7_AT_10_GTC);
  assert.equal(book.order(orderNo(6)), undefined, 'filled');
  assert.equal(book.place(ALICE_SUB_2_BUY_1_AT_8_CLIENT_A), EngineCode.Ok, 'free after a fill');
});
