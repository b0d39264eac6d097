/**
 * @module sequencer/start-up-replay
 *
 * A serving process's start-up replay: the journal after the snapshot the exchange starts from
 * (sequencer/start-state), replayed into it with `recoverPausing` while the listener answers.
 * `progress()` is what GET /ready says meanwhile; a progress line is logged every
 * REPLAY_PROGRESS_MS; the gauges show how far it is. When it returns, everything it replayed
 * (and every event it recovered) is durable and history has been handed all of it.
 * May import: sequencer/, app/exchange (types), journal/journal (types), history/projections
 * (types).
 */
import type { Exchange } from '../app/exchange.ts';
import type { Journal } from '../journal/journal.ts';
import type { Projections } from '../history/projections.ts';
import { recoverPausing, type RecoveryReport } from './recovery.ts';
import type { StartState } from './start-state.ts';

/** During a long start-up replay, a progress line this often. */
const REPLAY_PROGRESS_MS = 5_000;
/** During the start-up replay the listener answers at least this often (a probe's wait, at most). */
const REPLAY_PAUSE_EVERY_MS = 20;

/** A gauge the replay sets (prom-client's `Gauge` is one). */
export interface Gauge {
  set(value: number): void;
}

/** What the operator's metrics show of the replay (metrics.ts). */
export interface ReplayGauges {
  replayTotal: Gauge;
  replayRecords: Gauge;
  replaySeconds: Gauge;
}

export class StartUpReplay {
  /** The first record replayed: the one after the snapshot. */
  readonly from: number;
  /** The journal's last record when the replay began. */
  readonly to: number;
  /** The record the replay is at (updated every 256 records). */
  private at: number;
  private done = false;

  constructor(
    private readonly exchange: Exchange,
    private readonly journal: Journal,
    private readonly projections: Projections,
    private readonly start: StartState['start'],
    private readonly logger: { info(fields: Record<string, unknown>, message: string): void },
    private readonly gauges: ReplayGauges,
  ) {
    this.from = (start?.seq ?? 0) + 1;
    this.to = journal.lastSeq();
    this.at = this.from - 1;
  }

  /** False until the replay's last record is applied (trades counted from then are this process's). */
  get finished(): boolean {
    return this.done;
  }

  /** What the start is doing, as GET /ready says it. */
  progress(): string {
    return this.done ? 'starting market threads' : `replaying journal (seq ${this.at} of ${this.to})`;
  }

  /** Replays, then waits for the journal's flush of what the replay recovered. `cancel` is checked at every pause. */
  async run(cancel?: AbortSignal): Promise<RecoveryReport> {
    const { exchange, journal, projections, logger, gauges, from, to } = this;
    const started = performance.now();
    let reported = started;
    gauges.replayTotal.set(Math.max(0, to - from + 1));
    const replayed = await recoverPausing(exchange, journal, {
      from,
      books: this.start?.saved.books ?? [],
      pauseEveryMs: REPLAY_PAUSE_EVERY_MS,
      cancel,
      onRecord: (seq) => {
        projections.applying = seq;
        // Progress every 256 records, the clock every 4,096: the replay's own pace is untouched.
        // (The last call, past the end, is neither.)
        if ((seq & 255) !== 0) return;
        this.at = seq;
        gauges.replayRecords.set(seq - from + 1);
        if ((seq & 4095) === 0 && performance.now() - reported > REPLAY_PROGRESS_MS) {
          reported = performance.now();
          logger.info({ seq, lastSeq: to, seconds: Math.round((reported - started) / 1000) }, 'replaying journal: progress');
        }
      },
      onEvent: projections.atEvent,
      onBatch: () => projections.flush(),
    });
    this.done = true;
    cancel?.throwIfAborted();
    await journal.durable(journal.lastSeq());
    gauges.replayRecords.set(replayed.commands + replayed.events);
    gauges.replaySeconds.set((performance.now() - started) / 1000);
    logger.info(
      {
        snapshotSeq: from - 1,
        commands: replayed.commands,
        events: replayed.events,
        recoveredEvents: replayed.recoveredEvents,
        lastSeq: journal.lastSeq(),
        stateHash: exchange.stateHash(),
        books: replayed.books.map((b) => ({ market: exchange.markets[b.marketIndex].symbol, hash: b.stateHash() })),
      },
      'journal replayed',
    );
    return replayed;
  }
}
