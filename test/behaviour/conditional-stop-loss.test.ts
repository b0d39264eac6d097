import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { listed, openPosition, order, position, setMark, submit, trades } from '../harness/conditional-helpers.ts';

test('a sell stopLoss rests untriggered, fires once when the mark reaches its trigger, and closes the long', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob, carol] = await fundedTraders(ex, 3, '100000');
  await setMark(ex, '95000');
  await openPosition(alice, bob, '0.1', '95000');

  const placed = await submit(alice, { orderType: 'stopLoss', price: '0.1', quantity: '-0.1', triggerPrice: '90000', ioc: true, reduceOnly: true, clientId: 'alice-stop' });
  assert.equal(placed.status, 200, placed.text);
  const [stop] = placed.json();
  assert.equal(stop.status, 'untriggered');
  assert.equal(stop.orderType, 'stopLoss');
  assert.equal(stop.triggerPrice, '90000');
  assert.equal(stop.quantity, '-0.1');
  assert.equal(stop.clientId, 'alice-stop');
  assert.deepEqual(
    (await listed(alice, 'active')).map((o) => [o.orderId, o.status]),
    [[stop.orderId, 'untriggered']],
  );
  assert.deepEqual(await listed(alice, 'open'), []);
  // Untriggered, it is not on the book.
  assert.deepEqual((await ex.request('GET', '/book/BTC-USD-PERP?depth=5')).json().asks, []);

  // Carol's bid is what the stop will sell into.
  assert.equal((await submit(carol, { orderType: 'limit', price: '89000', quantity: '0.3' })).status, 200);

  await setMark(ex, '90000.1');
  assert.equal((await order(alice, stop.orderId)).status, 'untriggered');
  assert.equal(await position(alice), '0.1');

  await setMark(ex, '90000');
  const fired = await order(alice, stop.orderId);
  assert.equal(fired.status, 'filled');
  assert.equal(fired.settled, '0.1');
  assert.equal(fired.orderType, 'stopLoss');
  assert.equal(await position(alice), '0');
  assert.equal(await position(carol), '0.1');

  // Further crossings fire nothing: it fired once.
  await setMark(ex, '85000');
  await setMark(ex, '95000');
  await setMark(ex, '85000');
  assert.equal(await position(carol), '0.1');
  assert.equal((await trades(ex)).length, 2);
  assert.deepEqual(await listed(alice, 'active'), []);
});

test('a stop whose trigger the mark already crossed is refused; a cancelled stop never fires', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob, carol] = await fundedTraders(ex, 3, '100000');
  await setMark(ex, '95000');
  await openPosition(alice, bob, '0.1', '95000');

  const crossed = await submit(alice, { orderType: 'stopLoss', price: '0.1', quantity: '-0.1', triggerPrice: '96000', ioc: true, reduceOnly: true });
  assert.equal(crossed.status, 409);
  assert.equal(crossed.text, 'Trigger price already crossed by the mark price');

  const missing = await submit(alice, { orderType: 'stopLoss', price: '0.1', quantity: '-0.1', ioc: true, reduceOnly: true });
  assert.equal(missing.status, 400);
  assert.equal(missing.text, 'triggerPrice is required for a stopLoss order');

  const withPeriod = await submit(alice, { orderType: 'stopLoss', price: '0.1', quantity: '-0.1', triggerPrice: '90000', period: 1000 });
  assert.equal(withPeriod.status, 400);
  assert.equal(withPeriod.text, 'May not specify period on StopLoss order');

  const [stop] = (await submit(alice, { orderType: 'stopLoss', price: '0.1', quantity: '-0.1', triggerPrice: '90000', ioc: true, reduceOnly: true })).json();
  const cancelled = await alice.send('DELETE', `/account/order?orderId=${stop.orderId}`);
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.equal(cancelled.json().status, 'cancelled');
  assert.equal(cancelled.json().reason, 'cancelled');

  assert.equal((await submit(carol, { orderType: 'limit', price: '89000', quantity: '0.1' })).status, 200);
  await setMark(ex, '89000');
  assert.equal(await position(alice), '0.1');
  assert.equal((await order(alice, stop.orderId)).status, 'cancelled');
});

test('a fired stop is never shown `triggered` (the spec lists no such status): untriggered, then new on the book; the published Order statuses agree', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob] = await fundedTraders(ex, 2, '100000');
  await setMark(ex, '95000');
  await openPosition(alice, bob, '0.1', '95000');
  // a stop whose limit price rests once fired: nothing bids at 91000
  const [stop] = (await submit(alice, { orderType: 'stopLoss', price: '91000', quantity: '-0.1', triggerPrice: '90000', reduceOnly: true })).json();
  assert.equal(stop.status, 'untriggered');
  await setMark(ex, '90000');
  const fired = await order(alice, stop.orderId);
  assert.equal(fired.status, 'new');
  assert.equal(fired.triggerPrice, '90000', 'where it fired');
  assert.deepEqual((await listed(alice, 'open')).map((o) => [o.orderId, o.status]), [[stop.orderId, 'new']]);
  const statuses = (await ex.request('GET', '/openapi.json')).json().components.schemas.Order.properties.status.enum;
  assert.deepEqual(statuses, ['new', 'partiallyFilled', 'filled', 'cancelled', 'expired', 'rejected', 'untriggered']);
});
