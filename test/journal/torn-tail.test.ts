import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Journal } from '../../src/journal/journal.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { kJournalHeaderBytes } from '../../src/journal/record.ts';
import { CapturingLogger, KIND_OF, payloadFor, readAll } from './fixtures/journal-fixtures.ts';

async function journalOf(count: number): Promise<SimulatedJournalStorage> {
  const disk = new SimulatedJournalStorage({ autoFlush: true });
  const journal = await Journal.open(disk, { logger: new CapturingLogger() });
  for (let n = 1; n <= count; n++) journal.append(KIND_OF(n), payloadFor(n));
  await journal.durable(count);
  return disk;
}

for (const [name, keep] of [
  ['inside the header', 10],
  ['inside the payload', kJournalHeaderBytes + 3],
] as const) {
  test(`a last record torn ${name} is deleted with a loud log and the rest is kept`, async () => {
    const disk = await journalOf(20);
    disk.tear(20, keep);
    const logger = new CapturingLogger();
    const journal = await Journal.open(disk, { logger });
    assert.equal(journal.lastSeq(), 19);
    assert.equal(readAll(journal).length, 19);
    assert.equal(logger.errors.length, 1);
    assert.match(logger.errors[0].message, /TORN TAIL.*seq 20/);
    assert.equal(disk.lastKey(), 19, 'the torn record is gone from storage');
    assert.equal(journal.append(1, payloadFor(20)), 20);
  });
}

test('a last record whose bytes are complete but flipped counts as torn (checksum), not as corruption', async () => {
  const disk = await journalOf(5);
  disk.corrupt(5, kJournalHeaderBytes + 1);
  const logger = new CapturingLogger();
  const journal = await Journal.open(disk, { logger });
  assert.equal(journal.lastSeq(), 4);
  assert.match(logger.errors[0].fields.problem as string, /checksum/);
});

test('a power cut that tears the write in flight leaves a journal that opens without it', async () => {
  const disk = new SimulatedJournalStorage();
  const journal = await Journal.open(disk, { logger: new CapturingLogger() });
  for (let n = 1; n <= 10; n++) journal.append(KIND_OF(n), payloadFor(n));
  disk.flush(6);
  const logger = new CapturingLogger();
  const recovered = await Journal.open(disk.powerLoss({ survivingWrites: 1, tornBytes: 17 }), { logger });
  assert.equal(recovered.lastSeq(), 7);
  assert.match(logger.errors[0].message, /seq 8/);
});
