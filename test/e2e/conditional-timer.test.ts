/**
 * The real pipeline's conditional timer (sequencer/clock, re-armed after every command): on an
 * exchange whose clock ticks only once a minute, a TWAP's children enter the book at their due
 * times and an untriggered stop expires at its `expiresAt` — released by the timer the
 * placement armed, not by a tick. The behaviour tests (test/behaviour/conditional-*) run the
 * clock by hand; this is the one place the wall clock drives it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange, fundedTraders } from './harness.ts';
import { order, setMark, submit, submitBatch } from '../harness/conditional-helpers.ts';

const PERIOD_MS = 150;

test('a TWAP child enters at its due time and an untriggered stop expires at its expiresAt, between the clock\'s ticks', { timeout: 60_000 }, async (t) => {
  const ex = await startTestExchange({ tickMs: 60_000 });
  t.after(() => ex.stop());
  const [alice] = await fundedTraders(ex, 1, '100000');
  await setMark(ex, '95000');

  const placed = await submitBatch(alice, Array.from({ length: 3 }, () => ({ orderType: 'twap', price: '90000', quantity: '0.1', period: PERIOD_MS })));
  assert.equal(placed.status, 200, placed.text);
  const children = placed.json().orders;
  const t0 = children[0].createdAt;
  const expiresAt = Date.now() + 2 * PERIOD_MS;
  const stopped = await submit(alice, { orderType: 'stopLoss', price: '0.1', quantity: '-0.1', triggerPrice: '80000', expiresAt });
  assert.equal(stopped.status, 200, stopped.text);
  const [stop] = stopped.json();
  assert.equal(stop.status, 'untriggered', JSON.stringify(stop));

  const deadline = Date.now() + 20_000;
  for (;;) {
    const last = await order(alice, children[2].orderId);
    const expired = await order(alice, stop.orderId);
    if (last.status === 'new' && expired.status === 'expired') break;
    assert.ok(Date.now() < deadline, `not released within 20 s: last child ${last.status}, stop ${expired.status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (let i = 1; i < 3; i++) {
    const child = await order(alice, children[i].orderId);
    assert.equal(child.status, 'new');
    assert.ok(child.updatedAt >= t0 + i * PERIOD_MS, `child ${i} entered at ${child.updatedAt - t0} ms, due at ${i * PERIOD_MS}`);
  }
  assert.ok((await order(alice, stop.orderId)).updatedAt >= expiresAt, 'the stop expired at its expiresAt, not before');
});
