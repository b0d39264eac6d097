import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnWorker } from '../../src/transport/spawn-worker.ts';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Ring } from '../../src/transport/ring.ts';
import { kRingConsumerSleeping } from '../../src/transport/layout.ts';

const WORKER = new URL('./fixtures/ring-worker.ts', import.meta.url);

test('a consumer asleep in Atomics.wait is woken by the publish that follows', async () => {
  const ring = Ring.create(8, 64);
  const worker = spawnWorker(WORKER, { workerData: { mode: 'echo-one', buffer: ring.buffer } });
  const reply = once(worker, 'message');
  const sleeping = new Int32Array(ring.buffer, kRingConsumerSleeping, 1);
  // Wait (bounded) until the worker has announced that it sleeps: the notify path is what is tested.
  for (let i = 0; i < 500 && Atomics.load(sleeping, 0) === 0; i++) await sleep(10);
  assert.equal(Atomics.load(sleeping, 0), 1, 'the consumer went to sleep');
  const record = new Uint8Array(8);
  new DataView(record.buffer).setUint32(0, 424242, true);
  assert.ok(ring.tryWrite(record));
  const [message] = (await reply) as [{ value: number }];
  assert.equal(message.value, 424242);
  await worker.terminate();
});

test('publishWithoutWake owes a sleeping consumer a wake: it stays asleep until wake()', async () => {
  const ring = Ring.create(8, 64);
  const worker = spawnWorker(WORKER, { workerData: { mode: 'echo-one', buffer: ring.buffer } });
  let replied = false;
  const reply = once(worker, 'message').then((m) => ((replied = true), m));
  const sleeping = new Int32Array(ring.buffer, kRingConsumerSleeping, 1);
  for (let i = 0; i < 500 && Atomics.load(sleeping, 0) === 0; i++) await sleep(10);
  assert.equal(Atomics.load(sleeping, 0), 1, 'the consumer went to sleep');
  const offset = ring.tryClaim();
  ring.view.setUint32(offset, 777, true);
  ring.commit();
  assert.equal(ring.publishWithoutWake(), true, 'a wake is owed');
  assert.equal(ring.publishWithoutWake(), false, 'nothing new to publish');
  await sleep(200);
  assert.equal(replied, false, 'without the wake the consumer sleeps on');
  ring.wake();
  const [message] = (await reply) as [{ value: number }];
  assert.equal(message.value, 777);
  await worker.terminate();
});

test('the main thread waits with Atomics.waitAsync without blocking its event loop', async () => {
  const ring = Ring.create(8, 64);
  ring.spinMicros = 0;
  const worker = spawnWorker(WORKER, { workerData: { mode: 'produce', buffer: ring.buffer, delayMs: 50, value: 99 } });
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 5);
  const ready = await ring.waitForRecordsAsync(10_000);
  clearInterval(ticker);
  assert.equal(ready, true);
  assert.ok(ticks > 0, 'timers ran while waiting');
  let value = -1;
  ring.drain((view, offset) => (value = view.getUint32(offset, true)));
  assert.equal(value, 99);
  await worker.terminate();
});

test('waiting on an empty ring times out, and a closed ring ends a consume loop', () => {
  const ring = Ring.create(8, 64);
  ring.spinMicros = 0;
  assert.equal(ring.waitForRecords(10), false);
  assert.ok(ring.tryWrite(Uint8Array.of(5)));
  ring.close();
  let count = 0;
  assert.equal(ring.consume(() => count++), 1);
  assert.equal(count, 1);
});
