import assert from 'node:assert/strict';
import { ConditionalCode, ConditionalReason } from '../../src/conditional/codes.ts';
import { Release } from '../../src/conditional/types.ts';
import { conditionalTest } from './books.ts';
import { ALICE, ALICE_PAIR_8_ON_PARENT_50, ALICE_PARENT_BUY_10_AT_100, BOB, MARK_100, T0, released } from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

const PAIR = ALICE_PAIR_8_ON_PARENT_50;

conditionalTest('a pair on an unfilled parent waits: a crossing mark does not fire it', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  assert.equal(book.placePair(PAIR), ConditionalCode.Ok);
  assert.deepEqual(book.ordersOf(ALICE.owner).map((o) => [o.orderId, o.parentOrderId, o.armedQuantity]), [[21, 50, 0], [22, 50, 0]]);
  book.onMark(120, T0 + 1);
  book.onMark(101, T0 + 2);
  assert.deepEqual(events.take(), []);
  assert.equal(book.size, 2);
});

conditionalTest('the parent\'s fills arm the pair in proportion, capped at the pair\'s size', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.placePair(PAIR);
  book.onFill(orderNo(50), 3, 7, T0 + 1);
  assert.deepEqual(events.take(), [
    { type: 'armed', orderId: 21, owner: ALICE.owner, quantity: 3, time: T0 + 1 },
    { type: 'armed', orderId: 22, owner: ALICE.owner, quantity: 3, time: T0 + 1 },
  ]);
  book.onFill(orderNo(50), 6, 1, T0 + 2);
  assert.deepEqual(events.take().map((e) => e.type === 'armed' && e.quantity), [8, 8], '9 filled, capped at 8');
  book.onFill(orderNo(50), 1, 0, T0 + 3);
  assert.deepEqual(events.take(), [], 'already at the cap');
  book.onMark(110, T0 + 4);
  assert.deepEqual(events.take(), [
    { type: 'release', order: released(PAIR.takeProfit, T0 + 4, 8), why: Release.Triggered, groupId: 0, time: T0 + 4 },
    { type: 'cancelled', orderId: 22, owner: ALICE.owner, reason: ConditionalReason.OcoTriggered, time: T0 + 4 },
  ]);
});

conditionalTest('a partly filled pair fires with what the parent filled', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.placePair(PAIR);
  book.onFill(orderNo(50), 2, 8, T0 + 1);
  events.take();
  book.onMark(95, T0 + 2);
  const [release] = events.take();
  assert.equal(release.type === 'release' && release.order.orderId, 22);
  assert.equal(release.type === 'release' && release.order.quantity, 2);
});

conditionalTest('the parent cancelled with nothing filled cancels the pair', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.placePair(PAIR);
  book.onOrderGone(orderNo(50), T0 + 1);
  assert.deepEqual(events.take(), [
    { type: 'cancelled', orderId: 21, owner: ALICE.owner, reason: ConditionalReason.ParentCancelled, time: T0 + 1 },
    { type: 'cancelled', orderId: 22, owner: ALICE.owner, reason: ConditionalReason.ParentCancelled, time: T0 + 1 },
  ]);
  assert.equal(book.size, 0);
});

conditionalTest('the parent cancelled after a partial fill leaves the pair armed with that fill', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.placePair(PAIR);
  book.onFill(orderNo(50), 4, 6, T0 + 1);
  book.onOrderGone(orderNo(50), T0 + 2);
  events.take();
  book.onFill(orderNo(50), 4, 2, T0 + 3);
  assert.deepEqual(events.take(), [], 'fills after the parent left are not its');
  assert.equal(book.order(orderNo(21))?.armedQuantity, 4);
  book.onMark(111, T0 + 4);
  assert.deepEqual(events.released(), [21]);
});

conditionalTest('a pair arming with a leg the mark already crossed fires that leg at once', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.placePair(PAIR);
  book.onMark(94, T0 + 1);
  book.onFill(orderNo(50), 5, 5, T0 + 2);
  assert.deepEqual(events.take().map((e) => [e.type, 'orderId' in e ? e.orderId : e.type === 'release' ? e.order.orderId : 0]), [
    ['armed', 21], ['armed', 22], ['release', 22], ['cancelled', 21],
  ]);
  book.onFill(orderNo(50), 5, 0, T0 + 3);
  assert.deepEqual(events.take(), []);
  assert.equal(book.size, 0);
});

conditionalTest('a parent already partly filled arms the pair at placement', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.placePair({ ...PAIR, parent: { ...ALICE_PARENT_BUY_10_AT_100, filled: 6 } });
  assert.deepEqual(events.take().map((e) => e.type === 'armed' && e.quantity), [6, 6]);
  book.onMark(96, T0 + 1);
  book.onMark(95, T0 + 2);
  assert.deepEqual(events.released(), [22]);
});

conditionalTest('the parent must rest on the book, be the owner\'s, and open what the pair closes', ({ book }) => {
  book.onMark(MARK_100, T0);
  assert.equal(book.placePair({ ...PAIR, parent: undefined }), ConditionalCode.ParentNotFound);
  assert.equal(book.placePair({ ...PAIR, parent: { ...ALICE_PARENT_BUY_10_AT_100, owner: BOB.owner } }), ConditionalCode.NotOwner);
  assert.equal(book.placePair({ ...PAIR, parent: { ...ALICE_PARENT_BUY_10_AT_100, side: -1 } }), ConditionalCode.InvalidPair);
  assert.equal(book.size, 0);
});
