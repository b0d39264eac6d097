/**
 * @module sequencer/clock
 *
 * The commands time alone produces, submitted through the sequencer like any other: a `Tick`
 * every `tickMs` (expiry, funding samples, liquidations) with, on testnet, the built-in feed's
 * next index prices (sequencer/testnet-feed); and a `Release` for a market whose conditional
 * timer is due (a TWAP slice, an untriggered order's expiry), at its due time, not at the next
 * tick. A journaled `Release` carries the time, so a replay releases at the same points.
 *
 * The release timer is one `setTimeout` armed for the earliest due time (`rearm`, which the
 * sequencer calls after every command it executes, as any may bring an earlier one): an idle
 * exchange with nothing due sleeps between its ticks, where a fixed 5 ms poll woke its event
 * loop 200 times a second (about 4 % of a core on this machine, idle).
 * While a due timer waits (its `Release` in flight, or the clock idle) it is looked at again
 * every RELEASE_RETRY_MS.
 *
 * While `idle()` says so (the sequencer is overloaded, or this node may not write: a primary
 * whose lease lapsed) the clock submits nothing: a deposed primary's journal then stays a prefix
 * of the stream, so it can follow it (replication/node).
 * May import: sequencer/, app/commands, app/exchange (types), config/market (types).
 */
import { CommandKind, type Command } from '../app/commands.ts';
import type { Exchange } from '../app/exchange.ts';
import type { MarketSpec } from '../config/market.ts';
import type { TestnetFeed } from './testnet-feed.ts';
import type { Outcome } from './sequencer.ts';

/** How soon a due timer whose `Release` could not go yet is looked at again (ms). */
const RELEASE_RETRY_MS = 5;
/**
 * The longest the release timer sleeps (ms): a due time further off (an expiry in a year) is
 * looked at again then, below setTimeout's limit of 2^31 - 1 ms.
 */
const RELEASE_SLEEP_MAX_MS = 3_600_000;

export interface ClockOptions {
  submit: (command: Command) => Promise<Outcome>;
  exchange: Pick<Exchange, 'nextDueAt' | 'ledger'>;
  markets: readonly MarketSpec[];
  /** The testnet's index feed; null on mainnet (index prices come from the operator). */
  feed: TestnetFeed | null;
  /** The exchange's time (sequencer/exchange-time): ticks and releases are stamped with it, the release timer armed on it. */
  now: () => number;
  /** Milliseconds between ticks. */
  tickMs: number;
  /** True while nothing may be submitted (see the module header). */
  idle: () => boolean;
  logger: { error(fields: Record<string, unknown>, message: string): void };
}

export class ExchangeClock {
  private ticker: NodeJS.Timeout | undefined;
  private releaser: NodeJS.Timeout | undefined;
  /** When the release timer fires (ms on `now`'s scale); Infinity when none is armed. */
  private releaseAt = Infinity;
  private running = false;
  /** A `Release` of this market is on its way: the timer does not send another until it is done. */
  private readonly releasing: boolean[];

  constructor(private readonly options: ClockOptions) {
    this.releasing = options.markets.map(() => false);
  }

  /**
   * Every market gets its index (and so its mark) before the gateway serves: a fresh testnet's
   * first prices are journaled now, not a tick later (GET /price never shows a null index).
   */
  async primePrices(): Promise<void> {
    const { feed, exchange, markets, submit, now } = this.options;
    const unpriced = feed?.resumeFrom(markets.map((m) => exchange.ledger.prices(m.index).index)) ?? [];
    await Promise.all(unpriced.map(({ market, price }) => submit({ kind: CommandKind.IndexPrice, time: now(), market, price })));
  }

  start(): void {
    this.running = true;
    this.ticker = setInterval(() => this.tick(), this.options.tickMs);
    this.rearm();
  }

  stop(): void {
    this.running = false;
    clearInterval(this.ticker);
    clearTimeout(this.releaser);
    this.releaseAt = Infinity;
  }

  /**
   * Arms the release timer for the earliest due conditional timer of any market, unless it is
   * armed for then or sooner already (a timer that fires early finds nothing due and re-arms).
   * Cheap enough for every command: a heap's top per market.
   */
  rearm(): void {
    if (!this.running) return;
    const { exchange, markets, now } = this.options;
    let due = Infinity;
    for (const m of markets) {
      const at = exchange.nextDueAt(m.index);
      if (at !== 0 && at < due) due = at;
    }
    if (due === Infinity) return;
    const time = now();
    const at = due > time ? Math.min(due, time + RELEASE_SLEEP_MAX_MS) : time + RELEASE_RETRY_MS;
    if (at >= this.releaseAt) return;
    clearTimeout(this.releaser);
    this.releaseAt = at;
    this.releaser = setTimeout(() => {
      this.releaseAt = Infinity;
      this.release();
      this.rearm();
    }, at - time);
  }

  /** One tick now (what the ticker runs every `tickMs`; a test harness that owns the clock calls it itself). */
  tick(): void {
    const { feed, submit, now, idle, logger } = this.options;
    if (idle()) return;
    const time = now();
    if (feed !== null) for (const { market, price } of feed.step()) void submit({ kind: CommandKind.IndexPrice, time, market, price }).catch(() => {});
    submit({ kind: CommandKind.Tick, time }).catch((error) => logger.error({ err: error }, 'tick failed'));
  }

  /** A `Release` for each market whose conditional timer is due now (what the release timer runs). */
  release(): void {
    const { exchange, markets, submit, now, idle, logger } = this.options;
    if (idle()) return;
    const time = now();
    for (const m of markets) {
      const due = exchange.nextDueAt(m.index);
      if (due === 0 || due > time || this.releasing[m.index]) continue;
      this.releasing[m.index] = true;
      submit({ kind: CommandKind.Release, time, market: m.index })
        .catch((error) => logger.error({ err: error }, 'release failed'))
        .finally(() => (this.releasing[m.index] = false));
    }
  }
}
