import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { openPosition, order, stateHash, position, setMark, submit, submitBatch, tick, trades, type ConditionalOrder } from '../harness/conditional-helpers.ts';

const MINUTE = 60_000;
const sellStop = (triggerPrice: string): ConditionalOrder => ({ orderType: 'stopLoss', price: '0.1', quantity: '-0.1', triggerPrice, ioc: true, reduceOnly: true });

test('untriggered orders survive restarts (journal replay, then snapshot) and fire once afterwards, never twice', async () => {
  const first = await startInProcessExchange();
  const [alice, bob, carol] = await fundedTraders(first, 3, '100000');
  await setMark(first, '95000');
  await openPosition(alice, bob, '0.2', '95000');

  const [fired] = (await submit(alice, sellStop('90000'))).json();
  const [waiting] = (await submit(alice, sellStop('85000'))).json();
  const twap = (await submitBatch(carol, Array.from({ length: 3 }, () => ({ orderType: 'twap', price: '80000', quantity: '0.01', period: MINUTE })))).json().orders;
  const t0 = twap[0].createdAt;
  assert.equal((await submit(carol, { orderType: 'limit', price: '84000', quantity: '0.3' })).status, 200);

  await setMark(first, '90000');
  assert.equal((await order(alice, fired.orderId)).status, 'filled');
  assert.equal(await position(alice), '0.1');
  const before = await stateHash(first);
  assert.equal(before.problem, null);
  // As after a crash: no shutdown snapshot, so the next start replays the whole journal.
  const second = await first.restart({ snapshot: false });
  assert.equal(second.exchange.recovery.snapshotSeq, 0);
  for (const trader of [alice, bob, carol]) trader.ex = second;
  assert.deepEqual(await stateHash(second), before);
  assert.equal((await order(alice, waiting.orderId)).status, 'untriggered');
  assert.equal((await order(alice, fired.orderId)).status, 'filled');
  assert.deepEqual([(await order(carol, twap[1].orderId)).status, (await order(carol, twap[2].orderId)).status], ['untriggered', 'untriggered']);
  assert.equal(await position(alice), '0.1');
  assert.equal((await trades(second)).length, 2);

  // The stop that fired before the restart does not fire again; the waiting one fires once.
  await setMark(second, '89000');
  assert.equal((await trades(second)).length, 2);
  await setMark(second, '85000');
  assert.equal((await order(alice, waiting.orderId)).status, 'filled');
  assert.equal(await position(alice), '0');
  assert.equal((await trades(second)).length, 3);
  await tick(second, t0 + MINUTE);
  assert.equal((await order(carol, twap[1].orderId)).status, 'new');
  const beforeSnapshot = await stateHash(second);

  // From the shutdown snapshot this time.
  const third = await second.restart();
  assert.equal(third.exchange.recovery.commands + third.exchange.recovery.events, 0, 'nothing after the shutdown snapshot to replay');
  for (const trader of [alice, bob, carol]) trader.ex = third;
  assert.deepEqual(await stateHash(third), beforeSnapshot);
  assert.equal((await order(carol, twap[2].orderId)).status, 'untriggered');
  await setMark(third, '80000');
  await setMark(third, '95000');
  await setMark(third, '80000');
  assert.equal((await trades(third)).length, 3);
  await tick(third, t0 + 2 * MINUTE);
  assert.equal((await order(carol, twap[2].orderId)).status, 'new');
  assert.equal(await position(carol), '0.2');
  assert.equal((await stateHash(third)).problem, null);
});
