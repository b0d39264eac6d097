import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { bookSide, caughtUp, order, position, setMark, submit, submitBatch, type ConditionalOrder } from '../harness/conditional-helpers.ts';

function iceberg(quantities: string[]): ConditionalOrder[] {
  return quantities.map((quantity) => ({ orderType: 'iceberg', price: '95000', quantity }));
}

test('an iceberg shows one child at a time; the next enters only once the previous fully filled', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob] = await fundedTraders(ex, 2, '100000');
  await setMark(ex, '95000');

  const placed = await submitBatch(alice, iceberg(['-0.1', '-0.1', '-0.05']));
  assert.equal(placed.status, 200, placed.text);
  const children = placed.json().orders;
  assert.deepEqual(children.map((c: any) => c.status), ['new', 'untriggered', 'untriggered']);
  assert.ok(children.every((c: any) => c.groupId === children[0].groupId && c.orderType === 'iceberg'));
  assert.deepEqual(await bookSide(ex, 'asks'), [['95000', '0.1']]);

  // A partial fill shrinks the displayed child; nothing more is revealed.
  assert.equal((await submit(bob, { orderType: 'limit', price: '95000', quantity: '0.04' })).json()[0].status, 'filled');
  await caughtUp(ex);
  assert.equal((await order(alice, children[0].orderId)).status, 'partiallyFilled');
  assert.equal((await order(alice, children[1].orderId)).status, 'untriggered');
  assert.deepEqual(await bookSide(ex, 'asks'), [['95000', '0.06']]);

  // The first child fills: the second enters the book.
  assert.equal((await submit(bob, { orderType: 'limit', price: '95000', quantity: '0.06' })).json()[0].status, 'filled');
  await caughtUp(ex);
  assert.equal((await order(alice, children[0].orderId)).status, 'filled');
  assert.equal((await order(alice, children[1].orderId)).status, 'new');
  assert.equal((await order(alice, children[2].orderId)).status, 'untriggered');
  assert.deepEqual(await bookSide(ex, 'asks'), [['95000', '0.1']]);

  // One taker sweeping more than the display takes only what is shown.
  const sweep = (await submit(bob, { orderType: 'limit', price: '95000', quantity: '0.15', ioc: true })).json()[0];
  assert.equal(sweep.settled, '0.1');
  await caughtUp(ex);
  assert.equal((await order(alice, children[2].orderId)).status, 'new');
  assert.deepEqual(await bookSide(ex, 'asks'), [['95000', '0.05']]);

  assert.equal((await submit(bob, { orderType: 'limit', price: '95000', quantity: '0.05' })).json()[0].status, 'filled');
  await caughtUp(ex);
  assert.equal((await order(alice, children[2].orderId)).status, 'filled');
  assert.deepEqual(await bookSide(ex, 'asks'), []);
  assert.equal(await position(alice), '-0.25');
});

test('cancelling an iceberg child on the book cancels the hidden children too', async () => {
  const ex = await startInProcessExchange();
  const [alice] = await fundedTraders(ex, 1, '100000');
  await setMark(ex, '95000');
  const children = (await submitBatch(alice, iceberg(['-0.1', '-0.1']))).json().orders;
  const r = await alice.send('DELETE', `/account/order?orderId=${children[0].orderId}`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json().status, 'cancelled');
  const hidden = await order(alice, children[1].orderId);
  assert.equal(hidden.status, 'cancelled');
  assert.equal(hidden.reason, 'cancelled');
  assert.deepEqual(await bookSide(ex, 'asks'), []);

  const bad = await submitBatch(alice, iceberg(['-0.1', '-0.2']));
  assert.equal(bad.status, 400);
  assert.equal(bad.text, 'Each order of an iceberg has the display quantity (the last one may be smaller)');
});
