import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { Projections } from '../../src/history/projections.ts';
import { HOLD_MS } from '../../src/history/projection-batches.ts';
import { Journal } from '../../src/journal/journal.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { HISTORY_ENV_OPTIONS } from '../../src/history/history-env.ts';
import { HistoryReader } from '../../src/history/reader.ts';
import { openHistoryDatabases } from '../../src/history/store.ts';
import { Side } from '../../src/engine/types.ts';
import { ALICE_BUY_20_AT_95000_FILLED, T0 } from '../fixtures/orders.ts';
import { marketNo, orderNo } from '../fixtures/ids.ts';

function tempHistory() {
  const path = mkdtempSync(join(tmpdir(), 'projections-test-'));
  const env = open({ path, ...HISTORY_ENV_OPTIONS });
  after(async () => {
    await env.close();
    rmSync(path, { recursive: true, force: true });
  });
  return { path, env, reader: new HistoryReader(openHistoryDatabases(env)) };
}

/** Projections writing on their thread into a fresh history; `journal.seq` is the journal position they read. */
function liveProjections() {
  const h = tempHistory();
  const projections = new Projections(h.env);
  const journal = { seq: 0 };
  projections.journal = { lastSeq: () => journal.seq, committedSeq: () => journal.seq, whenCommitted: async () => {} };
  projections.startThread(h.path);
  // A test that fails before its close() would leave the thread running, and the file would never end.
  after(() => projections.terminate());
  return { h, projections, journal };
}

test('once the projection thread dies, a reply waiting for history gets no answer (not a 500) and settle() rejects (a stop or a snapshot must not wait for ever)', async () => {
  const { projections, journal } = liveProjections();
  let stopped = '';
  projections.onThreadStopped = (reason) => (stopped = reason);
  const { trade } = projections.listeners();
  // The thread ends on its own, as a crash would (not through close/terminate).
  const thread = (projections as unknown as { batches: { thread: { terminate(): Promise<number> } } }).batches.thread;
  await thread.terminate();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.match(stopped, /^projection thread exited/);
  // A command accepted just before the death was noticed: its history is queued, its reply waits.
  journal.seq = 1;
  trade!(marketNo(0), 1, T0 + 1, 950_000, 1, Side.Buy);
  const reply = projections.caughtUp(1).then(() => 'resolved', () => 'rejected');
  const outcome = await Promise.race([reply, new Promise((resolve) => setTimeout(() => resolve('no answer'), 200))]);
  assert.equal(outcome, 'no answer');
  await assert.rejects(projections.allWritten(), /projection thread exited/);
});

