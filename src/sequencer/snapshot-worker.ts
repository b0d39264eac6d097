/**
 * @module sequencer/snapshot-worker
 *
 * The snapshot thread: holds the `SnapshotReplica`, and for each request replays the journal
 * up to the asked seq, captures, hashes, encodes, checksums and saves the snapshot (flushed),
 * tied to the journal by its chain value of that seq's record (journal/snapshot-tie),
 * then prunes old ones — all the work that grows with the number of accounts, off the main
 * thread. It opens the journal's LMDB environment itself (lmdb-js shares it between threads)
 * and reads only records the main thread says are flushed; it never writes to it: snapshots are
 * files of `DIR/snapshots` (journal/snapshots), so the journal's environment has one writer
 * thread (two writers' freelist churn aborted lmdb-js's LMDB: docs/journal.md, "Snapshots").
 *
 * Between snapshots it follows the journal (`{ type: 'follow', seq }`: records up to `seq` are
 * flushed), so a snapshot replays only what came since the last follow, and the work is
 * spread out instead of arriving all at once every interval.
 *
 * Messages in: `{ type: 'snapshot', seq }` (one at a time), `follow`, `{ type: 'close' }`. Out:
 * `{ type: 'saved', seq, bytes, ms }`, `{ type: 'failed', seq, error }` (a replay divergence
 * or a storage error; the replica is not used again), `{ type: 'log', … }`, `{ type: 'closed' }`.
 * May import: config/market (types), journal/ (journal, lmdb-storage, snapshots, record),
 * sequencer/snapshot-replica, sequencer/snapshot-codec, node:worker_threads, app/exchange (types).
 * lmdb only through journal/.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { MarketSpec } from '../config/market.ts';
import { Journal, type JournalLogger } from '../journal/journal.ts';
import { LmdbJournalStorage, openEnvironment } from '../journal/lmdb-storage.ts';
import { Snapshots } from '../journal/snapshots.ts';
import { storedChain } from '../journal/record.ts';
import type { ExchangeOptions } from '../app/exchange.ts';
import { decodeSnapshot } from './snapshot-codec.ts';
import { SnapshotReplica, type CapturedSnapshot } from './snapshot-replica.ts';

export interface SnapshotThreadData {
  /** The journal's LMDB environment (`<data dir>/journal`), read only. */
  journalDir: string;
  /** Where the snapshot files are (`<data dir>/snapshots`: the data directory's `snapshots.dir`). */
  snapshotsDir: string;
  /** The markets the main thread's exchange started under (a snapshot that carries its own markets is restored under those). */
  markets: MarketSpec[];
  options: ExchangeOptions;
  /** The snapshot the main thread started from (0: none, an empty exchange). */
  startSeq: number;
  /** Snapshots kept after a save. */
  keep: number;
}

export type SnapshotMessage = { type: 'snapshot'; seq: number } | { type: 'follow'; seq: number } | { type: 'close' };
export type SnapshotReport =
  | { type: 'saved'; seq: number; bytes: number; ms: { replay: number; capture: number; save: number } }
  | { type: 'failed'; seq: number; error: string }
  | { type: 'log'; level: 'info' | 'error'; fields: Record<string, unknown>; message: string }
  | { type: 'closed' }
  | { type: 'ready' };

const port = parentPort!;
const data = workerData as SnapshotThreadData;
const report = (message: SnapshotReport): void => port.postMessage(message);
const logger: JournalLogger = {
  info: () => {},
  error: (fields, message) => report({ type: 'log', level: 'error', fields, message }),
};

const env = openEnvironment(data.journalDir);
const storage = new LmdbJournalStorage(env, false, true);
const snapshots = new Snapshots(data.snapshotsDir, { logger });
// Loaded, LMDB open: from here the process may end at any moment. Ended while still loading a
// native module, a worker thread aborts the whole process (SIGABRT instead of a fatal's exit 70).
report({ type: 'ready' });
let replica: SnapshotReplica | undefined;
let failure: string | null = null;

/** The replica, built on first use from the snapshot the main thread started from. */
function replicaOf(): SnapshotReplica {
  if (replica !== undefined) return replica;
  let from: { seq: number; saved: ReturnType<typeof decodeSnapshot> } | undefined;
  if (data.startSeq > 0) {
    for (const candidate of snapshots.validNewestFirst()) {
      if (candidate.seq === data.startSeq) from = { seq: candidate.seq, saved: decodeSnapshot(candidate.bytes) };
      if (candidate.seq <= data.startSeq) break;
    }
    if (from === undefined) throw new Error(`the snapshot at seq ${data.startSeq} the exchange started from is gone`);
  }
  replica = new SnapshotReplica(data.markets, data.options, from);
  return replica;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Replays the journal up to `seq` (flushed records only). A failure leaves the replica in no known state. */
async function advance(seq: number): Promise<SnapshotReplica> {
  if (failure !== null) throw new Error(failure);
  try {
    const target = replicaOf();
    if (seq > target.seq) {
      // Records the main thread committed since this thread last read are visible after a reset.
      env.resetReadTxn();
      const journal = await Journal.open(storage, { readOnly: true, verifyFrom: seq, upTo: seq, logger });
      target.advance(journal, seq);
    }
    return target;
  } catch (error) {
    failure = messageOf(error);
    throw error;
  }
}

async function take(seq: number): Promise<void> {
  const t0 = performance.now();
  const target = await advance(seq);
  const t1 = performance.now();
  let captured: CapturedSnapshot;
  try {
    captured = target.capture();
  } catch (error) {
    failure = messageOf(error);
    throw error;
  }
  const t2 = performance.now();
  // Tied to this journal by its chain value of record `seq` (journal/snapshot-tie), read from the
  // record itself: the replica replayed it from this environment, whose read transaction holds it.
  const tie = storedChain(storage.get(captured.seq), captured.seq);
  if (tie === undefined) throw new Error(`journal record ${captured.seq} the snapshot was taken after cannot be read whole`);
  await snapshots.save(captured.seq, captured.stateHash, captured.bytes, tie);
  await snapshots.prune(data.keep);
  report({ type: 'saved', seq, bytes: captured.bytes.length, ms: { replay: t1 - t0, capture: t2 - t1, save: performance.now() - t2 } });
}

// One piece of work at a time, in the order asked; follow requests that pile up meanwhile
// collapse into the newest.
let work: Promise<void> = Promise.resolve();
let followTo = 0;
let followQueued = false;

port.on('message', (message: SnapshotMessage) => {
  if (message.type === 'close') {
    work = work.then(() => env.close()).then(() => report({ type: 'closed' }));
    return;
  }
  if (message.type === 'follow') {
    followTo = Math.max(followTo, message.seq);
    if (followQueued) return;
    followQueued = true;
    work = work.then(() => {
      followQueued = false;
      // A replica that failed stays failed; the next snapshot request reports why.
      return failure === null ? advance(followTo).then(() => {}, () => {}) : undefined;
    });
    return;
  }
  const seq = message.seq;
  work = work.then(() => take(seq).catch((error: unknown) => report({ type: 'failed', seq, error: messageOf(error) })));
});
