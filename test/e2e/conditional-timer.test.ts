/**
 * The real pipeline's conditional timer (sequencer/clock, re-armed after every command): on an
 * exchange whose clock ticks only once a minute, an untriggered stop alone expires at its
 * `expiresAt`, and a TWAP's children enter the book at their due times beside another expiring
 * stop — released by the timer the placement armed, not by a tick. The behaviour tests (test/behaviour/conditional-*) run the
 * clock by hand; this is the one place the wall clock drives it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange, fundedTraders, type Trader } from './harness.ts';
import { order, setMark, submit, submitBatch } from '../harness/conditional-helpers.ts';

const PERIOD_MS = 150;

/** `orderId` expires at `expiresAt` (its updatedAt), and is seen expired within 5 s of it — the clock ticks once a minute. */
async function expiredBy(trader: Trader, orderId: string, expiresAt: number): Promise<void> {
  for (;;) {
    const o = await order(trader, orderId);
    if (o.status === 'expired') {
      assert.ok(o.updatedAt >= expiresAt, `expired at ${o.updatedAt}, before its expiresAt ${expiresAt}`);
      return;
    }
    assert.equal(o.status, 'untriggered');
    assert.ok(Date.now() < expiresAt + 5_000, `still untriggered 5 s after its expiresAt`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('an untriggered stop expires at its expiresAt, alone and beside a TWAP whose children enter at their due times, between the clock\'s ticks', { timeout: 60_000 }, async (t) => {
  const ex = await startTestExchange({ tickMs: 60_000 });
  t.after(() => ex.stop());
  const [alice] = await fundedTraders(ex, 1, '100000');
  await setMark(ex, '95000');

  // Alone: no other timer is armed, so only the re-arm after its own placement expires it.
  const loneExpiresAt = Date.now() + 1000;
  const lone = await submit(alice, { orderType: 'stopLoss', price: '0.1', quantity: '-0.1', triggerPrice: '80000', expiresAt: loneExpiresAt });
  assert.equal(lone.status, 200, lone.text);
  await expiredBy(alice, lone.json()[0].orderId, loneExpiresAt);

  const placed = await submitBatch(alice, Array.from({ length: 3 }, () => ({ orderType: 'twap', price: '90000', quantity: '0.1', period: PERIOD_MS })));
  assert.equal(placed.status, 200, placed.text);
  const children = placed.json().orders;
  const t0 = children[0].createdAt;
  const expiresAt = Date.now() + 1000;
  const stopped = await submit(alice, { orderType: 'stopLoss', price: '0.1', quantity: '-0.1', triggerPrice: '80000', expiresAt });
  assert.equal(stopped.status, 200, stopped.text);
  const [stop] = stopped.json();
  assert.equal(stop.status, 'untriggered', JSON.stringify(stop));

  await expiredBy(alice, stop.orderId, expiresAt);
  const deadline = Date.now() + 20_000;
  while ((await order(alice, children[2].orderId)).status !== 'new') {
    assert.ok(Date.now() < deadline, 'the last TWAP child not released within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (let i = 1; i < 3; i++) {
    const child = await order(alice, children[i].orderId);
    assert.equal(child.status, 'new');
    assert.ok(child.updatedAt >= t0 + i * PERIOD_MS, `child ${i} entered at ${child.updatedAt - t0} ms, due at ${i * PERIOD_MS}`);
  }
});
