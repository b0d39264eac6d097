import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { bookSide, order, setMark, submitBatch, tick, type ConditionalOrder } from '../harness/conditional-helpers.ts';

const MINUTE = 60_000;

function twap(children: number, quantity: string, period = MINUTE): ConditionalOrder[] {
  return Array.from({ length: children }, () => ({ orderType: 'twap', price: '95000', quantity, period }));
}

test('a TWAP places child i at placement + i × period, each on time and not before', async () => {
  const ex = await startInProcessExchange();
  const [alice] = await fundedTraders(ex, 1, '100000');
  await setMark(ex, '95000');

  const placed = await submitBatch(alice, twap(3, '0.1'));
  assert.equal(placed.status, 200, placed.text);
  const children = placed.json().orders;
  assert.equal(children.length, 3);
  const t0 = children[0].createdAt;
  assert.deepEqual(children.map((c: any) => c.status), ['new', 'untriggered', 'untriggered']);
  assert.ok(children.every((c: any) => c.groupId !== '' && c.groupId === children[0].groupId && c.period === MINUTE && c.orderType === 'twap'));
  assert.deepEqual(await bookSide(ex, 'bids'), [['95000', '0.1']]);

  await tick(ex, t0 + MINUTE - 1);
  assert.equal((await order(alice, children[1].orderId)).status, 'untriggered');
  assert.deepEqual(await bookSide(ex, 'bids'), [['95000', '0.1']]);

  await tick(ex, t0 + MINUTE);
  const second = await order(alice, children[1].orderId);
  assert.equal(second.status, 'new');
  assert.equal(second.updatedAt, t0 + MINUTE);
  assert.equal((await order(alice, children[2].orderId)).status, 'untriggered');
  assert.deepEqual(await bookSide(ex, 'bids'), [['95000', '0.2']]);

  // A late clock releases what is due, at the clock's time; the grid is kept.
  await tick(ex, t0 + 2 * MINUTE + 500);
  const third = await order(alice, children[2].orderId);
  assert.equal(third.status, 'new');
  assert.equal(third.updatedAt, t0 + 2 * MINUTE + 500);
  assert.deepEqual(await bookSide(ex, 'bids'), [['95000', '0.3']]);
});

test('cancelling a pending TWAP child cancels the children not yet placed; placed ones stay', async () => {
  const ex = await startInProcessExchange();
  const [alice] = await fundedTraders(ex, 1, '100000');
  await setMark(ex, '95000');
  const children = (await submitBatch(alice, twap(3, '0.1'))).json().orders;

  const r = await alice.send('DELETE', `/account/order?orderId=${children[2].orderId}`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json().status, 'cancelled');
  for (const c of children.slice(1)) assert.equal((await order(alice, c.orderId)).status, 'cancelled');
  assert.equal((await order(alice, children[0].orderId)).status, 'new');
  await tick(ex, children[0].createdAt + 3 * MINUTE);
  assert.deepEqual(await bookSide(ex, 'bids'), [['95000', '0.1']]);
});

test('TWAP batches break no rule: nonzero period, one period, one side', async () => {
  const ex = await startInProcessExchange();
  const [alice] = await fundedTraders(ex, 1, '100000');
  const noPeriod = await submitBatch(alice, twap(2, '0.1', 0));
  assert.equal(noPeriod.status, 400);
  assert.equal(noPeriod.text, 'period must be nonzero for a twap order');
  const twoPeriods = await submitBatch(alice, [...twap(1, '0.1'), ...twap(1, '0.1', 2 * MINUTE)]);
  assert.equal(twoPeriods.status, 400);
  assert.equal(twoPeriods.text, 'account, subaccountIndex, symbol, orderType and period must be the same for every order of a batch');
  const twoSides = await submitBatch(alice, [...twap(1, '0.1'), ...twap(1, '-0.1')]);
  assert.equal(twoSides.status, 400);
  assert.equal(twoSides.text, 'Every order of a twap needs the same side');
  const alone = await alice.send('POST', '/account/order', await alice.signedOrder(twap(1, '0.1')[0]));
  assert.equal(alone.status, 400);
  assert.equal(alone.text, 'A twap is a batch of orders: submit them together on POST /account/orders');
});

test('TWAP children enter at their due times, not at the next clock tick: period 400 ms → 0, 400, 800, 1200 ms', async () => {
  const ex = await startInProcessExchange(); // ticks every 60 s: only the release timer runs
  const [alice] = await fundedTraders(ex, 1, '100000');
  await setMark(ex, '95000');
  const placed = await submitBatch(alice, twap(4, '0.1', 400).map((o) => ({ ...o, price: '90000' })));
  assert.equal(placed.status, 200, placed.text);
  const children = placed.json().orders;
  await ex.advance(1500);
  const now = await Promise.all(children.map((c: any) => order(alice, c.orderId)));
  assert.deepEqual(now.map((c) => c.status), ['new', 'new', 'new', 'new']);
  const t0 = now[0].createdAt;
  // each child's release is its last update (it has rested untouched since)
  const offsets = now.map((c) => c.updatedAt - t0);
  for (let i = 1; i < 4; i++) assert.ok(offsets[i] >= 400 * i && offsets[i] <= 400 * i + 60, `child ${i} released at +${offsets[i]} ms: ${offsets.join(', ')}`);
});
