/**
 * The journal reports every group commit to its `onFlush` observer (the operator's metrics and
 * the slow-flush warning): how many records it carried and how long the disk took.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Journal } from '../../src/journal/journal.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { CapturingLogger, payloadFor } from './fixtures/journal-fixtures.ts';

test('onFlush gets each group commit: its record count and the time the disk took', async () => {
  const disk = new SimulatedJournalStorage();
  const flushes: Array<{ records: number; seconds: number }> = [];
  const journal = await Journal.open(disk, { logger: new CapturingLogger(), onFlush: (records, seconds) => flushes.push({ records, seconds }) });
  for (let i = 1; i <= 3; i++) journal.append(1, payloadFor(i));
  await new Promise<void>((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 150)); // a slow disk
  disk.flush();
  await journal.durable(3);
  assert.equal(flushes.length, 1);
  assert.equal(flushes[0].records, 3);
  assert.ok(flushes[0].seconds >= 0.14, `the flush took ${flushes[0].seconds} s`);

  journal.append(1, payloadFor(4));
  await new Promise<void>((resolve) => setImmediate(resolve));
  disk.flush();
  await journal.durable(4);
  assert.deepEqual(flushes.map((f) => f.records), [3, 1]);
});
