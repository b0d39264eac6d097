import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Journal } from '../../src/journal/journal.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { JournalCorruptError, Problem, kJournalHeaderBytes, kJournalPrevCrc32 } from '../../src/journal/record.ts';
import { CapturingLogger, KIND_OF, payloadFor } from './fixtures/journal-fixtures.ts';

async function journalOf(count: number, salt = 0): Promise<SimulatedJournalStorage> {
  const disk = new SimulatedJournalStorage({ autoFlush: true });
  const journal = await Journal.open(disk, { logger: new CapturingLogger() });
  for (let n = 1; n <= count; n++) journal.append(KIND_OF(n), payloadFor(n + salt));
  await journal.durable(count);
  return disk;
}

async function refusal(disk: SimulatedJournalStorage): Promise<JournalCorruptError> {
  const error = await Journal.open(disk, { logger: new CapturingLogger() }).then(
    () => assert.fail('the journal opened'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof JournalCorruptError);
  return error;
}

test('a flipped bit in a middle record refuses to start, naming its seq', async () => {
  const disk = await journalOf(50);
  disk.corrupt(23, kJournalHeaderBytes + 2);
  const error = await refusal(disk);
  assert.equal(error.seq, 23);
  assert.equal(error.problem, Problem.Checksum);
  assert.match(error.message, /seq 23: checksum mismatch; refusing to start/);
});

test('a torn record in the middle is corruption, not a torn tail', async () => {
  const disk = await journalOf(50);
  disk.tear(10, 20);
  const error = await refusal(disk);
  assert.equal(error.seq, 10);
});

test('a missing middle record refuses to start at the gap', async () => {
  const disk = await journalOf(30);
  disk.drop(12);
  const error = await refusal(disk);
  assert.equal(error.seq, 12);
  assert.equal(error.problem, Problem.Sequence);
});

test('a record copied from another journal (valid checksum, wrong chain) refuses to start', async () => {
  const disk = await journalOf(30);
  const other = await journalOf(30, 1);
  disk.put(17, other.get(17)!.slice());
  disk.flush();
  const error = await refusal(disk);
  assert.equal(error.seq, 17);
  assert.equal(error.problem, Problem.Chain);
});

test('a broken chain link on the last record is corruption even though the record is intact', async () => {
  const disk = await journalOf(8);
  disk.corrupt(8, kJournalPrevCrc32);
  // The flip also breaks the checksum; make the checksum match again to isolate the link.
  const record = disk.get(8)!.slice();
  const { crc32c } = await import('../../src/journal/checksum.ts');
  new DataView(record.buffer).setUint32(0, crc32c(record, 4), true);
  disk.put(8, record);
  disk.flush();
  const error = await refusal(disk);
  assert.equal(error.seq, 8);
  assert.equal(error.problem, Problem.Chain);
});

test('range() refuses to replay past a record corrupted after opening', async () => {
  const disk = await journalOf(10);
  const journal = await Journal.open(disk, { logger: new CapturingLogger() });
  disk.corrupt(6, kJournalHeaderBytes);
  const seen: number[] = [];
  assert.throws(() => {
    for (const entry of journal.range(1)) seen.push(entry.seq);
  }, /seq 6/);
  assert.deepEqual(seen, [1, 2, 3, 4, 5]);
});
