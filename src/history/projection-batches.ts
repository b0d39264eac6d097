/**
 * @module history/projection-batches
 *
 * When the records history/projections queues become a batch, and where the batch goes: during
 * start-up replay it is written here, in place, before anything else runs; once the exchange is
 * live (`startThread`) it is handed to the projection thread (history/projection-worker), which
 * reports each one written. Owns that thread's life (start, close, death, a failed write), the
 * hold that lets an idle thread's records gather, and the reads that wait for history.
 *
 * Invariants:
 *  - batches are written in the order they are made, and one at a time is in flight to the
 *    thread: what is queued meanwhile goes as one batch when it reports back, so under load each
 *    message (a copy and a wake-up of the thread) and each history transaction carries many
 *    turns' records;
 *  - a batch's seq is the journal's last seq when it was made (in replay: the last record
 *    applied), so it covers every record queued before it and no record it lacks;
 *  - a batch is written (replay) or sent (live) only once the journal has committed that seq
 *    (`JournalPosition.whenCommitted`): a kill -9 cannot leave history ahead of the journal —
 *    the restarted journal would hand the lost seqs and orderIds to new commands, and history
 *    would show both (docs/history.md "History never holds what the journal does not");
 *  - records wait at most `HOLD_MS` for an idle thread, and a read never waits for the hold: a
 *    read that must see them (`caughtUp`, `readable`) sends what is held at once, and a batch's
 *    report sends what a waiting read needs.
 * Backpressure: `behind()` names the reason to refuse new writes when the thread lags or failed.
 * Once the thread stopped, replies waiting for history get no answer (the journal holds their
 * commands; the process exits and the restart projects them), and `allWritten` rejects.
 *
 * May import: history/batch, history/history-wire, history/projection-worker (types),
 * history/projection-writer (types), transport/spawn-worker, lmdb (types).
 */
import type { RootDatabase } from 'lmdb';
import type { HistoryBatch, HistoryStore } from './batch.ts';
import { batchPacker } from './history-wire.ts';
import type { ProjectionThreadData } from './projection-worker.ts';
import type { ProjectionMessage, ProjectionReport } from './projection-writer.ts';
import { siblingModule, spawnWorker } from '../transport/spawn-worker.ts';

/**
 * What writes the batches once live: the projection thread, or (a test harness) a stand-in that
 * runs history/projection-writer on this thread and answers as the thread does, asynchronously.
 */
export interface ProjectionThread {
  postMessage(message: ProjectionMessage, transferList?: readonly ArrayBuffer[]): void;
  /** `message` (a `ProjectionReport`), `error`, `exit`: as a `Worker` emits them. */
  on(event: 'message' | 'error' | 'exit', listener: (value: any) => void): unknown;
  once(event: 'exit', listener: () => void): unknown;
  terminate(): Promise<number>;
}

/** What the batches need of the journal: how far it is appended, and when a seq is committed. */
export interface JournalPosition {
  lastSeq(): number;
  committedSeq(): number;
  whenCommitted(seq: number): Promise<void>;
}

/** Where the batches come from (history/projections) and whom they tell. */
export interface BatchSource {
  /** Records queued and not yet taken (a subaccount's events count one each): 0 exactly when no write is queued. */
  queuedRecords(): number;
  /** Every queued write and the transfer count they reach; the queue starts empty after. */
  take(): Pick<HistoryBatch, 'writes' | 'transferCount'>;
  /** The journal record replay is applying (`Number.MAX_SAFE_INTEGER` once live). */
  applying(): number;
  journal(): JournalPosition;
  /** The thread reported a batch written, and it is readable here (the candle feeds follow written history). */
  written(): void;
  /** The thread ended unasked or failed a write: called once (pipeline: fatal). */
  threadStopped(reason: string): void;
}

/** The projection thread (history/projection-worker) on the history environment at `data.path`. */
const spawnProjectionThread = (data: ProjectionThreadData): ProjectionThread => spawnWorker(siblingModule('./projection-worker.ts', import.meta.url), { workerData: data });

/** What a reply waits on once the projection thread stopped: it never settles. */
const NEVER = new Promise<void>(() => {});

const RESOLVED = Promise.resolve();

/** History records (a trade, a fill, one subaccount event…) that may wait for the projection thread before new commands are refused. */
const MAX_QUEUED_RECORDS = 200_000;

/**
 * How long records wait for more before they go to an idle projection thread (ms), when no read
 * waits for them. A history transaction costs mostly per B-tree page it copies and writes, and
 * the pages are the same for one record or fifty (each subaccount's entries sit together), so
 * bigger batches cost the thread less per order: bench:order-path, the thread's CPU per order
 * 42.0 · 42.5 · 43.5 µs sending at once against 29.0 · 31.0 · 27.0 µs holding 20 ms, the
 * server's 237 → 220 µs (three runs of each, alternated; docs/benchmarks.md); holding 100 ms
 * against 20: the thread's 38.3 · 39.6 · 47.5 µs against 61.7 · 56.3 · 62.9, the main thread's
 * history records 12.8 · 15.9 · 16.0 against 21.2 · 20.0 · 23.5 µs (fewer batches to pack), its
 * scavenges the same (4.83–4.92 per 1,000 orders). A read that must see the records
 * (`caughtUp`, `readable`) sends them at once, so no reply waits for the hold; only the candle
 * feeds, which follow written history, see it (at most this late).
 */
