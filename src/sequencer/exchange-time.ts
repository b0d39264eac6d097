/**
 * @module sequencer/exchange-time
 *
 * The exchange's time: what every command is stamped with (a route's, the clock's ticks and
 * releases, the markets record), what login tokens, challenges, request budgets and the
 * market-data routes read. It never goes back and never stands still, whatever the host's
 * clock does (docs/journal.md, "Time"; docs/operations.md, "When the clock steps back").
 *
 * The host's clock (`Date.now`, or a test's) goes back: a restart on a machine whose clock is
 * behind the journal's last record, a standby promoted with a clock behind the old primary's,
 * an NTP step. The cores take time as data and trusted it: a signed request refused as expired
 * was accepted again after the step, a GTT order filled after its `expiresAt` had passed, every
 * client with requests in the last second was refused 429 until the clock caught up, a
 * history page of trades or an order's `updatedAt` went back in time.
 *
 * Rule: `now()` is the host's clock while that is at or after the last time it gave; once the
 * host's clock is behind it, time runs on from the last time given at the pace of the process's
 * monotonic clock (`performance.now`, which no step moves), until the host's clock passes it
 * again. It starts from the journal's last command time (`lastJournaledTime`), so a restart or
 * a takeover continues the journal's time scale, never the machine's if that is behind. The
 * step is logged once, at warn, when it is first seen; the catch-up at info.
 *
 * Why run on rather than stand still until the host's clock catches up: the journal's times are
 * the ones users saw (their orders' times, the expiries they signed against). A standby whose
 * clock is 5 s behind would otherwise stand still 5 s and then run 5 s behind the old primary's
 * time for good: a GTT order filling up to 5 s after its `expiresAt`, a signed request accepted
 * up to 5 s after it. Running on keeps the old time scale; if it was the one ahead (an NTP step
 * back correcting a clock that ran fast), the exchange stays that far ahead, which refuses
 * early rather than accepting late.
 *
 * The sequencer keeps the journal's order of times on its own (sequencer `submit`): a command
 * stamped before another but decided after it (its signature still being verified) runs at the
 * later one's time.
 *
 * May import: app/commands, journal/journal (types and `payloadView`).
 */
import { decodeCommand, isKnownCommandKind } from '../app/commands.ts';
import { payloadView, type Journal } from '../journal/journal.ts';

/** How many records the first look back from the journal's end reads for a command (a sweep's book events may follow one). */
const FIRST_LOOK_BACK = 64;

/**
 * The latest time of the commands at the end of `journal` (ms), 0 when it holds none: the
 * highest of the last command's and of every command in the records read to find it (journals
 * written before the sequencer kept times in order may hold one a few ms behind another).
 */
export function lastJournaledTime(journal: Pick<Journal, 'lastSeq' | 'range'>): number {
  let latest = -1;
  for (let to = journal.lastSeq(), span = FIRST_LOOK_BACK; to >= 1 && latest < 0; span *= 4) {
    const from = Math.max(1, to - span + 1);
    for (const entry of journal.range(from, to)) {
      if (!isKnownCommandKind(entry.kind)) continue;
      const { time } = decodeCommand(payloadView(entry));
      if (time > latest) latest = time;
    }
    to = from - 1;
  }
  return Math.max(latest, 0);
}

export interface ExchangeTimeOptions {
  /** The host's clock (ms since the epoch). */
  host: () => number;
  /** The time it must not go below: the journal's last command time. */
  from: number;
  /** A clock no step moves (ms): `performance.now` by default. */
  steady?: () => number;
  logger: { warn(fields: Record<string, unknown>, message: string): void; info(fields: Record<string, unknown>, message: string): void };
}

export class ExchangeTime {
  /** The last time given. */
  private last: number;
  /** `steady()` when `last` was given. */
  private steadyAtLast: number;
  /** Whether the host's clock is behind: time runs on from `last` on the steady clock. */
  private behind = false;
  private readonly steady: () => number;

  constructor(private readonly options: ExchangeTimeOptions) {
    this.steady = options.steady ?? (() => performance.now());
    this.last = options.from;
    this.steadyAtLast = this.steady();
  }

  /** The exchange's time now (ms): at or after every time given before. */
  readonly now = (): number => {
    const host = this.options.host();
    const steady = this.steady();
    if (!this.behind && host >= this.last) return this.give(host, steady);
    // Whole milliseconds, as every time the exchange journals; the fraction waits for the next reading.
    const elapsed = Math.max(0, Math.floor(steady - this.steadyAtLast));
    const carried = this.last + elapsed;
    if (host >= carried) {
      this.behind = false;
      this.options.logger.info({ time: host }, 'the host clock has caught up with the exchange\'s time: following it again');
      return this.give(host, steady);
    }
    if (!this.behind) {
      this.behind = true;
      this.options.logger.warn(
        { behindMs: carried - host, exchangeTime: carried, hostTime: host },
        'the host clock is behind the exchange\'s time (stepped back, or behind the journal\'s last record): the exchange\'s time runs on from where it was until the host clock passes it',
      );
    }
    return this.give(carried, this.steadyAtLast + elapsed);
  };

  private give(time: number, steady: number): number {
    this.last = time;
    this.steadyAtLast = steady;
    return time;
  }
}
