import assert from 'node:assert/strict';
import { ConditionalCode, ConditionalReason } from '../../src/conditional/codes.ts';
import { conditionalTest } from './books.ts';
import { ALICE, ALICE_LONG_5_PAIR_TP_110_SL_95, BOB, MARK_100, T0 } from './fixtures.ts';

const PAIR = ALICE_LONG_5_PAIR_TP_110_SL_95;

conditionalTest('a position-attached pair needs a position its side closes', ({ book }) => {
  book.onMark(MARK_100, T0);
  assert.equal(book.placePair({ ...PAIR, position: 0 }), ConditionalCode.NoPositionToClose);
  assert.equal(book.placePair({ ...PAIR, position: -5 }), ConditionalCode.NoPositionToClose);
  assert.equal(book.placePair(PAIR), ConditionalCode.Ok);
});

conditionalTest('the pair stays while the position is open and is cancelled when it closes', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.placePair(PAIR);
  book.onPosition(ALICE.owner, 3, T0 + 1);
  book.onPosition(BOB.owner, 0, T0 + 1);
  assert.deepEqual(events.take(), [], 'a smaller position, or another owner closing, leaves it');
  book.onPosition(ALICE.owner, 0, T0 + 2);
  assert.deepEqual(events.take(), [
    { type: 'cancelled', orderId: 11, owner: ALICE.owner, reason: ConditionalReason.PositionClosed, time: T0 + 2 },
    { type: 'cancelled', orderId: 12, owner: ALICE.owner, reason: ConditionalReason.PositionClosed, time: T0 + 2 },
  ]);
  book.onMark(120, T0 + 3);
  assert.deepEqual(events.take(), [], 'a closed position\'s take-profit never fires');
});

conditionalTest('a position that flips to the other side ends the pair too', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.placePair(PAIR);
  book.onPosition(ALICE.owner, -2, T0 + 1);
  assert.deepEqual(events.take().map((e) => e.type === 'cancelled' && e.reason), [ConditionalReason.PositionClosed, ConditionalReason.PositionClosed]);
  assert.equal(book.size, 0);
});

conditionalTest('a short\'s buy pair is ended by the short closing', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  const buyPair = {
    ...PAIR,
    takeProfit: { ...PAIR.takeProfit, side: 1 as const, triggerPrice: 90 },
    stopLoss: { ...PAIR.stopLoss, side: 1 as const, triggerPrice: 105 },
    position: -5,
  };
  assert.equal(book.placePair(buyPair), ConditionalCode.Ok);
  book.onPosition(ALICE.owner, -1, T0 + 1);
  assert.deepEqual(events.take(), []);
  book.onPosition(ALICE.owner, 0, T0 + 2);
  assert.equal(events.take().length, 2);
});
