import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnWorker } from '../../src/transport/spawn-worker.ts';
import { once } from 'node:events';
import { Ring } from '../../src/transport/ring.ts';
import { checkRecord, writeRecord } from './fixtures/ring-records.ts';

const WORKER = new URL('./fixtures/ring-worker.ts', import.meta.url);
const TOTAL = 1_000_000;

test('1,000,000 checksummed records cross to a worker thread in order and intact', async () => {
  const ring = Ring.create(1024, 128);
  const worker = spawnWorker(WORKER, { workerData: { mode: 'verify', buffer: ring.buffer } });
  const result = once(worker, 'message');
  const scratch = new DataView(new ArrayBuffer(128));
  let digest = 0;
  for (let i = 0; i < TOTAL; ) {
    // Batches of up to 64, published together; a full ring blocks this (test) thread briefly.
    for (let k = 0; k < 64 && i < TOTAL; k++, i++) {
      const offset = ring.claimWait(10_000);
      assert.ok(offset >= 0, 'the consumer keeps up');
      writeRecord(ring.view, offset, i);
      ring.commit();
      writeRecord(scratch, 0, i);
      digest = (Math.imul(digest, 31) + checkRecord(scratch, 0, i)) | 0;
    }
    ring.publish();
  }
  ring.close();
  const [message] = (await result) as [{ count: number; errors: number; digest: number }];
  assert.deepEqual(message, { count: TOTAL, errors: 0, digest });
  await worker.terminate();
});

test('a second thread producing on the same ring is refused (single-writer assert)', async () => {
  const ring = Ring.create(4, 64);
  assert.ok(ring.tryWrite(Uint8Array.of(1)));
  const worker = spawnWorker(WORKER, { workerData: { mode: 'steal', buffer: ring.buffer } });
  const [message] = (await once(worker, 'message')) as [{ error: string | null }];
  assert.match(message.error ?? '', /producer already owned by thread 0/);
  await worker.terminate();
});
