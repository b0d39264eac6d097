import assert from 'node:assert/strict';
import { ConditionalCode, ConditionalReason } from '../../src/conditional/codes.ts';
import { Release, TriggerKind } from '../../src/conditional/types.ts';
import { conditionalTest } from './books.ts';
import { ALICE, ALICE_LONG_5_PAIR_TP_110_SL_95, MARK_100, T0, released } from './fixtures.ts';
import { orderNo, ownerNo } from '../fixtures/ids.ts';

const PAIR = ALICE_LONG_5_PAIR_TP_110_SL_95;

conditionalTest('the take-profit triggering cancels the stop: exactly one of the pair executes', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  assert.equal(book.placePair(PAIR), ConditionalCode.Ok);
  assert.deepEqual(book.ordersOf(ALICE.owner).map((o) => [o.orderId, o.ocoGroupId, o.triggerPrice]), [[11, 1, 110], [12, 1, 95]]);
  book.onMark(110, T0 + 1);
  assert.deepEqual(events.take(), [
    { type: 'release', order: released(PAIR.takeProfit, T0 + 1), why: Release.Triggered, groupId: 0, time: T0 + 1 },
    { type: 'cancelled', orderId: 12, owner: ALICE.owner, reason: ConditionalReason.OcoTriggered, time: T0 + 1 },
  ]);
  book.onMark(90, T0 + 2);
  assert.deepEqual(events.take(), []);
  assert.equal(book.size, 0);
});

conditionalTest('the stop triggering cancels the take-profit', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.placePair(PAIR);
  book.onMark(95, T0 + 1);
  assert.deepEqual(events.take().map((e) => e.type === 'release' ? ['release', e.order.orderId] : e.type === 'cancelled' ? ['cancelled', e.orderId, e.reason] : e.type), [
    ['release', 12], ['cancelled', 11, ConditionalReason.OcoTriggered],
  ]);
  book.onMark(200, T0 + 2);
  assert.deepEqual(events.take(), []);
});

conditionalTest('cancelling either leg cancels the pair', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.placePair(PAIR);
  assert.equal(book.cancel(orderNo(12), ALICE.owner, T0 + 1), ConditionalCode.Ok);
  assert.deepEqual(events.take(), [
    { type: 'cancelled', orderId: 12, owner: ALICE.owner, reason: ConditionalReason.Cancelled, time: T0 + 1 },
    { type: 'cancelled', orderId: 11, owner: ALICE.owner, reason: ConditionalReason.Cancelled, time: T0 + 1 },
  ]);
  assert.equal(book.size, 0);
});

conditionalTest('a leg that expires takes its sibling with it', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.placePair({ ...PAIR, stopLoss: { ...PAIR.stopLoss, expiresAt: T0 + 50 } });
  book.onTime(T0 + 50);
  assert.deepEqual(events.take().map((e) => e.type === 'cancelled' && [e.orderId, e.reason]), [
    [12, ConditionalReason.ExpiresAtReached], [11, ConditionalReason.OcoExpired],
  ]);
  book.onMark(120, T0 + 51);
  assert.deepEqual(events.take(), []);
});

conditionalTest('a pair must be one take-profit and one stop of one side, the take-profit beyond the stop', ({ book }) => {
  book.onMark(MARK_100, T0);
  const { takeProfit: tp, stopLoss: sl } = PAIR;
  assert.equal(book.placePair({ ...PAIR, takeProfit: { ...tp, kind: TriggerKind.StopLoss } }), ConditionalCode.InvalidPair);
  assert.equal(book.placePair({ ...PAIR, stopLoss: { ...sl, side: 1 } }), ConditionalCode.InvalidPair);
  assert.equal(book.placePair({ ...PAIR, stopLoss: { ...sl, owner: ownerNo(99) } }), ConditionalCode.InvalidPair);
  assert.equal(book.placePair({ ...PAIR, takeProfit: { ...tp, triggerPrice: 101 }, stopLoss: { ...sl, triggerPrice: 99 } }), ConditionalCode.Ok);
  assert.equal(book.placePair({ ...PAIR, ocoGroupId: orderNo(2), takeProfit: { ...tp, orderId: orderNo(13), triggerPrice: 105 }, stopLoss: { ...sl, orderId: orderNo(14), triggerPrice: 105 } }), ConditionalCode.InvalidPair);
  assert.equal(book.placePair({ ...PAIR, ocoGroupId: orderNo(2), takeProfit: { ...tp, orderId: orderNo(13), triggerPrice: 97 }, stopLoss: { ...sl, orderId: orderNo(14), triggerPrice: 103 } }), ConditionalCode.InvalidPair);
  assert.equal(book.placePair({ ...PAIR, ocoGroupId: orderNo(1), takeProfit: { ...tp, orderId: orderNo(13) }, stopLoss: { ...sl, orderId: orderNo(14) } }), ConditionalCode.GroupIdExists);
  assert.equal(book.placePair({ ...PAIR, ocoGroupId: orderNo(3), takeProfit: { ...tp, orderId: orderNo(13) }, stopLoss: { ...sl, orderId: orderNo(13) } }), ConditionalCode.OrderIdExists);
  assert.equal(book.size, 2, 'only the valid pair rests');
});

conditionalTest('a pair with a leg the mark already crossed is refused whole', ({ book }) => {
  book.onMark(94, T0);
  assert.equal(book.placePair(PAIR), ConditionalCode.TriggerAlreadyCrossed);
  assert.equal(book.size, 0);
});
