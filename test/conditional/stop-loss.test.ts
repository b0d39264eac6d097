import assert from 'node:assert/strict';
import { ConditionalCode, ConditionalReason } from '../../src/conditional/codes.ts';
import { Release } from '../../src/conditional/types.ts';
import { conditionalTest } from './books.ts';
import {
  ALICE, ALICE_SELL_STOP_5_TRIGGER_95, BOB, BOB_BUY_STOP_3_TRIGGER_105, MARK_100, T0, released,
} from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

conditionalTest('a sell stop rests untriggered while the mark stays above its trigger', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  assert.equal(book.place(ALICE_SELL_STOP_5_TRIGGER_95), ConditionalCode.Ok);
  for (const mark of [99, 97, 96, 120, 96]) book.onMark(mark, T0 + 1);
  assert.deepEqual(events.take(), []);
  assert.equal(book.order(orderNo(1))?.triggerPrice, 95);
  assert.equal(book.size, 1);
});

conditionalTest('a sell stop fires once when the mark falls to its trigger, as its own IOC reduce-only order', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.place(ALICE_SELL_STOP_5_TRIGGER_95);
  book.onMark(95, T0 + 7);
  assert.deepEqual(events.take(), [
    { type: 'release', order: released(ALICE_SELL_STOP_5_TRIGGER_95, T0 + 7), why: Release.Triggered, groupId: 0, time: T0 + 7 },
  ]);
  for (const mark of [94, 90, 95, 80]) book.onMark(mark, T0 + 8);
  assert.deepEqual(events.take(), [], 'fires exactly once');
  assert.equal(book.order(orderNo(1)), undefined);
  assert.equal(book.size, 0);
});

conditionalTest('a gap through the trigger fires the stop too', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.place(ALICE_SELL_STOP_5_TRIGGER_95);
  book.onMark(80, T0 + 1);
  assert.deepEqual(events.released(), [1]);
});

conditionalTest('a buy stop fires when the mark rises to its trigger, not before', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.place(BOB_BUY_STOP_3_TRIGGER_105);
  book.onMark(104, T0 + 1);
  assert.deepEqual(events.take(), []);
  book.onMark(105, T0 + 2);
  assert.deepEqual(events.released(), [3]);
});

conditionalTest('a stop the mark already crossed is refused, never fired at placement', ({ book, events }) => {
  book.onMark(94, T0);
  assert.equal(book.place(ALICE_SELL_STOP_5_TRIGGER_95), ConditionalCode.TriggerAlreadyCrossed);
  assert.equal(book.place({ ...ALICE_SELL_STOP_5_TRIGGER_95, triggerPrice: 94 }), ConditionalCode.TriggerAlreadyCrossed);
  assert.deepEqual(events.take(), []);
  assert.equal(book.size, 0);
});

conditionalTest('a stop placed before any mark waits for the first one', ({ book, events }) => {
  assert.equal(book.place(ALICE_SELL_STOP_5_TRIGGER_95), ConditionalCode.Ok);
  book.onMark(90, T0 + 1);
  assert.deepEqual(events.released(), [1]);
});

conditionalTest('bad fields are refused with their codes', ({ book }) => {
  book.onMark(MARK_100, T0);
  const stop = ALICE_SELL_STOP_5_TRIGGER_95;
  assert.equal(book.place({ ...stop, quantity: 0 }), ConditionalCode.InvalidQuantity);
  assert.equal(book.place({ ...stop, price: 1.5 }), ConditionalCode.InvalidPrice);
  assert.equal(book.place({ ...stop, triggerPrice: 0 }), ConditionalCode.InvalidTrigger);
  assert.equal(book.place({ ...stop, trailingPercent: 1n }), ConditionalCode.InvalidTrailingPercent);
  assert.equal(book.place({ ...stop, expiresAt: T0 }), ConditionalCode.AlreadyExpired);
  assert.equal(book.place({ ...stop, kind: 9 as never }), ConditionalCode.InvalidKind);
  assert.equal(book.place(stop), ConditionalCode.Ok);
  assert.equal(book.place(stop), ConditionalCode.OrderIdExists);
  assert.equal(book.onMark(0, T0), ConditionalCode.InvalidMarkPrice);
});

conditionalTest('an untriggered stop expires at its expiresAt and can no longer fire', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.place({ ...ALICE_SELL_STOP_5_TRIGGER_95, expiresAt: T0 + 100 });
  book.onTime(T0 + 99);
  assert.deepEqual(events.take(), []);
  book.onMark(90, T0 + 100);
  assert.deepEqual(events.take(), [
    { type: 'cancelled', orderId: 1, owner: ALICE.owner, reason: ConditionalReason.ExpiresAtReached, time: T0 + 100 },
  ]);
});

conditionalTest('cancel removes the stop; another owner is refused', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.place(ALICE_SELL_STOP_5_TRIGGER_95);
  assert.equal(book.cancel(orderNo(1), BOB.owner, T0 + 1), ConditionalCode.NotOwner);
  assert.equal(book.cancel(orderNo(99), ALICE.owner, T0 + 1), ConditionalCode.OrderNotFound);
  assert.equal(book.cancel(orderNo(1), ALICE.owner, T0 + 1), ConditionalCode.Ok);
  book.onMark(90, T0 + 2);
  assert.deepEqual(events.take(), [
    { type: 'cancelled', orderId: 1, owner: ALICE.owner, reason: ConditionalReason.Cancelled, time: T0 + 1 },
  ]);
});

conditionalTest('orders fired by one mark are released in ascending orderId', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.place({ ...ALICE_SELL_STOP_5_TRIGGER_95, orderId: orderNo(9), triggerPrice: 99 });
  book.place({ ...ALICE_SELL_STOP_5_TRIGGER_95, orderId: orderNo(4), triggerPrice: 96 });
  book.place({ ...ALICE_SELL_STOP_5_TRIGGER_95, orderId: orderNo(7), triggerPrice: 98 });
  book.place({ ...ALICE_SELL_STOP_5_TRIGGER_95, orderId: orderNo(5), triggerPrice: 90 });
  book.onMark(96, T0 + 1);
  assert.deepEqual(events.released(), [4, 7, 9]);
});

conditionalTest('cancelAll ends every untriggered order of the owner with the given reason', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.place(ALICE_SELL_STOP_5_TRIGGER_95);
  book.place({ ...ALICE_SELL_STOP_5_TRIGGER_95, orderId: orderNo(8) });
  book.place(BOB_BUY_STOP_3_TRIGGER_105);
  assert.equal(book.cancelAll(ALICE.owner, T0 + 1, ConditionalReason.ExchangeCancelled), 2);
  assert.deepEqual(events.take().map((e) => e.type === 'cancelled' && [e.orderId, e.reason]), [[1, 5], [8, 5]]);
  assert.deepEqual(book.ordersOf(BOB.owner).map((o) => o.orderId), [3]);
});
