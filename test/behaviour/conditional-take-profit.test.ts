import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { openPosition, order, position, setMark, submit } from '../harness/conditional-helpers.ts';

test('a buy takeProfit closing a short enters the book under its own orderId when the mark falls to it', async () => {
  const ex = await startInProcessExchange();
  const [alice, bob, carol] = await fundedTraders(ex, 3, '100000');
  await setMark(ex, '95000');
  await openPosition(alice, bob, '0.1', '95000');
  assert.equal(await position(bob), '-0.1');

  const placed = await submit(bob, { orderType: 'TakeProfit', price: '90500', quantity: '0.1', triggerPrice: '90000', reduceOnly: true });
  assert.equal(placed.status, 200, placed.text);
  const [tp] = placed.json();
  assert.equal(tp.status, 'untriggered');
  assert.equal(tp.orderType, 'takeProfit');

  await setMark(ex, '90000.1');
  assert.equal((await order(bob, tp.orderId)).status, 'untriggered');
  assert.deepEqual((await ex.request('GET', '/book/BTC-USD-PERP?depth=5')).json().bids, []);

  // Fired: a limit buy at 90500 with nothing to take rests on the book, same orderId.
  await setMark(ex, '90000');
  const resting = await order(bob, tp.orderId);
  assert.equal(resting.status, 'new');
  assert.equal(resting.remaining, '0.1');
  assert.deepEqual((await ex.request('GET', '/book/BTC-USD-PERP?depth=5')).json().bids, [{ price: '90500', quantity: '0.1' }]);

  const sell = await submit(carol, { orderType: 'limit', price: '90500', quantity: '-0.1' });
  assert.equal(sell.json()[0].status, 'filled');
  const filled = await order(bob, tp.orderId);
  assert.equal(filled.status, 'filled');
  assert.equal(filled.settled, '0.1');
  assert.equal(await position(bob), '0');
});
