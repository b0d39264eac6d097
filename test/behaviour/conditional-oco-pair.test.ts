import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { listed, openPosition, order, pairFired, position, setMark, submit, submitBatch, trades, type ConditionalOrder } from '../harness/conditional-helpers.ts';

/** Closing a 0.1 long: market-like legs (a tiny price, IOC, reduce-only), as in the spec's TP/SL sample. */
const SELL_TP_100000: ConditionalOrder = { orderType: 'TakeProfit', price: '0.1', quantity: '-0.1', triggerPrice: '100000', ioc: true, reduceOnly: true };
const SELL_SL_90000: ConditionalOrder = { orderType: 'StopLoss', price: '0.1', quantity: '-0.1', triggerPrice: '90000', ioc: true, reduceOnly: true };

test('a position-attached TP/SL pair: the first leg the mark reaches executes, the other is cancelled', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob, carol] = await fundedTraders(ex, 3, '100000');
  await setMark(ex, '95000');
  await openPosition(alice, bob, '0.1', '95000');

  const placed = await submitBatch(alice, [SELL_SL_90000, SELL_TP_100000]);
  assert.equal(placed.status, 200, placed.text);
  const [sl, tp] = placed.json().orders;
  assert.deepEqual([sl.orderType, sl.status, tp.orderType, tp.status], ['stopLoss', 'untriggered', 'takeProfit', 'untriggered']);
  assert.notEqual(tp.ocoGroupId, '');
  assert.equal(sl.ocoGroupId, tp.ocoGroupId);
  assert.equal(tp.parentOrderId, null);
  assert.equal((await listed(alice, 'active')).length, 2);

  assert.equal((await submit(carol, { orderType: 'limit', price: '99000', quantity: '0.2' })).status, 200);
  await setMark(ex, '99999.9');
  assert.equal((await order(alice, tp.orderId)).status, 'untriggered');

  await setMark(ex, '100000');
  await pairFired(alice, tp.orderId, sl.orderId, '0.1');
  assert.equal(await position(alice), '0');

  // The stop is gone: a crash of the mark sells nothing more.
  await setMark(ex, '85000');
  assert.equal((await trades(ex)).length, 2);
  assert.equal(await position(carol), '0.1');
  assert.deepEqual(await listed(alice, 'active'), []);
});

test('a position-attached pair ends when the position closes by other means', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob, carol] = await fundedTraders(ex, 3, '100000');
  await setMark(ex, '95000');
  await openPosition(alice, bob, '0.1', '95000');
  const [tp, sl] = (await submitBatch(alice, [SELL_TP_100000, SELL_SL_90000])).json().orders;

  await openPosition(carol, alice, '0.1', '95000');
  assert.equal(await position(alice), '0');
  for (const leg of [tp, sl]) {
    const o = await order(alice, leg.orderId);
    assert.equal(o.status, 'cancelled');
    assert.equal(o.reason, 'positionClosed');
  }
});

test('a TP/SL batch is refused whole when it breaks the rules', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob, dave] = await fundedTraders(ex, 3, '100000');
  await setMark(ex, '95000');
  await openPosition(alice, bob, '0.1', '95000');

  const twoTps = await submitBatch(alice, [SELL_TP_100000, { ...SELL_TP_100000, triggerPrice: '101000' }]);
  assert.equal(twoTps.status, 400);
  assert.equal(twoTps.text, 'A TP/SL pair is exactly two orders: one takeProfit and one stopLoss');

  const three = await submitBatch(alice, [SELL_TP_100000, SELL_SL_90000, SELL_SL_90000]);
  assert.equal(three.status, 400);
  assert.equal(three.text, 'A TP/SL pair is exactly two orders: one takeProfit and one stopLoss');

  const inverted = await submitBatch(alice, [{ ...SELL_TP_100000, triggerPrice: '89000' }, SELL_SL_90000]);
  assert.equal(inverted.status, 400);
  assert.match(inverted.text, /^A TP\/SL pair is one takeProfit and one stopLoss/);

  const noPosition = await submitBatch(dave, [SELL_TP_100000, SELL_SL_90000]);
  assert.equal(noPosition.status, 409);
  assert.equal(noPosition.text, 'No position for this TP/SL pair to close');

  const single = await submit(alice, { ...SELL_TP_100000, parentOrderId: '0x0000000000000001' });
  assert.equal(single.status, 400);
  assert.equal(single.text, 'parentOrderId attaches a TP/SL pair: submit its takeProfit and stopLoss together on POST /account/orders');

  // Refused pairs left nothing behind; their nonces are spent but no order is active.
  assert.deepEqual(await listed(alice, 'active'), []);
});
