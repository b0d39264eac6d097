/**
 * @module sequencer/snapshot-thread
 *
 * The main thread's side of the snapshot thread (sequencer/snapshot-worker): starts it, asks it
 * for a snapshot at a journal seq and resolves once that snapshot is saved and flushed.
 *
 * Contract: `take(seq)` — `seq` must be a point where no command was in flight, flushed, and
 * covered by history (sequencer/snapshot-schedule makes it one); one request at a time.
 * A failure rejects with the thread's message; after a replay failure every later request
 * fails the same way (restart to rebuild the replica — start-up replays the same journal and
 * reports the same divergence if there is one).
 * A thread that ends without being asked to is logged once; the exchange runs on without
 * snapshots (the journal is the truth: a restart replays more of it) and every later `take`
 * fails at once — nothing waits on a thread that is gone.
 * May import: sequencer/snapshot-worker (types), transport/spawn-worker, node:worker_threads.
 */
import type { Worker } from 'node:worker_threads';
import type { SnapshotMessage, SnapshotReport, SnapshotThreadData } from './snapshot-worker.ts';
import { siblingModule, spawnWorker } from '../transport/spawn-worker.ts';

export interface SavedSnapshot {
  seq: number;
  bytes: number;
  /** Where the thread spent its time: replaying to `seq` (since it last followed), capturing (state, hashes, encoding), saving (and pruning). */
  ms: { replay: number; capture: number; save: number };
}

export interface SnapshotThreadLogger {
  error(fields: Record<string, unknown>, message: string): void;
}

export class SnapshotThread {
  private readonly thread: Worker;
  private pending: { resolve: (saved: SavedSnapshot) => void; reject: (error: Error) => void } | null = null;
  private closed: (() => void) | null = null;
  private exited = false;
  /** `close` or `terminate` was called: the thread's end is expected. */
  private ending = false;
  /**
   * Resolves once the thread has loaded its modules and opened the journal — or ended: a start
   * waits for it, so no exit meets the thread inside a native module's loading (which aborts the
   * process instead of letting it exit with its own status).
   */
  readonly ready: Promise<void>;
  private markReady: () => void = () => {};

  constructor(data: SnapshotThreadData, logger: SnapshotThreadLogger) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this.thread = spawnWorker(siblingModule('./snapshot-worker.ts', import.meta.url), { workerData: data });
    this.thread.on('message', (report: SnapshotReport) => {
      if (report.type === 'ready') this.markReady();
      else if (report.type === 'log') logger.error(report.fields, report.message);
      else if (report.type === 'closed') this.closed?.();
      else this.settle(report.type === 'saved' ? report : new Error(`snapshot at seq ${report.seq} failed: ${report.error}`));
    });
    let failure: Error | undefined;
    this.thread.on('error', (error) => {
      failure = error;
      this.settle(error);
    });
    this.thread.on('exit', (code) => {
      this.exited = true;
      this.markReady();
      if (!this.ending) logger.error({ err: failure, code }, 'snapshot thread stopped: no snapshots until a restart (the journal keeps everything)');
      this.settle(new Error('snapshot thread exited'));
    });
  }

  private settle(outcome: SavedSnapshot | Error): void {
    const pending = this.pending;
    this.pending = null;
    if (outcome instanceof Error) pending?.reject(outcome);
    else pending?.resolve(outcome);
  }

  /** Saves the snapshot at `seq` (see the module header for what `seq` must be). */
  take(seq: number): Promise<SavedSnapshot> {
    if (this.exited) return Promise.reject(new Error('snapshot thread exited (see the log); restart to take snapshots again'));
    if (this.pending !== null) return Promise.reject(new Error('snapshot thread: one snapshot at a time'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.thread.postMessage({ type: 'snapshot', seq } satisfies SnapshotMessage);
    });
  }

  /**
   * Records up to `seq` are flushed: the thread may replay them now. Only ever a seq at or
   * below every later `take` (the journal's flushed seq is).
   */
  follow(seq: number): void {
    if (!this.exited) this.thread.postMessage({ type: 'follow', seq } satisfies SnapshotMessage);
  }

  /** Closes the thread's LMDB handle and ends it. Call with no snapshot in progress. */
  async close(): Promise<void> {
    this.ending = true;
    if (this.exited) return;
    await new Promise<void>((resolve) => {
      this.closed = resolve;
      // A thread that dies meanwhile has nothing left to close.
      this.thread.once('exit', () => resolve());
      this.thread.postMessage({ type: 'close' } satisfies SnapshotMessage);
    });
    await this.thread.terminate();
  }

  /** Ends the thread at once (a start that failed). */
  async terminate(): Promise<void> {
    this.ending = true;
    await this.thread.terminate();
  }
}
