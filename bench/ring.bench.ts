/**
 * Ring hop main thread → worker thread, beside postMessage in the same run.
 *
 * Workloads (1 worker; records of 64 bytes in 192-byte slots):
 *  1. round trip: main publishes a ping, the worker echoes it on a second ring; 20,000 pings,
 *     one at a time; p50/p99 in µs. Baseline: postMessage ping-pong.
 *  2. one-way throughput: 1,000,000 records, published in batches of 64; messages/s.
 *     Baseline: postMessage of 200,000 small objects.
 *  3. paced one-way latency at 100,000 msg/s for 2 s: each record carries its send time
 *     (process.hrtime, the monotonic clock every thread shares); the worker sleeps between
 *     records (spin, then Atomics.wait), so this includes wake-ups. p50/p99 in µs.
 *     Baseline: postMessage at the same pace.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ring } from '../src/transport/ring.ts';
import { percentile, report, type Figure } from './report.ts';

const PINGS = 20_000;
const ONE_WAY = 1_000_000;
const POST_ONE_WAY = 200_000;
const PACED_RATE = 100_000;
const PACED_SECONDS = 2;
// The process-wide monotonic clock: the same in every thread. (`performance.timeOrigin` is per
// thread and not aligned precisely enough to time a one-way hop of microseconds.)
const now = () => Number(process.hrtime.bigint()) / 1e6;

type Mode = 'echo' | 'count' | 'paced' | 'post-echo' | 'post-count' | 'post-paced';

/** Starts a worker of this file under tsx and waits for its 'ready'. */
async function spawn(mode: Mode, data: Record<string, unknown> = {}): Promise<Worker> {
  const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const api = pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const source = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); });`;
  const worker = new Worker(source, { eval: true, workerData: { mode, ...data } });
  await once(worker, 'message');
  return worker;
}

function workerMain(): void {
  const { mode } = workerData as { mode: Mode };
  const port = parentPort!;
  port.postMessage('ready');
  if (mode === 'echo') {
    const inbox = Ring.attach(workerData.inbox);
    const outbox = Ring.attach(workerData.outbox);
    inbox.consume((view, offset) => {
      const slot = outbox.claimWait();
      outbox.view.setFloat64(slot, view.getFloat64(offset, true), true);
      outbox.commit();
      outbox.publish();
    });
    port.postMessage('done');
  } else if (mode === 'count') {
    const inbox = Ring.attach(workerData.inbox);
    let sum = 0;
    const count = inbox.consume((view, offset) => (sum += view.getUint32(offset, true)));
    port.postMessage({ count, sum });
  } else if (mode === 'paced') {
    const inbox = Ring.attach(workerData.inbox);
    const latencies = new Float64Array(workerData.latencies as SharedArrayBuffer);
    let i = 0;
    inbox.consume((view, offset) => {
      latencies[i++] = now() - view.getFloat64(offset, true);
    });
    port.postMessage(i);
  } else if (mode === 'post-echo') {
    port.on('message', (m: { t: number } | 'stop') => (m === 'stop' ? port.close() : port.postMessage(m)));
  } else if (mode === 'post-count') {
    let count = 0;
    port.on('message', () => {
      if (++count === workerData.total) port.postMessage(count);
    });
  } else if (mode === 'post-paced') {
    const latencies: number[] = [];
    port.on('message', (m: { t: number } | 'stop') => {
      if (m === 'stop') port.postMessage(latencies);
      else latencies.push(now() - m.t);
    });
  }
}

async function ringRoundTrip(): Promise<number[]> {
  const inbox = Ring.create(1024);
  const outbox = Ring.create(1024);
  const worker = await spawn('echo', { inbox: inbox.buffer, outbox: outbox.buffer });
  const rtts: number[] = [];
  for (let i = 0; i < PINGS + 1000; i++) {
    const t0 = performance.now();
    const slot = inbox.tryClaim();
    inbox.view.setFloat64(slot, t0, true);
    inbox.commit();
    inbox.publish();
    while (outbox.drain(() => {}) === 0) outbox.waitForRecords();
    if (i >= 1000) rtts.push((performance.now() - t0) * 1000);
  }
  inbox.close();
  await once(worker, 'message');
  await worker.terminate();
  return rtts;
}

async function postRoundTrip(): Promise<number[]> {
  const worker = await spawn('post-echo');
  const rtts: number[] = [];
  for (let i = 0; i < PINGS / 4 + 500; i++) {
    const t0 = performance.now();
    worker.postMessage({ t: t0 });
    await once(worker, 'message');
    if (i >= 500) rtts.push((performance.now() - t0) * 1000);
  }
  await worker.terminate();
  return rtts;
}

async function ringOneWay(): Promise<number> {
  const ring = Ring.create(4096);
  const worker = await spawn('count', { inbox: ring.buffer });
  const done = once(worker, 'message');
  const t0 = performance.now();
  for (let i = 0; i < ONE_WAY; ) {
    for (let k = 0; k < 64 && i < ONE_WAY; k++, i++) {
      const slot = ring.claimWait();
      ring.view.setUint32(slot, 1, true);
      ring.commit();
    }
    ring.publish();
  }
  ring.close();
  const [{ count }] = (await done) as [{ count: number }];
  const seconds = (performance.now() - t0) / 1000;
  await worker.terminate();
  if (count !== ONE_WAY) throw new Error(`ring lost records: ${count}`);
  return ONE_WAY / seconds;
}

async function postOneWay(): Promise<number> {
  const worker = await spawn('post-count', { total: POST_ONE_WAY });
  const done = once(worker, 'message');
  const t0 = performance.now();
  for (let i = 0; i < POST_ONE_WAY; i++) worker.postMessage({ kind: 1, orderId: i, price: 100, quantity: 5 });
  await done;
  const seconds = (performance.now() - t0) / 1000;
  await worker.terminate();
  return POST_ONE_WAY / seconds;
}

/** Calls `send` at PACED_RATE for PACED_SECONDS, catching up in small bursts (timers are ~1 ms). */
async function paced(send: () => void): Promise<void> {
  const total = PACED_RATE * PACED_SECONDS;
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * PACED_RATE));
    while (sent < due) {
      send();
      sent++;
    }
    await new Promise((r) => setImmediate(r));
  }
}

async function ringPaced(): Promise<number[]> {
  const ring = Ring.create(4096);
  const latencies = new SharedArrayBuffer(8 * PACED_RATE * PACED_SECONDS);
  const worker = await spawn('paced', { inbox: ring.buffer, latencies });
  const done = once(worker, 'message');
  await paced(() => {
    const slot = ring.tryClaim();
    if (slot < 0) throw new Error('ring full at 100k/s');
    ring.view.setFloat64(slot, now(), true);
    ring.commit();
    ring.publish();
  });
  ring.close();
  const [count] = (await done) as [number];
  await worker.terminate();
  return Array.from(new Float64Array(latencies, 0, count), (ms) => ms * 1000);
}

async function postPaced(): Promise<number[]> {
  const worker = await spawn('post-paced');
  await paced(() => worker.postMessage({ t: now() }));
  worker.postMessage('stop');
  const [latencies] = (await once(worker, 'message')) as [number[]];
  await worker.terminate();
  return latencies.map((ms) => ms * 1000);
}

async function main(): Promise<void> {
  const ringRtt = await ringRoundTrip();
  const postRtt = await postRoundTrip();
  const ringRate = await ringOneWay();
  const postRate = await postOneWay();
  const ringHop = await ringPaced();
  const postHop = await postPaced();
  const figures: Figure[] = [
    { name: 'ring round trip p50', value: percentile(ringRtt, 50), unit: 'µs', baseline: { name: 'postMessage round trip p50', value: percentile(postRtt, 50) } },
    { name: 'ring round trip p99', value: percentile(ringRtt, 99), unit: 'µs', baseline: { name: 'postMessage round trip p99', value: percentile(postRtt, 99) } },
    { name: 'ring one-way throughput', value: ringRate, unit: 'msg/s', baseline: { name: 'postMessage one-way', value: postRate } },
    { name: 'ring hop p50 @100k msg/s (sleeping consumer)', value: percentile(ringHop, 50), unit: 'µs', baseline: { name: 'postMessage hop p50 @100k/s', value: percentile(postHop, 50) } },
    { name: 'ring hop p99 @100k msg/s (sleeping consumer)', value: percentile(ringHop, 99), unit: 'µs', baseline: { name: 'postMessage hop p99 @100k/s', value: percentile(postHop, 99) } },
  ];
  report('ring', figures);
}

if (isMainThread) await main();
else workerMain();
