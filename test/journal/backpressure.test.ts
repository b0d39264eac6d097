import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Journal, JournalFailedError } from '../../src/journal/journal.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { CapturingLogger, payloadFor } from './fixtures/journal-fixtures.ts';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('the journal reports itself behind while more than maxUnflushed records wait for a flush', async () => {
  const disk = new SimulatedJournalStorage();
  const journal = await Journal.open(disk, { logger: new CapturingLogger(), maxUnflushed: 100 });
  for (let n = 1; n <= 100; n++) journal.append(1, payloadFor(n));
  assert.equal(journal.isBehind(), false);
  journal.append(1, payloadFor(101));
  assert.equal(journal.unflushed(), 101);
  assert.equal(journal.isBehind(), true);
  await turn();
  disk.flush();
  await turn();
  assert.equal(journal.unflushed(), 0);
  assert.equal(journal.isBehind(), false);
});

test('a storage failure rejects waiting acknowledgements, refuses appends, reports behind, and is reported once to onStorageFailed', async () => {
  const disk = new SimulatedJournalStorage();
  const logger = new CapturingLogger();
  const reported: JournalFailedError[] = [];
  const journal = await Journal.open(disk, { logger, onStorageFailed: (error) => reported.push(error) });
  const seq = journal.append(1, payloadFor(1));
  const ack = journal.durable(seq);
  await turn();
  disk.fail(new Error('EIO: simulated'));
  await assert.rejects(ack, JournalFailedError);
  assert.throws(() => journal.append(1, payloadFor(2)), JournalFailedError);
  assert.equal(journal.isBehind(), true);
  assert.match(logger.errors[0].message, /storage failed/);
  assert.deepEqual(reported.map((e) => e.message), ['journal storage failed: EIO: simulated']);
});
