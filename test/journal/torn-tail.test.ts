import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Journal } from '../../src/journal/journal.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { LmdbJournalStorage } from '../../src/journal/lmdb-storage.ts';
import { JournalCorruptError, kJournalHeaderBytes } from '../../src/journal/record.ts';
import { CapturingLogger, KIND_OF, payloadFor, readAll, tempDir } from './fixtures/journal-fixtures.ts';

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

test('on a disk that can tear, a last record beyond every snapshot whose bytes are complete but flipped counts as torn (checksum)', async () => {
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

test('a damaged last record that a snapshot covers was flushed, maybe acknowledged: refused, not dropped', async () => {
  const disk = await journalOf(9);
  disk.corrupt(9, kJournalHeaderBytes + 1);
  const logger = new CapturingLogger();
  await assert.rejects(Journal.open(disk, { logger, flushedThrough: 9 }), (error: Error) => {
    assert.ok(error instanceof JournalCorruptError);
    assert.match(error.message, /journal corrupt at seq 9: checksum mismatch \(.*snapshot at seq 9 shows it was flushed/);
    return true;
  });
  assert.equal(disk.lastKey(), 9, 'nothing was deleted');
  assert.equal(logger.errors.length, 0);
  // A snapshot older than the record proves nothing about it: still a torn write.
  assert.equal((await Journal.open(disk, { logger, flushedThrough: 8 })).lastSeq(), 8);
});

test('LMDB never tears a write: a damaged last record there is refused as corruption', async () => {
  const dir = tempDir('torn-lmdb');
  try {
    const storage = LmdbJournalStorage.open(dir.path);
    const journal = await Journal.open(storage, { logger: new CapturingLogger() });
    for (let n = 1; n <= 5; n++) journal.append(KIND_OF(n), payloadFor(n));
    await journal.close();
    const damaged = LmdbJournalStorage.open(dir.path);
    for (const { key, value } of damaged.blocks.getRange({ reverse: true, limit: 1 })) {
      const bytes = new Uint8Array(value);
      bytes[bytes.length - 1] ^= 1;
      await damaged.blocks.put(key, bytes);
    }
    await assert.rejects(Journal.open(damaged, { logger: new CapturingLogger() }), /journal corrupt at seq 5: checksum mismatch \(.*never tears a write/);
    assert.equal(damaged.lastKey(), 5, 'nothing was deleted');
    // The operator's way out keeps the good records before it.
    const prefix = await Journal.open(damaged, { logger: new CapturingLogger(), readOnly: true, upTo: 4 });
    assert.equal(readAll(prefix).length, 4);
    await damaged.close();
  } finally {
    dir.remove();
  }
});
