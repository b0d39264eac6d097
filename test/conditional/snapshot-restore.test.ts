import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConditionalBook } from '../../src/conditional/conditional-book.ts';
import { INDEXES, MARKET, conditionalTest } from './books.ts';
import {
  ALICE, ALICE_LONG_5_PAIR_TP_110_SL_95, ALICE_PAIR_8_ON_PARENT_50, ALICE_SELL_STOP_5_TRIGGER_95, ALICE_SELL_TP_5_TRIGGER_110_AT_109,
  ALICE_SELL_TRAILING_5_PERCENT, ALICE_TWAP_4_SLICES_EVERY_60S, BOB_BUY_STOP_3_TRIGGER_105, BOB_BUY_TRAILING_5_PERCENT,
  BOB_ICEBERG_3_SLICES_OF_5, MARK_100, T0,
} from './fixtures.ts';
import { RecordingListener } from './recording-listener.ts';
import { orderNo } from '../fixtures/ids.ts';

/** A book with one of everything, mid-way: anchors moved, a pair half armed, a TWAP and an iceberg under way. */
function midway(book: ConditionalBook): void {
  book.onMark(MARK_100, T0);
  book.place({ ...ALICE_SELL_STOP_5_TRIGGER_95, expiresAt: T0 + 500_000 });
  book.place(ALICE_SELL_TP_5_TRIGGER_110_AT_109);
  book.place(BOB_BUY_STOP_3_TRIGGER_105);
  book.place(ALICE_SELL_TRAILING_5_PERCENT);
  book.place(BOB_BUY_TRAILING_5_PERCENT);
  book.placePair(ALICE_LONG_5_PAIR_TP_110_SL_95);
  book.placePair(ALICE_PAIR_8_ON_PARENT_50);
  book.placeTwap(ALICE_TWAP_4_SLICES_EVERY_60S);
  book.placeIceberg(BOB_ICEBERG_3_SLICES_OF_5);
  book.onMark(104, T0 + 10);
  book.onMark(99, T0 + 20);
  book.place({ ...ALICE_SELL_TRAILING_5_PERCENT, orderId: orderNo(7), trailingPercent: 3_000_000n });
  book.onFill(orderNo(50), 3, 7, T0 + 30);
  book.onFill(orderNo(81), 5, 0, T0 + 40);
  book.onTime(T0 + 60_000);
}

/** What happens next: every kind of order gets its chance to fire, arm, expire or move on. */
function future(book: ConditionalBook): void {
  book.onMark(103, T0 + 60_001);
  book.onFill(orderNo(50), 7, 0, T0 + 60_002);
  book.onMark(109, T0 + 60_003);
  book.onMark(112, T0 + 60_004);
  book.onTime(T0 + 200_000);
  book.onFill(orderNo(82), 5, 0, T0 + 200_001);
  book.onMark(96, T0 + 200_002);
  book.onMark(93, T0 + 600_000);
  book.onPosition(ALICE.owner, 0, T0 + 600_001);
}

conditionalTest('a snapshot is plain data that survives JSON', ({ book }) => {
  midway(book);
  const snapshot = book.snapshot();
  assert.deepEqual(JSON.parse(JSON.stringify(snapshot)), snapshot);
  assert.deepEqual(snapshot.triggers.map((t) => t.orderId), [1, 2, 3, 5, 6, 7, 11, 12, 21, 22]);
  assert.deepEqual(snapshot.triggers.find((t) => t.orderId === 5)?.anchor, 104);
  assert.deepEqual(snapshot.triggers.find((t) => t.orderId === 6)?.anchor, 99);
});

for (const index of INDEXES) {
  test(`a book restored mid-way has the same hash and the same future [${index}]`, () => {
    const events = new RecordingListener();
    const book = new ConditionalBook(MARKET, events, { index });
    midway(book);
    const restoredEvents = new RecordingListener();
    const restored = ConditionalBook.restore(JSON.parse(JSON.stringify(book.snapshot())), restoredEvents, { index });
    assert.equal(restored.stateHash(), book.stateHash());
    events.take();
    future(book);
    future(restored);
    const happened = events.take();
    assert.ok(happened.filter((e) => e.type === 'release').length >= 6, 'the future fires, releases and arms');
    assert.deepEqual(restoredEvents.take(), happened);
    assert.equal(restored.stateHash(), book.stateHash());
    restored.validateInternalState();
  });
}

test('the fast and naive indexes restore each other\'s snapshots', () => {
  const fast = new ConditionalBook(MARKET, new RecordingListener(), { index: 'fast' });
  midway(fast);
  const naive = ConditionalBook.restore(fast.snapshot(), new RecordingListener(), { index: 'naive' });
  assert.equal(naive.stateHash(), fast.stateHash());
  const back = ConditionalBook.restore(naive.snapshot(), new RecordingListener(), { index: 'fast' });
  assert.equal(back.stateHash(), fast.stateHash());
});

test('the hash changes when the state does, and a restored book does not fire again', () => {
  const events = new RecordingListener();
  const book = new ConditionalBook(MARKET, events);
  const empty = book.stateHash();
  book.onMark(MARK_100, T0);
  const marked = book.stateHash();
  assert.notEqual(marked, empty);
  book.place(ALICE_SELL_STOP_5_TRIGGER_95);
  assert.notEqual(book.stateHash(), marked);
  book.onMark(95, T0 + 1);
  assert.deepEqual(events.released(), [1]);
  const restoredEvents = new RecordingListener();
  const restored = ConditionalBook.restore(book.snapshot(), restoredEvents);
  restored.onMark(90, T0 + 2);
  assert.deepEqual(restoredEvents.take(), [], 'a fired order is gone from the snapshot');
});

test('restoring a snapshot that breaks an invariant throws, naming it', () => {
  const book = new ConditionalBook(MARKET, new RecordingListener());
  book.onMark(MARK_100, T0);
  book.place(ALICE_SELL_STOP_5_TRIGGER_95);
  const snapshot = book.snapshot();
  snapshot.triggers[0].triggerPrice = 101;
  assert.throws(() => ConditionalBook.restore(snapshot, new RecordingListener()), /crossed by the last mark/);
});
