/**
 * @module sequencer/snapshot-schedule
 *
 * When snapshots are taken, the same on every node that keeps a journal (the primary's
 * pipeline, a replica, a standby): the snapshot thread (sequencer/snapshot-thread) follows the
 * flushed journal every second, so a snapshot replays little; every `intervalMs` (0: never),
 * on the operator's request and at a clean stop, one is taken at a seq where no command is in
 * flight, once that seq is flushed here and history has caught up with it (the next start
 * cannot begin from a snapshot history lacks). One at a time: the thread replays forward only.
 *
 * What differs between nodes is where the quiet points are (`SnapshotPoints`): the primary
 * pauses its sequencer until the commands in flight came back from the books; a replica applies
 * the primary's blocks, whose ends may fall inside a command's events, and uses the newest seq
 * its replay has nothing in flight at (`Replay.quietSeq`).
 *
 * Invariants: the thread is never told to follow past a seq a later snapshot is taken at (it
 * cannot go back): `followable()` is at or below every later `quiet()`, and nothing is followed
 * while a snapshot is under way (its seq was chosen before the follow's).
 * May import: sequencer/snapshot-thread, sequencer/snapshot-worker (types), journal/journal
 * (types), history/projections (types).
 */
import type { Journal } from '../journal/journal.ts';
import type { Projections } from '../history/projections.ts';
import { SnapshotThread } from './snapshot-thread.ts';
import type { SnapshotThreadData } from './snapshot-worker.ts';

/** Snapshots kept on disk: the newest and two older ones to fall back on. */
const SNAPSHOTS_KEPT = 3;
/** How often the snapshot thread is told how far the journal is flushed. */
const SNAPSHOT_FOLLOW_MS = 1000;

export interface SnapshotPoints {
  /** A seq with no command in flight, at or after every seq `followable` returned before (it may not be flushed yet). */
  quiet(): Promise<number>;
  /** The newest seq the thread may replay to now: flushed, and at or below every later `quiet()`. */
  followable(): number;
  /** Where a snapshot taken now would be (the newest quiet point so far): when it is the newest snapshot's, there is nothing new to save. */
  latest(): number;
}

export interface SnapshotScheduleLogger {
  debug(message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface SnapshotScheduleOptions {
  thread: Omit<SnapshotThreadData, 'keep'>;
  intervalMs: number;
  points: SnapshotPoints;
  journal: Pick<Journal, 'flushedHere'>;
  projections: Pick<Projections, 'allWritten'>;
  logger: SnapshotScheduleLogger;
  /** Called with a snapshot's whole time (from choosing its seq to saved), in seconds: metrics. */
  onSaved?: (seconds: number) => void;
}

export class SnapshotSchedule {
  private readonly thread: SnapshotThread;
  private readonly follower: NodeJS.Timeout;
  private readonly timer: NodeJS.Timeout | undefined;
  private followed = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** A snapshot is queued or under way: the timer adds none, the follower waits. */
  private pending = 0;
  /** The seq of the newest snapshot (the one started from, before any is taken here). */
  lastSeq: number;
  /** When this process last saved a snapshot (s, on `performance.now`: an age, which no clock step moves); null before its first (metrics). */
  lastAt: number | null = null;

  constructor(private readonly options: SnapshotScheduleOptions) {
    this.thread = new SnapshotThread({ ...options.thread, keep: SNAPSHOTS_KEPT }, options.logger);
    this.lastSeq = options.thread.startSeq;
    this.follow();
    this.follower = setInterval(() => this.follow(), SNAPSHOT_FOLLOW_MS);
    this.timer =
      options.intervalMs > 0
        ? setInterval(() => {
            if (this.pending > 0 || options.points.latest() === this.lastSeq) return;
            void this.take().catch(() => {});
          }, options.intervalMs)
        : undefined;
  }

  private follow(): void {
    if (this.pending > 0) return;
    const seq = this.options.points.followable();
    if (seq > this.followed) this.thread.follow((this.followed = seq));
  }

  /** The snapshot thread has loaded (or ended): see `SnapshotThread.ready`. */
  get ready(): Promise<void> {
    return this.thread.ready;
  }

  /** Takes a snapshot after the one under way, if any; resolves with its seq. */
  take(): Promise<number> {
    this.pending++;
    const run = this.queue.then(() => this.takeNow()).finally(() => this.pending--);
    this.queue = run.catch((error) => this.options.logger.error({ err: error }, 'snapshot failed'));
    return run;
  }

  private async takeNow(): Promise<number> {
    const { points, journal, projections, logger } = this.options;
    logger.debug('snapshot started');
    const started = performance.now();
    const seq = await points.quiet();
    const pausedMs = performance.now() - started;
    // S must be flushed (a snapshot never covers what a power cut could take back) and in
    // history (or the next start cannot begin from it); writes go on meanwhile. Flushed here is
    // enough: the snapshot is this machine's, and a stalled replication must not hold it.
    await journal.flushedHere(seq);
    await projections.allWritten();
    const saved = await this.thread.take(seq);
    this.followed = Math.max(this.followed, seq);
    this.lastSeq = seq;
    this.lastAt = performance.now() / 1000;
    this.options.onSaved?.((performance.now() - started) / 1000);
    logger.info({ seq, bytes: saved.bytes, pausedMs, ms: saved.ms }, 'snapshot saved');
    return seq;
  }

  /** Stops the timers (an abort: nothing is waited for). */
  halt(): void {
    clearInterval(this.follower);
    clearInterval(this.timer);
  }

  /**
   * Stops taking snapshots: waits for the one under way, takes a last one unless `snapshot` is
   * false or nothing was journaled since the newest, and ends the thread. A snapshot that fails
   * (its thread gone, say) is logged ('snapshot failed') and the stop goes on: the journal holds
   * everything; the next start replays more of it.
   */
  async close({ snapshot = true }: { snapshot?: boolean } = {}): Promise<void> {
    this.halt();
    await this.queue;
    if (snapshot && this.options.points.latest() !== this.lastSeq) await this.take().catch(() => {});
    await this.thread.close();
  }

  /** Ends the thread at once (a start that failed). */
  terminate(): Promise<void> {
    this.halt();
    return this.thread.terminate();
  }
}
