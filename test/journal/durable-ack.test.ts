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
    // The transaction is committed (visible) … The journal issues it at the end of the turn and
    // lmdb-js commits it on its writer thread, so wait for it rather than for a fixed number of
    // turns (a loaded machine takes longer).
    const deadline = Date.now() + 5000;
    while (storage.get(seq) === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1));
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

/** A simulated disk that counts the journal's `sync` calls. */
function countingDisk(options: { autoFlush?: boolean } = {}): { disk: SimulatedJournalStorage; syncs: () => number } {
  const disk = new SimulatedJournalStorage(options);
  let syncs = 0;
  const sync = disk.sync.bind(disk);
  disk.sync = () => {
    syncs++;
    return sync();
  };
  return { disk, syncs: () => syncs };
}

test('one group commit per event-loop turn: one sync for a burst of appends', async () => {
  const { disk, syncs } = countingDisk({ autoFlush: true });
  const journal = await Journal.open(disk, { logger: new CapturingLogger() });
  for (let n = 1; n <= 1000; n++) journal.append(1, payloadFor(n));
  await journal.durable(1000);
  assert.equal(syncs(), 1);
});

test('one flush at a time: records appended while a flush is in flight share the next one', async () => {
  const { disk, syncs } = countingDisk();
  const journal = await Journal.open(disk, { logger: new CapturingLogger() });
  const first = journal.append(1, payloadFor(1));
  await turns(2);
  assert.equal(syncs(), 1, 'the first turn with an append starts a flush');
  // Three more turns append while that flush is in flight: no new flush yet.
  const later: number[] = [];
  for (let i = 2; i <= 4; i++) {
    later.push(journal.append(1, payloadFor(i)));
    await turns(1);
  }
  assert.equal(syncs(), 1, 'no second flush while the first is in flight');
  const resolved: number[] = [];
  for (const seq of [first, ...later]) void journal.durable(seq).then(() => resolved.push(seq));
  disk.flush(1);
  await turns(2);
  assert.deepEqual(resolved, [first], 'the first flush covers only the first record');
  assert.equal(syncs(), 2, 'when it lands, one flush starts for everything appended meanwhile');
  disk.flush();
  await turns(2);
  assert.deepEqual(resolved, [first, ...later]);
  assert.equal(syncs(), 2);
});
