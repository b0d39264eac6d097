import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { DatabaseOptions } from 'lmdb';
import { Journal } from '../../src/journal/journal.ts';
import { LmdbJournalStorage, MAX_BLOCK_RECORDS, openEnvironment, seqKeyEncoder } from '../../src/journal/lmdb-storage.ts';
import { CapturingLogger, KIND_OF, payloadFor, readAll, tempDir } from './fixtures/journal-fixtures.ts';

/** A journal of `count` records appended in turns of the given sizes (one block per turn). */
async function journalOf(path: string, turns: readonly number[]): Promise<number> {
  const journal = await Journal.open(LmdbJournalStorage.open(path), { logger: new CapturingLogger() });
  let n = 0;
  for (const size of turns) {
    for (let i = 0; i < size; i++) journal.append(KIND_OF(++n), payloadFor(n));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await journal.close();
  return n;
}

test('property: records come back by seq and by any range, however the turns cut them into blocks', async () => {
  const dir = tempDir('journal-blocks');
  try {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 12 }), fc.nat(), fc.nat(), async (turns, a, b) => {
        const path = `${dir.path}/run-${run++}`;
        const count = await journalOf(path, turns);
        const storage = LmdbJournalStorage.open(path);
        try {
          assert.equal(storage.firstKey(), 1);
          assert.equal(storage.lastKey(), count);
          const from = 1 + (a % count);
          const to = from + (b % (count - from + 1));
          const seqs = [...storage.range(from, to)].map((r) => Number(new DataView(r.buffer, r.byteOffset + 16, 8).getBigUint64(0, true)));
          assert.deepEqual(seqs, Array.from({ length: to - from + 1 }, (_, i) => from + i));
          const one = storage.get(to)!;
          assert.equal(Number(new DataView(one.buffer, one.byteOffset + 16, 8).getBigUint64(0, true)), to);
          assert.equal(storage.get(count + 1), undefined);
        } finally {
          await storage.close();
        }
      }),
      { numRuns: 30 },
    );
  } finally {
    dir.remove();
  }
});

test('a turn longer than a block is split into blocks; truncating inside a block keeps its head', async () => {
  const dir = tempDir('journal-blocks-split');
  try {
    const count = await journalOf(dir.path, [MAX_BLOCK_RECORDS + 10, 5]);
    const storage = LmdbJournalStorage.open(dir.path);
    assert.deepEqual([...storage.blocks.getKeys()], [1, MAX_BLOCK_RECORDS + 1, MAX_BLOCK_RECORDS + 11]);
    await storage.truncateAfter(MAX_BLOCK_RECORDS + 3);
    assert.equal(storage.lastKey(), MAX_BLOCK_RECORDS + 3);
    await storage.close();
    const journal = await Journal.open(LmdbJournalStorage.open(dir.path), { logger: new CapturingLogger() });
    assert.equal(journal.lastSeq(), MAX_BLOCK_RECORDS + 3, 'the chain still verifies to the cut');
    assert.equal(journal.append(1, payloadFor(count)), MAX_BLOCK_RECORDS + 4, 'and appends continue after it');
    await journal.close();
  } finally {
    dir.remove();
  }
});

test('a data directory of the one-record-per-key layout is upgraded to blocks when opened for writing', async () => {
  const dir = tempDir('journal-blocks-upgrade');
  try {
    // Write a journal, then lay its records out the old way: key seq → one record.
    const count = await journalOf(dir.path, [30, 70]);
    const env = openEnvironment(dir.path);
    const options = { keyEncoder: seqKeyEncoder, encoding: 'binary' } as DatabaseOptions;
    const blocks = env.openDB<Uint8Array, number>('journal.blocks', options);
    const legacy = env.openDB<Uint8Array, number>('journal', options);
    const storage = new LmdbJournalStorage(env);
    const records = [...storage.range(1, count)].map((r) => Uint8Array.from(r));
    env.transactionSync(() => {
      records.forEach((r, i) => legacy.putSync(i + 1, r));
      blocks.clearSync();
    });
    await env.close();
    assert.throws(() => LmdbJournalStorage.open(dir.path, { readOnly: true }), /one-record-per-key layout; start the exchange on it once/);

    const journal = await Journal.open(LmdbJournalStorage.open(dir.path), { logger: new CapturingLogger() });
    assert.equal(journal.lastSeq(), count);
    assert.deepEqual(readAll(journal).map(([seq, kind]) => [seq, kind]), records.map((_, i) => [i + 1, KIND_OF(i + 1)]));
    await journal.close();
  } finally {
    dir.remove();
  }
});