test('on the projection thread: caughtUp resolves once the batch is written and readable here', async () => {
  const { h, projections, journal } = liveProjections();
  assert.deepEqual(h.reader.trades(marketNo(0), { limit: 100 }), [], 'a read before: this thread now holds a read transaction');
  const { trade, orderChanged } = projections.listeners();
  for (let i = 1; i <= 50; i++) {
    journal.seq = i;
    trade!(marketNo(0), i, T0 + i, 950_000 + i, 1, Side.Buy);
    orderChanged!({ ...ALICE_BUY_20_AT_95000_FILLED, orderId: orderNo(100 + i), status: 'new', remaining: 20, filled: 0, updatedAt: T0 + i });
    projections.flushSoon();
    if (i % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await projections.caughtUp(journal.seq);
  assert.equal(h.reader.trades(marketNo(0), { limit: 100 }).length, 50, 'every trade readable on this thread');
  assert.equal(h.reader.order(orderNo(150))?.status, 'new');
  assert.equal(projections.behind(), null);
  await projections.close();
  assert.equal(new Projections(h.env).projectedSeq, 50, 'the position reached is stored with the batch');
});

test('readable (a read after a reply): null when history holds the position, else a wait that ends once the batch covering it is readable here', async () => {
  const { h, projections, journal } = liveProjections();
  assert.equal(projections.readable(0), null, 'nothing journaled: no wait');
  const { trade } = projections.listeners();
  journal.seq = 1;
  trade!(marketNo(0), 1, T0 + 1, 950_000, 1, Side.Buy);
  const wait = projections.readable(1);
  assert.notEqual(wait, null, 'a trade queued for history: a read of seq 1 waits');
  projections.flushSoon();
  await wait;
  assert.equal(h.reader.trades(marketNo(0), { limit: 10 }).length, 1, 'the read after the wait sees the trade');
  assert.equal(projections.readable(1), null, 'written: no wait');
  // A later record queued does not hold back a read of what is already written.
  journal.seq = 2;
  trade!(marketNo(0), 2, T0 + 2, 950_000, 1, Side.Buy);
  assert.equal(projections.readable(1), null);
  assert.notEqual(projections.readable(2), null);
  await projections.close();
});

/** Counts the batches `projections` posts to its thread. */
function countBatches(projections: Projections): { readonly count: number } {
  const thread = (projections as unknown as { batches: { thread: { postMessage(message: { type: string }, transfer?: unknown): void } } }).batches.thread;
  const post = thread.postMessage.bind(thread);
  const counted = { count: 0 };
  thread.postMessage = (message, transfer) => {
    if (message.type === 'batch') counted.count++;
    post(message, transfer);
  };
  return counted;
}

/** Five turns that each report a trade (seqs 1..5), as the sequencer would. */
async function fiveTurnsOfTrades(projections: Projections, journal: { seq: number }): Promise<void> {
  const { trade } = projections.listeners();
  for (let turn = 1; turn <= 5; turn++) {
    journal.seq = turn;
    trade!(marketNo(0), turn, T0 + turn, 950_000 + turn, 1, Side.Sell);
    projections.flushSoon();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('an idle thread and no reader: the records of many turns wait for the hold and go as one batch', async () => {
  const { h, projections, journal } = liveProjections();
  const batches = countBatches(projections);
  await fiveTurnsOfTrades(projections, journal);
  assert.equal(batches.count, 0, 'held: nothing sent within the turns');
  await new Promise((resolve) => setTimeout(resolve, HOLD_MS * 5));
  assert.equal(batches.count, 1, 'the five turns as one batch once the hold ended');
  await projections.caughtUp(journal.seq);
  assert.equal(h.reader.trades(marketNo(0), { limit: 10 }).length, 5, 'every trade written');
  await projections.close();
});

test('a read cuts the hold: what it must see is sent at once, not after the hold', async () => {
  const { h, projections, journal } = liveProjections();
  const batches = countBatches(projections);
  await fiveTurnsOfTrades(projections, journal);
  const wait = projections.readable(journal.seq);
  assert.notEqual(wait, null);
  assert.equal(batches.count, 1, 'sent as the read asked, in the same turn');
  await wait;
  assert.equal(h.reader.trades(marketNo(0), { limit: 10 }).length, 5);
  await projections.close();
});

test('one batch in flight: what later turns report while the thread writes goes as one batch, at once if a reader waits for it', async () => {
  const { h, projections, journal } = liveProjections();
  const batches = countBatches(projections);
  const { trade } = projections.listeners();
  journal.seq = 1;
  trade!(marketNo(0), 1, T0 + 1, 950_000, 1, Side.Sell);
  // A reader sends the first at once (the thread is still starting: it stays in flight a while).
  const first = projections.caughtUp(1);
  assert.equal(batches.count, 1);
  for (let turn = 2; turn <= 5; turn++) {
    journal.seq = turn;
    trade!(marketNo(0), turn, T0 + turn, 950_000 + turn, 1, Side.Sell);
    projections.flushSoon();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const rest = projections.caughtUp(journal.seq);
  assert.equal(batches.count, 1, 'nothing more while the first is in flight');
  await first;
  assert.equal(batches.count, 2, 'the four turns as one batch, sent at the report because a reader waits');
  await rest;
  assert.equal(h.reader.trades(marketNo(0), { limit: 10 }).length, 5, 'every trade written');
  await projections.close();
});

test('history is written only once the journal has committed what it covers: a crash never leaves it ahead', async () => {
  const h = tempHistory();
  const disk = new SimulatedJournalStorage();
  const journal = await Journal.open(disk, { logger: { info: () => {}, error: () => {} } });
  const projections = new Projections(h.env);
  projections.journal = journal;
  projections.startThread(h.path);
  // A first record, committed, so the thread is up and writing before the one that matters.
  journal.append(1, Uint8Array.of(1));
  projections.listeners().trade!(marketNo(0), 1, T0, 950_000, 1, Side.Buy);
  projections.flushSoon();
  await new Promise((resolve) => setImmediate(resolve));
  disk.flush();
  await projections.caughtUp(1);
  const seq = journal.append(1, Uint8Array.of(2));
  projections.listeners().trade!(marketNo(0), 2, T0, 950_000, 1, Side.Buy);
  projections.flushSoon();
  // The batch is ready long before the disk commits the record; it must wait for it.
  const committedWhenWritten = projections.caughtUp(seq).then(() => journal.committedSeq());
  await new Promise((resolve) => setTimeout(resolve, 300));
  h.env.resetReadTxn();
  assert.equal(new Projections(h.env).projectedSeq, 1, 'history holds a record the journal has not committed');
  disk.flush();
  assert.equal(await committedWhenWritten, seq);
  h.env.resetReadTxn();
  assert.equal(new Projections(h.env).projectedSeq, seq);
  await projections.close();
});

test('a start-up replay cut short (kill -9 during a history rebuild) leaves history at the last record it projected, not at the journal\'s end: the next start projects the rest', async () => {
  const h = tempHistory();
  // The journal holds 100 records; replay projects them one by one, writing a batch every 40 (as `onBatch` does every 4,096).
  const replayOnce = (upTo: number) => {
    const projections = new Projections(h.env);
    projections.journal = { lastSeq: () => 100, committedSeq: () => 100, whenCommitted: async () => {} };
    const { trade } = projections.listeners();
    for (let seq = 1; seq <= upTo; seq++) {
      projections.applying = seq;
      trade!(marketNo(0), seq, T0 + seq, 950_000 + seq, 1, Side.Buy);
      if (seq % 40 === 0) projections.flush();
    }
    return projections;
  };
  // The first start is killed after record 50: its batch at 40 is written, 41–50 are not.
  replayOnce(50);
  h.env.resetReadTxn();
  assert.equal(new Projections(h.env).projectedSeq, 40, "history's position is the last record it projected, not the journal's end (it holds only records 1–40)");
  // The next start replays all of it, skipping what history holds.
  const again = replayOnce(100);
  again.applying = Number.MAX_SAFE_INTEGER;
  again.flush(true);
  h.env.resetReadTxn();
  assert.equal(h.reader.trades(marketNo(0), { limit: 1000 }).length, 100, 'every trade of the journal is in history');
});
