import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Journal } from '../../src/journal/journal.ts';
import { LmdbJournalStorage } from '../../src/journal/lmdb-storage.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { CapturingLogger, KIND_OF, payloadFor, readAll, tempDir } from './fixtures/journal-fixtures.ts';

const COUNT = 2_000;

test('appended records come back in order after a reopen of the LMDB journal, whole and by range', async () => {
  const dir = tempDir('journal-append');
  try {
    const logger = new CapturingLogger();
    const journal = await Journal.open(LmdbJournalStorage.open(dir.path), { logger });
    assert.equal(journal.lastSeq(), 0);
    let last = 0;
    for (let n = 1; n <= COUNT; n++) {
      last = journal.append(KIND_OF(n), payloadFor(n));
      if (n % 500 === 0) await new Promise((r) => setImmediate(r)); // several group commits
    }
    assert.equal(last, COUNT);
    await journal.durable(last);
    assert.equal(journal.flushedSeq(), COUNT);
    await journal.close();

    const reopened = await Journal.open(LmdbJournalStorage.open(dir.path), { logger });
    assert.equal(reopened.lastSeq(), COUNT);
    const all = readAll(reopened);
    assert.equal(all.length, COUNT);
    all.forEach(([seq, kind, payload], i) => {
      assert.equal(seq, i + 1);
      assert.equal(kind, KIND_OF(i + 1));
      assert.deepEqual(payload, payloadFor(i + 1));
    });
    // A feed resume: from a seq in the middle, to a bound.
    assert.deepEqual(readAll(reopened, 1234, 1240).map(([seq]) => seq), [1234, 1235, 1236, 1237, 1238, 1239, 1240]);
    // Appends continue the sequence and the chain after a reopen.
    const next = reopened.append(7, payloadFor(COUNT + 1));
    assert.equal(next, COUNT + 1);
    await reopened.close();
    const third = await Journal.open(LmdbJournalStorage.open(dir.path), { logger, verifyFrom: COUNT - 10 });
    assert.equal(third.lastSeq(), COUNT + 1);
    assert.deepEqual(readAll(third, COUNT + 1)[0][2], payloadFor(COUNT + 1));
    await third.close();
    assert.equal(logger.errors.length, 0);
  } finally {
    dir.remove();
  }
});

test('a payload slice is journaled exactly and the caller may reuse its buffer at once', async () => {
  const disk = new SimulatedJournalStorage({ autoFlush: true });
  const journal = await Journal.open(disk, { logger: new CapturingLogger() });
  const buffer = Uint8Array.of(9, 1, 2, 3, 9);
  const seq = journal.append(3, buffer, 1, 3);
  buffer.fill(0);
  await journal.durable(seq);
  assert.deepEqual(readAll(journal), [[1, 3, Uint8Array.of(1, 2, 3)]]);
  assert.deepEqual(readAll(journal, 5, 9), []);
});
