import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Journal } from '../../src/journal/journal.ts';
import { LmdbJournalStorage } from '../../src/journal/lmdb-storage.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { CapturingLogger, payloadFor, tempDir } from './fixtures/journal-fixtures.ts';

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

test('durable(seq) resolves only after the storage flushes that record, not at append or commit', async () => {
  const disk = new SimulatedJournalStorage();
  const journal = await Journal.open(disk, { logger: new CapturingLogger() });
  const first = journal.append(1, payloadFor(1));
  const second = journal.append(1, payloadFor(2));
  const resolved: number[] = [];
  void journal.durable(first).then(() => resolved.push(first));
  void journal.durable(second).then(() => resolved.push(second));
  await turns(5);
  assert.deepEqual(resolved, [], 'nothing is durable before a flush');
  disk.flush(1); // only the first write reached the disk: the group's sync is not complete
  await turns(5);
  assert.deepEqual(resolved, []);
  disk.flush();
  await turns(2);
  assert.deepEqual(resolved, [first, second]);
});

test('with LMDB, durable(seq) waits for lmdb-js `flushed`, not for the commit', async () => {
  const dir = tempDir('journal-durable');
  try {
    const storage = LmdbJournalStorage.open(dir.path);
    const journal = await Journal.open(storage, { logger: new CapturingLogger() });
    // Gate lmdb-js's `flushed`: the journal must not resolve until the real flush AND the gate.
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const realFlushed = storage.blocks.flushed;
    let flushedTaken = 0;
    Object.defineProperty(storage.blocks, 'flushed', {
      configurable: true,
      get: () => {
        flushedTaken++;
        return Promise.all([realFlushed, gate]);
      },
    });
    const seq = journal.append(1, payloadFor(1));
    let durable = false;
    void journal.durable(seq).then(() => (durable = true));
    await storage.blocks.committed; // the transaction is committed (visible) …
    await turns(3);
    assert.equal(storage.get(seq) !== undefined, true, 'committed and readable');
    assert.equal(durable, false, '… yet not acknowledged: the flush has not been reported');
    assert.ok(flushedTaken >= 1, 'the journal asked lmdb-js for `flushed`');
    openGate();
    await turns(3);
    await journal.durable(seq);
    assert.equal(durable, true);
    delete (storage.blocks as unknown as Record<string, unknown>).flushed;
    await journal.close();
  } finally {
    dir.remove();
  }
});

test('one group commit per event-loop turn: one sync for a burst of appends', async () => {
  const disk = new SimulatedJournalStorage({ autoFlush: true });
  let syncs = 0;
  const sync = disk.sync.bind(disk);
  disk.sync = () => {
    syncs++;
    return sync();
  };
  const journal = await Journal.open(disk, { logger: new CapturingLogger() });
  for (let n = 1; n <= 1000; n++) journal.append(1, payloadFor(n));
  await journal.durable(1000);
  assert.equal(syncs, 1);
});
