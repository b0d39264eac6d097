import assert from 'node:assert/strict';
import { ConditionalCode, ConditionalReason, GroupEnd } from '../../src/conditional/codes.ts';
import { Release } from '../../src/conditional/types.ts';
import { conditionalTest } from './books.ts';
import { BOB, BOB_ICEBERG_3_SLICES_OF_5, T0, released } from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

const ICEBERG = BOB_ICEBERG_3_SLICES_OF_5;
const [S81, S82, S83] = ICEBERG.slices;

conditionalTest('an iceberg shows one slice and reveals the next only after a full fill', ({ book, events }) => {
  assert.equal(book.placeIceberg(ICEBERG), ConditionalCode.Ok);
  assert.deepEqual(events.take(), [{ type: 'release', order: released(S81, T0), why: Release.IcebergSlice, groupId: 80, time: T0 }]);
  book.onFill(orderNo(81), 2, 3, T0 + 1);
  book.onFill(orderNo(81), 2, 1, T0 + 2);
  book.onTime(T0 + 1_000_000);
  assert.deepEqual(events.take(), [], 'partial fills only shrink the slice on the book');
  book.onFill(orderNo(81), 1, 0, T0 + 3);
  assert.deepEqual(events.take(), [{ type: 'release', order: released(S82, T0 + 3), why: Release.IcebergSlice, groupId: 80, time: T0 + 3 }]);
  assert.equal(book.group(orderNo(80))?.liveSliceId, 82);
  book.onFill(orderNo(82), 5, 0, T0 + 4);
  book.onFill(orderNo(83), 5, 0, T0 + 5);
  assert.deepEqual(events.take(), [
    { type: 'release', order: released(S83, T0 + 4), why: Release.IcebergSlice, groupId: 80, time: T0 + 4 },
    { type: 'groupEnded', groupId: 80, owner: BOB.owner, how: GroupEnd.Completed, time: T0 + 5 },
  ]);
});

conditionalTest('a slice leaving the book unfilled ends the iceberg', ({ book, events }) => {
  book.placeIceberg(ICEBERG);
  book.onFill(orderNo(81), 5, 0, T0 + 1);
  events.take();
  book.onOrderGone(orderNo(82), T0 + 2);
  assert.deepEqual(events.take(), [
    { type: 'cancelled', orderId: 83, owner: BOB.owner, reason: ConditionalReason.IcebergSliceUnfilled, time: T0 + 2 },
    { type: 'groupEnded', groupId: 80, owner: BOB.owner, how: GroupEnd.IcebergSliceUnfilled, time: T0 + 2 },
  ]);
});

conditionalTest('cancelling the iceberg cancels the hidden slices; the one on the book is the book\'s', ({ book, events }) => {
  book.placeIceberg(ICEBERG);
  events.take();
  assert.equal(book.cancelGroup(orderNo(80), BOB.owner, T0 + 1), ConditionalCode.Ok);
  assert.deepEqual(events.take().map((e) => e.type === 'cancelled' ? e.orderId : e.type), [82, 83, 'groupEnded']);
  book.onFill(orderNo(81), 5, 0, T0 + 2);
  assert.deepEqual(events.take(), [], 'a fill of the last shown slice reveals nothing more');
});

conditionalTest('fills of other orders do not move the iceberg', ({ book, events }) => {
  book.placeIceberg(ICEBERG);
  events.take();
  book.onFill(orderNo(82), 5, 0, T0 + 1);
  book.onOrderGone(orderNo(83), T0 + 1);
  assert.deepEqual(events.take(), []);
  assert.equal(book.group(orderNo(80))?.next, 1);
  assert.equal(S83.orderId, 83);
});