export const HOLD_MS = 100;
/** Queued records that end a hold at once: a transaction stays bounded however fast orders come. */
const HOLD_RECORDS = 5_000;

interface Waiter {
  seq: number;
  resolve(): void;
  reject(error: Error): void;
}

export class ProjectionBatches {
  private thread: ProjectionThread | null = null;
  /** Packs the batches for the one thread `startThread` starts (history/history-wire: a stream per thread). */
  private readonly packBatch = batchPacker();
  /** Seq of the newest batch written (in replay) or reported written by the thread. */
  private writtenSeq = 0;
  /** A batch was handed to the thread and not yet reported written (one at a time). */
  private batchInFlight = false;
  private waiters: Waiter[] = [];
  private failure: Error | null = null;
  /** The projection thread stopped (it died, or a write failed on it): see `threadStopped`. */
  private threadGone = false;
  private closed: (() => void) | null = null;
  private scheduled = false;
  /** Ends the current hold (`hold`): set while records wait for more before going to the idle thread. */
  private holdTimer: ReturnType<typeof setTimeout> | null = null;
  /** A `flush(true)` was asked for while a batch was in flight: the next batch moves the position even if empty. */
  private positionOwed = false;
  /** `close` or `terminate` was called: the thread's end is expected. */
  private ending = false;
  /** Rejects when the projection thread stops (what `allWritten` waits on beside the position). */
  private readonly stopped: Promise<never>;
  private stop: (error: Error) => void = () => {};

  constructor(
    private readonly env: RootDatabase,
    private readonly store: HistoryStore,
    private readonly source: BatchSource,
  ) {
    this.stopped = new Promise<never>((_, reject) => (this.stop = reject));
    // Nobody may be waiting when the thread stops: that is not an unhandled rejection.
    this.stopped.catch(() => {});
  }

  private nothingQueued(): boolean {
    return this.source.queuedRecords() === 0;
  }

  /** From now on batches are written by the projection thread (`spawn` starts it). Call once replay is done. */
  startThread(path: string, spawn: (data: ProjectionThreadData) => ProjectionThread = spawnProjectionThread): void {
    if (this.thread !== null) throw new Error('projections: the projection thread is started once');
    this.flush();
    this.thread = spawn({ path });
    this.thread.on('message', (report: ProjectionReport) => this.onReport(report));
    this.thread.on('error', (error) => this.threadStopped(`projection thread failed: ${error.message}`));
    this.thread.on('exit', (code) => this.threadStopped(`projection thread exited (code ${code})`));
    // What replay left uncommitted goes as the thread's first batch, once the journal commits it.
    this.flush();
  }

