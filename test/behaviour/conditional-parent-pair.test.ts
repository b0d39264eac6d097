import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { order, pairFired, position, setMark, submit, submitBatch, trades, type ConditionalOrder } from '../harness/conditional-helpers.ts';

function legs(parentOrderId: string): ConditionalOrder[] {
  return [
    { orderType: 'takeProfit', price: '0.1', quantity: '-0.1', triggerPrice: '100000', ioc: true, reduceOnly: true, parentOrderId },
    { orderType: 'stopLoss', price: '0.1', quantity: '-0.1', triggerPrice: '90000', ioc: true, reduceOnly: true, parentOrderId },
  ];
}

test('a parent-attached TP/SL pair waits unarmed, arms on the parent fill with the filled size, then fires', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob, carol] = await fundedTraders(ex, 3, '100000');
  await setMark(ex, '95000');

  const [parent] = (await submit(alice, { orderType: 'limit', price: '95000', quantity: '0.1' })).json();
  assert.equal(parent.status, 'new');
  const placed = await submitBatch(alice, legs(parent.orderId));
  assert.equal(placed.status, 200, placed.text);
  const [tp, sl] = placed.json().orders;
  assert.equal(tp.parentOrderId, parent.orderId);
  assert.equal(sl.parentOrderId, parent.orderId);
  assert.equal(tp.ocoGroupId, sl.ocoGroupId);

  assert.equal((await submit(carol, { orderType: 'limit', price: '80000', quantity: '0.3' })).status, 200);
  // Unarmed: the parent has not filled, so a mark through the stop does nothing.
  await setMark(ex, '89000');
  assert.equal((await order(alice, sl.orderId)).status, 'untriggered');
  assert.equal((await order(alice, tp.orderId)).status, 'untriggered');
  await setMark(ex, '91000');

  // The parent fills 0.04: the pair arms with 0.04.
  assert.equal((await submit(bob, { orderType: 'limit', price: '95000', quantity: '-0.04' })).json()[0].status, 'filled');
  assert.equal(await position(alice), '0.04');
  assert.equal((await order(alice, parent.orderId)).status, 'partiallyFilled');

  await setMark(ex, '90000');
  const stop = await pairFired(alice, sl.orderId, tp.orderId, '0.04');
  assert.equal(stop.quantity, '-0.04');
  assert.equal(await position(alice), '0');
  assert.equal((await trades(ex)).length, 2);
});

test('a parent-attached pair ends when its parent is cancelled unfilled; an unknown parent is refused', async () => {
  const ex = await startInProcessExchange();
  const [alice] = await fundedTraders(ex, 1, '100000');
  await setMark(ex, '95000');

  const unknown = await submitBatch(alice, legs('0x00000000000000ff'));
  assert.equal(unknown.status, 404);
  assert.equal(unknown.text, 'Parent order not found');

  const [parent] = (await submit(alice, { orderType: 'limit', price: '95000', quantity: '0.1' })).json();
  const [tp, sl] = (await submitBatch(alice, legs(parent.orderId))).json().orders;
  const cancelled = await alice.send('DELETE', `/account/order?orderId=${parent.orderId}`);
  assert.equal(cancelled.status, 200, cancelled.text);
  for (const leg of [tp, sl]) {
    const o = await order(alice, leg.orderId);
    assert.equal(o.status, 'cancelled');
    assert.equal(o.reason, 'parentCancelled');
  }
});
