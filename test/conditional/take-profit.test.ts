import assert from 'node:assert/strict';
import { ConditionalCode } from '../../src/conditional/codes.ts';
import { Release } from '../../src/conditional/types.ts';
import { conditionalTest } from './books.ts';
import { ALICE_SELL_TP_5_TRIGGER_110_AT_109, BOB_BUY_TP_3_TRIGGER_90, MARK_100, T0, released } from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';

conditionalTest('a sell take-profit fires when the mark rises to its trigger, as a limit at its price', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  assert.equal(book.place(ALICE_SELL_TP_5_TRIGGER_110_AT_109), ConditionalCode.Ok);
  book.onMark(109, T0 + 1);
  book.onMark(80, T0 + 2);
  assert.deepEqual(events.take(), [], 'a fall never fires a sell take-profit');
  book.onMark(111, T0 + 3);
  const order = released(ALICE_SELL_TP_5_TRIGGER_110_AT_109, T0 + 3);
  assert.equal(order.price, 109);
  assert.deepEqual(events.take(), [{ type: 'release', order, why: Release.Triggered, groupId: 0, time: T0 + 3 }]);
  book.onMark(120, T0 + 4);
  assert.deepEqual(events.take(), []);
});

conditionalTest('a buy take-profit fires when the mark falls to its trigger', ({ book, events }) => {
  book.onMark(MARK_100, T0);
  book.place(BOB_BUY_TP_3_TRIGGER_90);
  book.onMark(91, T0 + 1);
  assert.deepEqual(events.take(), []);
  book.onMark(90, T0 + 2);
  assert.deepEqual(events.released(), [4]);
});

conditionalTest('a take-profit already in the money is refused', ({ book }) => {
  book.onMark(110, T0);
  assert.equal(book.place(ALICE_SELL_TP_5_TRIGGER_110_AT_109), ConditionalCode.TriggerAlreadyCrossed);
  book.onMark(90, T0);
  assert.equal(book.place(BOB_BUY_TP_3_TRIGGER_90), ConditionalCode.TriggerAlreadyCrossed);
});

conditionalTest('the view shows the order untriggered with its trigger', ({ book }) => {
  book.onMark(MARK_100, T0);
  book.place(ALICE_SELL_TP_5_TRIGGER_110_AT_109);
  assert.deepEqual(book.order(orderNo(2)), {
    orderId: 2, owner: 11, account: 1, side: -1, kind: 1, price: 109, quantity: 5, flags: 4, expiresAt: 0, clientId: null,
    triggerPrice: 110, trailingPercent: 0n, anchor: 0, ocoGroupId: 0, parentOrderId: 0, armedQuantity: 5, createdAt: T0,
  });
});
