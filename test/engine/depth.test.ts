import assert from 'node:assert/strict';
import { bookTest, placeAll } from './books.ts';
import { ALICE, BOB, limit } from './fixtures.ts';

const BIDS = [limit(ALICE, 1, 1, 1, 101), limit(ALICE, 2, 1, 2, 105), limit(ALICE, 3, 1, 4, 110), limit(BOB, 4, 1, 8, 110)];
const ASKS = [limit(BOB, 5, -1, 1, 111), limit(BOB, 6, -1, 2, 115), limit(BOB, 7, -1, 4, 120), limit(BOB, 8, -1, 8, 131)];

bookTest('depth lists bids descending and asks ascending, best first', ({ book }) => {
  placeAll(book, ...BIDS, ...ASKS);
  assert.deepEqual(book.depth(1, 10, 1), [{ price: 110, quantity: 12 }, { price: 105, quantity: 2 }, { price: 101, quantity: 1 }]);
  assert.deepEqual(book.depth(-1, 10, 1), [{ price: 111, quantity: 1 }, { price: 115, quantity: 2 }, { price: 120, quantity: 4 }, { price: 131, quantity: 8 }]);
});

bookTest('depth returns at most the levels asked for', ({ book }) => {
  placeAll(book, ...BIDS, ...ASKS);
  assert.deepEqual(book.depth(1, 2, 1), [{ price: 110, quantity: 12 }, { price: 105, quantity: 2 }]);
  assert.deepEqual(book.depth(-1, 1, 1), [{ price: 111, quantity: 1 }]);
  assert.deepEqual(book.depth(-1, 0, 1), []);
});

bookTest('grouped depth rounds bids down and asks up to the tick multiple', ({ book }) => {
  placeAll(book, ...BIDS, ...ASKS);
  assert.deepEqual(book.depth(1, 10, 10), [{ price: 110, quantity: 12 }, { price: 100, quantity: 3 }]);
  assert.deepEqual(book.depth(-1, 10, 10), [{ price: 120, quantity: 7 }, { price: 140, quantity: 8 }]);
  assert.deepEqual(book.depth(-1, 1, 10), [{ price: 120, quantity: 7 }]);
  assert.deepEqual(book.depth(1, 10, 100), [{ price: 100, quantity: 15 }]);
});

bookTest('depth of an empty side is empty', ({ book }) => {
  placeAll(book, ...BIDS);
  assert.deepEqual(book.depth(-1, 5, 1), []);
});