  /**
   * Writes what is queued: in replay at the end of this event-loop turn, one batch for the whole
   * turn; live after a hold of `HOLD_MS` (sooner when a read waits or `HOLD_RECORDS` are queued),
   * or when the batch in flight is reported, whichever is later.
   */
  flushSoon(): void {
    if (this.nothingQueued()) return;
    if (this.thread !== null && (this.batchInFlight || this.holdTimer !== null)) return;
    if (this.thread !== null && this.waiters.length === 0 && this.source.queuedRecords() < HOLD_RECORDS) {
      this.hold();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Lets records gather for `HOLD_MS`, then writes them (see `HOLD_MS`). */
  private hold(): void {
    if (this.holdTimer !== null) return;
    this.holdTimer = setTimeout(() => {
      this.holdTimer = null;
      this.flush();
    }, HOLD_MS);
  }

  private endHold(): void {
    if (this.holdTimer === null) return;
    clearTimeout(this.holdTimer);
    this.holdTimer = null;
  }

  /**
   * Makes a batch of everything queued, covering the journal up to now, and writes it (replay)
   * or hands it to the projection thread (live). With `markDone` a batch is made even when
   * nothing is queued: records that project to nothing (ticks, index prices) are covered too.
   */
  flush(markDone = false): void {
    if (this.nothingQueued() && !markDone) return;
    if (this.thread !== null && this.batchInFlight) {
      this.positionOwed ||= markDone;
      return;
    }
    const journal = this.source.journal();
    // Live, a batch covers the journal up to now. In replay (no thread yet) it covers only the
    // records applied so far (`applying`, the last one applied when `onBatch` calls): the
    // journal's end is still ahead, and a start killed before it must not leave history
    // claiming records it never wrote — the next start would skip them for good.
    const seq = this.thread === null ? Math.min(journal.lastSeq(), this.source.applying()) : journal.lastSeq();
    // Replay writes here, at once: what the journal has not committed yet (events replay added
    // at its end) waits in the queue for the first batch of the thread, which waits for it.
    if (this.thread === null && seq > journal.committedSeq()) return;
    this.endHold();
    const { transferCount, writes } = this.source.take();
    const batch: HistoryBatch = { seq, transferCount, writes };
    if (this.thread === null) {
      this.store.write(batch);
      this.writtenSeq = batch.seq;
      return;
    }
    this.batchInFlight = true;
    this.positionOwed = false;
    const bytes = this.packBatch(batch);
    const thread = this.thread;
    const post = () => thread.postMessage({ type: 'batch', bytes } satisfies ProjectionMessage, [bytes.buffer]);
    if (seq <= journal.committedSeq()) post();
    else journal.whenCommitted(seq).then(post, (error: Error) => this.fail(error));
  }

  /**
   * Resolves when every history record of the journal up to `seq` is written (and readable
   * here): at once when nothing up to it is still queued or in flight.
   */
  caughtUp(seq: number): Promise<void> {
    // A reply to a command accepted just before the thread stopped waits like those already
    // waiting (`threadStopped`): no answer, not a 500 — the journal holds it, the restart applies it.
    if (this.threadGone) return NEVER;
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.nothingQueued() && (!this.batchInFlight || seq <= this.writtenSeq)) return RESOLVED;
    const written = new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    // A reader waits: what is held goes now (with a batch in flight, at its report).
    if (this.thread !== null && !this.batchInFlight) this.flush();
    return written;
  }

  /**
   * For a read that must see every write acknowledged before it (read-your-writes): null when
   * history holds every record up to `seq` (the journal's flushed position when the read came),
   * else a promise that resolves once it does. Replies to writes wait for the journal only.
   */
  readable(seq: number): Promise<void> | null {
    if (seq <= this.writtenSeq || (this.nothingQueued() && !this.batchInFlight)) return null;
    return this.caughtUp(seq);
  }

  /** Journal records whose history is not written yet: 0 when nothing is queued or in flight (metrics). */
  lag(): number {
    if (this.nothingQueued() && !this.batchInFlight) return 0;
    return Math.max(0, this.source.journal().lastSeq() - this.writtenSeq);
  }

  /** Why new writes should be refused now, or null. */
  behind(): string | null {
    if (this.failure !== null) return 'history cannot be written';
    return this.source.queuedRecords() > MAX_QUEUED_RECORDS ? 'history is behind' : null;
  }

  /**
   * Resolves once everything journaled so far is written; rejects if the projection thread stops
   * first (a snapshot or a stop waiting here must not wait for ever — replies waiting for history
   * get no answer instead, see `threadStopped`).
   */
  allWritten(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    this.flush(true);
    return Promise.race([this.caughtUp(this.source.journal().lastSeq()), this.stopped]);
  }

  /** Writes what is left, then stops the projection thread. */
  async close(): Promise<void> {
    await this.allWritten();
    const thread = this.thread;
    if (thread === null) return;
    this.ending = true;
    await new Promise<void>((resolve) => {
      this.closed = resolve;
      // A thread that dies while closing never reports `closed`: its exit ends the wait too.
      thread.once('exit', () => resolve());
      thread.postMessage({ type: 'close' } satisfies ProjectionMessage);
    });
    await thread.terminate();
    this.thread = null;
  }

  /** Ends the projection thread at once, whatever it was writing (a start that failed). */
  async terminate(): Promise<void> {
    this.ending = true;
    this.endHold();
    await this.thread?.terminate();
  }

  /** The thread died, or lives on writing nothing: the same end for the exchange. */
  private threadStopped(reason: string): void {
    if (this.ending) return;
    this.ending = true;
    // New writes are refused from now on (`behind`). The replies already waiting for history get
    // no answer, not a 500: their commands are in the journal, the process exits (pipeline
    // `failed`) and the restart applies them — as after kill -9, the journal is their outcome.
    this.failure ??= new Error(reason);
    this.threadGone = true;
    this.endHold();
    this.stop(this.failure);
    this.source.threadStopped(reason);
  }

  private onReport(report: ProjectionReport): void {
    if (report.type === 'closed') {
      this.closed?.();
      return;
    }
    if (report.type === 'failed') {
      this.threadStopped(`history write failed: ${report.error}`);
      return;
    }
    this.batchInFlight = false;
    this.writtenSeq = report.seq;
    // lmdb-js keeps a read transaction open on this thread: renew it, so reads see the batch.
    this.env.resetReadTxn();
    // What was queued while this batch was written goes as one batch: now if a reader waits for
    // it (or a position is owed, or much is queued), else after a hold.
    if (this.positionOwed || this.source.queuedRecords() >= HOLD_RECORDS || this.waiters.some((w) => w.seq > report.seq)) this.flush(this.positionOwed);
    else if (!this.nothingQueued()) this.hold();
    const all = !this.batchInFlight && this.nothingQueued();
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      if (all || w.seq <= report.seq) w.resolve();
      else this.waiters.push(w);
    }
    this.source.written();
  }

  /** The journal could not commit what a batch covers: new writes are refused (`behind`) and every waiting read rejects. */
  private fail(error: Error): void {
    this.failure ??= error;
    this.endHold();
    this.stop(this.failure);
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.reject(this.failure);
  }
}
