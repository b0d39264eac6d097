import assert from 'node:assert/strict';
import { ConditionalCode } from '../../src/conditional/codes.ts';
import { RATE_ONE } from '../../src/config/market.ts';
import { conditionalTest } from './books.ts';
import { ALICE, ALICE_SELL_TRAILING_5_PERCENT, BOB_BUY_TRAILING_5_PERCENT, FIVE_PERCENT, MARK_100, T0 } from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

conditionalTest('a sell trailing stop follows the highest mark and fires on a 5 % retrace from it', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  assert.equal(book.place(ALICE_SELL_TRAILING_5_PERCENT), ConditionalCode.Ok);
  assert.deepEqual([book.order(orderNo(5))?.anchor, book.order(orderNo(5))?.triggerPrice], [100, 95]);
  book.onMark(96, T0 + 1);
  book.onMark(120, T0 + 2);
  assert.deepEqual([book.order(orderNo(5))?.anchor, book.order(orderNo(5))?.triggerPrice], [120, 114]);
  book.onMark(115, T0 + 3);
  book.onMark(118, T0 + 4);
  assert.deepEqual(events.take(), [], 'a fall of less than 5 % from the high does not fire');
  assert.equal(book.order(orderNo(5))?.anchor, 120, 'a lower mark does not move the anchor down');
  book.onMark(114, T0 + 5);
  assert.deepEqual(events.released(), [5]);
  book.onMark(100, T0 + 6);
  assert.deepEqual(events.take(), []);
});

conditionalTest('a buy trailing stop follows the lowest mark and fires on a 5 % bounce from it', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.place(BOB_BUY_TRAILING_5_PERCENT);
  assert.equal(book.order(orderNo(6))?.triggerPrice, 105);
  book.onMark(80, T0 + 1);
  assert.deepEqual([book.order(orderNo(6))?.anchor, book.order(orderNo(6))?.triggerPrice], [80, 84]);
  book.onMark(83, T0 + 2);
  assert.deepEqual(events.take(), []);
  book.onMark(84, T0 + 3);
  assert.deepEqual(events.released(), [6]);
});

conditionalTest('triggers round away from the anchor, so a stop never fires before the full retrace', ({ book, events }) => {
  book.onMark(101, T0);
  book.place(ALICE_SELL_TRAILING_5_PERCENT);
  assert.equal(book.order(orderNo(5))?.triggerPrice, 95, '101 × 0.95 = 95.95 → 95');
  book.onMark(96, T0 + 1);
  assert.deepEqual(events.take(), []);
  book.onMark(95, T0 + 2);
  assert.deepEqual(events.released(), [5]);
  book.onMark(99, T0 + 3);
  book.place(BOB_BUY_TRAILING_5_PERCENT);
  assert.equal(book.order(orderNo(6))?.triggerPrice, 104, '99 × 1.05 = 103.95 → 104');
  book.onMark(103, T0 + 4);
  assert.deepEqual(events.take(), []);
  book.onMark(104, T0 + 5);
  assert.deepEqual(events.released(), [6]);
});

conditionalTest('stops placed at different times keep their own anchors', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.place({ ...ALICE_SELL_TRAILING_5_PERCENT, orderId: orderNo(31) });
  book.onMark(120, T0 + 1);
  book.onMark(115, T0 + 2);
  book.place({ ...ALICE_SELL_TRAILING_5_PERCENT, orderId: orderNo(32) });
  book.place({ ...ALICE_SELL_TRAILING_5_PERCENT, orderId: orderNo(33), trailingPercent: 1_000_000n });
  assert.deepEqual(book.ordersOf(ALICE.owner).map((o) => [o.orderId, o.anchor, o.triggerPrice]), [[31, 120, 114], [32, 115, 109], [33, 115, 113]]);
  book.onMark(117, T0 + 3);
  assert.deepEqual(book.ordersOf(ALICE.owner).map((o) => [o.orderId, o.anchor, o.triggerPrice]), [[31, 120, 114], [32, 117, 111], [33, 117, 115]]);
  book.onMark(115, T0 + 4);
  assert.deepEqual(events.released(), [33], '1 % below the 117 high');
  book.onMark(114, T0 + 5);
  assert.deepEqual(events.released(), [31], '5 % below the 120 high');
  book.onMark(111, T0 + 6);
  assert.deepEqual(events.released(), [32], '5 % below the 117 high');
});

conditionalTest('a trailing stop needs a mark, a percent in (0, 1) and no trigger price', ({ book }) => {
  assert.equal(book.place(ALICE_SELL_TRAILING_5_PERCENT), ConditionalCode.MarkPriceUnknown);
  book.onMark(MARK_100, T0);
  assert.equal(book.place({ ...ALICE_SELL_TRAILING_5_PERCENT, trailingPercent: 0n }), ConditionalCode.InvalidTrailingPercent);
  assert.equal(book.place({ ...ALICE_SELL_TRAILING_5_PERCENT, trailingPercent: RATE_ONE }), ConditionalCode.InvalidTrailingPercent);
  assert.equal(book.place({ ...ALICE_SELL_TRAILING_5_PERCENT, triggerPrice: 90 }), ConditionalCode.InvalidTrigger);
  assert.equal(book.place({ ...ALICE_SELL_TRAILING_5_PERCENT, trailingPercent: FIVE_PERCENT }), ConditionalCode.Ok);
});

conditionalTest('a cancelled trailing stop leaves the others anchored', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.place({ ...ALICE_SELL_TRAILING_5_PERCENT, orderId: orderNo(41) });
  book.place({ ...ALICE_SELL_TRAILING_5_PERCENT, orderId: orderNo(42), trailingPercent: 2_000_000n });
  book.onMark(150, T0 + 1);
  assert.equal(book.cancel(orderNo(42), ALICE.owner, T0 + 2), ConditionalCode.Ok);
  events.take();
  book.onMark(142, T0 + 3);
  assert.deepEqual(events.released(), [41]);
});
