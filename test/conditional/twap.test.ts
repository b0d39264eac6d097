import assert from 'node:assert/strict';
import { ConditionalCode, ConditionalReason, GroupEnd } from '../../src/conditional/codes.ts';
import { Release } from '../../src/conditional/types.ts';
import { conditionalTest } from './books.ts';
import { ALICE, ALICE_TWAP_4_SLICES_EVERY_60S, BOB, T0, released, slice } from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

const TWAP = ALICE_TWAP_4_SLICES_EVERY_60S;
const [S71, S72, S73, S74] = TWAP.slices;

conditionalTest('a TWAP releases slice i at start + i × period, then ends', ({ book, events }) => {
  assert.equal(book.placeTwap(TWAP), ConditionalCode.Ok);
  assert.deepEqual(events.take(), [{ type: 'release', order: released(S71, T0), why: Release.TwapSlice, groupId: 70, time: T0 }]);
  assert.deepEqual(book.group(orderNo(70)), { groupId: 70, owner: ALICE.owner, kind: 'twap', period: 60_000, next: 1, slices: 4, dueAt: T0 + 60_000, liveSliceId: 0 });
  book.onTime(T0 + 59_999);
  assert.deepEqual(events.take(), []);
  book.onTime(T0 + 60_000);
  assert.deepEqual(events.take(), [{ type: 'release', order: released(S72, T0 + 60_000), why: Release.TwapSlice, groupId: 70, time: T0 + 60_000 }]);
  book.onTime(T0 + 120_000);
  book.onTime(T0 + 180_000);
  assert.deepEqual(events.take(), [
    { type: 'release', order: released(S73, T0 + 120_000), why: Release.TwapSlice, groupId: 70, time: T0 + 120_000 },
    { type: 'release', order: released(S74, T0 + 180_000), why: Release.TwapSlice, groupId: 70, time: T0 + 180_000 },
    { type: 'groupEnded', groupId: 70, owner: ALICE.owner, how: GroupEnd.Completed, time: T0 + 180_000 },
  ]);
  assert.equal(book.group(orderNo(70)), undefined);
});

conditionalTest('a late timer releases every slice due, in order, at its own time', ({ book, events }) => {
  book.placeTwap(TWAP);
  events.take();
  book.onMark(100, T0 + 130_000);
  assert.deepEqual(events.take().map((e) => e.type === 'release' ? [e.order.orderId, e.time] : e.type), [[72, T0 + 130_000], [73, T0 + 130_000]]);
  assert.equal(book.group(orderNo(70))?.dueAt, T0 + 180_000, 'the schedule keeps its grid');
});

conditionalTest('cancelling the TWAP cancels the slices that have not run', ({ book, events }) => {
  book.placeTwap(TWAP);
  book.onTime(T0 + 60_000);
  events.take();
  assert.equal(book.cancelGroup(orderNo(70), BOB.owner, T0 + 61_000), ConditionalCode.NotOwner);
  assert.equal(book.cancelGroup(orderNo(70), ALICE.owner, T0 + 61_000), ConditionalCode.Ok);
  assert.deepEqual(events.take(), [
    { type: 'cancelled', orderId: 73, owner: ALICE.owner, reason: ConditionalReason.Cancelled, time: T0 + 61_000 },
    { type: 'cancelled', orderId: 74, owner: ALICE.owner, reason: ConditionalReason.Cancelled, time: T0 + 61_000 },
    { type: 'groupEnded', groupId: 70, owner: ALICE.owner, how: GroupEnd.Cancelled, time: T0 + 61_000 },
  ]);
  book.onTime(T0 + 1_000_000);
  assert.deepEqual(events.take(), []);
  assert.equal(book.cancelGroup(orderNo(70), ALICE.owner, T0 + 1_000_000), ConditionalCode.OrderNotFound);
});

conditionalTest('cancelling a pending slice cancels the rest of its TWAP', ({ book, events }) => {
  book.placeTwap(TWAP);
  events.take();
  assert.equal(book.cancel(orderNo(71), ALICE.owner, T0 + 1), ConditionalCode.OrderNotFound, 'a released slice is the order book\'s');
  assert.equal(book.cancel(orderNo(73), ALICE.owner, T0 + 1), ConditionalCode.Ok);
  assert.deepEqual(events.take().map((e) => e.type === 'cancelled' ? e.orderId : e.type), [72, 73, 74, 'groupEnded']);
});

conditionalTest('a TWAP with bad slices or period is refused', ({ book, events }) => {
  assert.equal(book.placeTwap({ ...TWAP, period: 0 }), ConditionalCode.InvalidPeriod);
  assert.equal(book.placeTwap({ ...TWAP, slices: [] }), ConditionalCode.InvalidSlices);
  assert.equal(book.placeTwap({ ...TWAP, slices: [S71, slice(BOB, 75, 1, 2, 101)] }), ConditionalCode.InvalidSlices);
  assert.equal(book.placeTwap({ ...TWAP, slices: [S71, { ...S72, side: -1 }] }), ConditionalCode.InvalidSlices);
  assert.equal(book.placeTwap({ ...TWAP, slices: [S71, S71] }), ConditionalCode.OrderIdExists);
  assert.equal(book.placeTwap({ ...TWAP, slices: [S71, { ...S72, quantity: 0 }] }), ConditionalCode.InvalidQuantity);
  assert.deepEqual(events.take(), []);
  assert.equal(book.placeTwap(TWAP), ConditionalCode.Ok);
  assert.equal(book.placeTwap({ ...TWAP, slices: [slice(ALICE, 90, 1, 1, 101)] }), ConditionalCode.GroupIdExists);
  assert.equal(book.placeTwap({ ...TWAP, groupId: orderNo(71), slices: [S74] }), ConditionalCode.OrderIdExists);
});

conditionalTest('a one-slice TWAP releases and ends at once', ({ book, events }) => {
  book.placeTwap({ ...TWAP, slices: [S71] });
  assert.deepEqual(events.take().map((e) => e.type), ['release', 'groupEnded']);
  assert.deepEqual(book.groupsOf(ALICE.owner), []);
});

conditionalTest('cancelAll ends the owner\'s TWAPs with the given reason', ({ book, events }) => {
  book.placeTwap(TWAP);
  events.take();
  assert.equal(book.cancelAll(BOB.owner, T0 + 1, ConditionalReason.ExchangeCancelled), 0);
  assert.equal(book.cancelAll(ALICE.owner, T0 + 1, ConditionalReason.ExchangeCancelled), 3);
  assert.deepEqual(events.take().map((e) => e.type === 'cancelled' ? [e.orderId, e.reason] : e.type === 'groupEnded' ? ['ended', e.how] : e.type), [
    [72, ConditionalReason.ExchangeCancelled], [73, ConditionalReason.ExchangeCancelled], [74, ConditionalReason.ExchangeCancelled], ['ended', GroupEnd.ExchangeCancelled],
  ]);
});
