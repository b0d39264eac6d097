/**
 * @module sim/bounds
 *
 * Issue 13's bounds, checked after every event of a hostile run:
 *
 * - **Maximum leverage.** An account is above its maximum leverage when it is below
 *   maintenance — cross equity under the cross maintenance margin, or an isolated position's
 *   margin + uPnL under its own (leverage beyond 1 / maintenanceMarginFraction, where the
 *   exchange liquidates) — with no liquidation order in flight (`Ledger.liquidatable`). The
 *   liquidation engine acts only on a `Tick` (`Ledger.checkLiquidations`), so the liquidation
 *   window is: from a move of some market's mark (an index price, a fill, funding) to the next
 *   `Tick`, and while a liquidation order of the account is in flight. Two checks follow:
 *   right after a `Tick` no account may be liquidatable (the engine acted on all of them), and
 *   at any point while no mark has left where the last `Tick` left it, no account may be
 *   liquidatable by its own acts (an order it places pays its open loss against the mark up
 *   front, a transfer or withdrawal leaves its initial margin, a fee is held before it is
 *   charged). A mark that moved and came back still opened the window: the account may have
 *   been liquidated at the other price, or its liquidation order ended there above
 *   maintenance (so nothing was deleveraged), and the way back puts it below again. The marks
 *   are read at every ledger event and after every command (`watchMarks`), since a fill moves
 *   the last price and an index price moves the mark without one. What others do to an
 *   account opens its window until the next `Tick` as a mark move does: a resting order of
 *   its filled at a price the mark has since left, a funding payment, a deleveraging or
 *   socialised loss that takes its profit, its own liquidation ending in one market while it
 *   is still below maintenance in another (liquidations run one order per market).
 *   Since almost any fill moves some mark, that second check seldom runs; a third runs per
 *   command: the account a command acts for (`beforeCommand` … `afterCommand`), not
 *   liquidatable before it, must not be liquidatable once the command's own effects are
 *   applied, unless some mark moved in between (read at every event, so one that moved and
 *   came back counts) or something outside its control touched it in between. A mark its own
 *   fill moved opens the window too: the exchange prices an order's open loss against the mark
 *   at admission and cannot know where the median of index, mid and last will settle after the
 *   fill, and a move it makes hits the account's other positions in that market exactly as the
 *   same move made by anyone else would; the liquidation engine answers both at the next `Tick`.
 *   `counts` says how often each of the three checks ran, so a reader can see none is vacuous.
 * - **The insurance fund's every move accounted for.** Each `insurance` ledger event is summed
 *   by cause; the fund must equal where it started (zero, or the snapshot a restart began
 *   from) plus those sums, each event's `fund` must be the running total, and each cause moves
 *   the fund only its way (liquidation fees and operator deposits in, shortfalls out).
 * - **Nobody pays an owner's own losses** (sim/fund-payouts.ts, the in-flight generator's
 *   rule): per owner, from the last `Tick` that found it healthy, what the fund and the winners
 *   (socialised loss, ADL beyond the mark) paid of its losses, net of the liquidation fees the
 *   fund took from it, stays within what the market took
 *   from it (index moves against the positions it held and the orders it had resting, funding,
 *   socialised loss, ADL) plus
 *   the mark band's tolerance. A fund that only went down, never below zero, passed the two
 *   checks above while three defects paid accounts' losses out of it.
 *
 * May import: src/ (ledger and exchange reads), nothing that mutates state.
 */
import { RATE_ONE, type MarketSpec } from '../src/config/market.ts';
import type { InsuranceReason, LedgerEvent } from '../src/ledger/events.ts';
import type { Exchange } from '../src/app/exchange.ts';
import { asOwnerIndex, type MarketIndex, type OwnerIndex } from '../src/types/ids.ts';
import { FundPayouts } from './fund-payouts.ts';

/** How often each leverage check ran (evaluated, not skipped as inside a window). */
export interface LeverageCheckCounts {
  afterTick: number;
  atTickMarks: number;
  ownCommand: number;
  /** Losses others paid (fund shortfalls, socialised, ADL beyond the mark) checked against what the market took from their owner (sim/fund-payouts.ts). */
  shortfalls: number;
}

/** One command in flight, from just before it executed to its completion. */
export interface CommandSpan {
  readonly owner: OwnerIndex;
  /** The owner was already below maintenance when the command came: the command is not what put it there. */
  readonly wasLiquidatable: boolean;
  /** The count of mark moves when the command came. */
  readonly markMoves: number;
  /** Something outside the owner's control touched it during the command. */
  byOthers: boolean;
}

const DIRECTION: Record<InsuranceReason, 1 | -1 | 0> = { deposit: 1, liquidationFee: 1, shortfall: -1, fundingDust: 0 };

export class Bounds {
  /** The fund when the current process started (null until the restart's first record is replayed). */
  private base: bigint | null = 0n;
  private fund = 0n;
  readonly byCause = new Map<InsuranceReason, bigint>();
  readonly counts: LeverageCheckCounts = { afterTick: 0, atTickMarks: 0, ownCommand: 0, shortfalls: 0 };
  /** The exchange whose marks are watched (null until a Tick or a command of this process). */
  private watched: Exchange | null = null;
  /** The marks as last read, and how many times they were read different from the read before. */
  private marks: number[] = [];
  /** The index prices as last read (a move is charged to the positions held, `payouts`). */
  private indexes: number[] = [];
  /** What the insurance fund pays per owner, against what the market took from it. */
  readonly payouts: FundPayouts;
  /** Owners that held a position since the process started (from `position` events; read from the ledger at the start). */
  private readonly holders = new Set<OwnerIndex>();
  private markMoves = 0;
  /** `markMoves` at the last Tick (null until a Tick of this process): any move since opens every account's window until the next Tick. */
  private markMovesAtTick: number | null = null;
  /** Commands between `beforeCommand` and `afterCommand`. */
  private readonly spans = new Set<CommandSpan>();
  /** Owners something outside their control moved since the last Tick: in their liquidation window until the next. */
  private readonly movedByOthers = new Set<OwnerIndex>();
  /** The exchange whose events arrive: the running one, or the one a restart is replaying (its markets may differ at each markets record). */
  private reading: Exchange | null = null;
  /** The first broken bound seen inside an event listener, reported at the next check. */
  private broken: string | null = null;

  constructor(markets: readonly MarketSpec[]) {
    this.payouts = new FundPayouts(markets, {
      mark: (m) => this.watched?.ledger.prices(m).mark ?? 0,
      position: (owner, m) => this.watched?.ledger.position(owner, m) ?? 0,
      // The parameters in force where the event happened: the replaying exchange's during a restart's replay.
      spec: (m) => this.reading?.markets[m],
    });
  }

  /** A ledger event of the running (or recovering) exchange. */
  onLedgerEvent(e: LedgerEvent): void {
    this.watchMarks();
    if (e.type === 'position' && e.quantity !== 0) this.holders.add(e.owner);
    this.payouts.onLedgerEvent(e);
    this.counts.shortfalls = this.payouts.shortfallsChecked;
    this.broken ??= this.payouts.broken;
    if ((e.type === 'fill' && (e.maker || e.liquidation || e.orderId === 0)) || e.type === 'liquidation') this.touchedByOthers(e.type === 'fill' ? e.owner : e.order.owner);
    if (e.type === 'fundingPayment') this.touchedByOthers(e.owner);
    if (e.type === 'adl' || e.type === 'socialisedLoss') {
      this.touchedByOthers(e.owner);
      this.touchedByOthers(e.counterparty);
    }
    if (e.type !== 'insurance') return;
    if (this.base === null) return;
    const dir = DIRECTION[e.reason];
    if (dir !== 0 && (e.delta > 0n ? 1 : -1) !== dir) this.broken ??= `an insurance move of ${e.delta} for ${e.reason} goes the wrong way`;
    this.fund += e.delta;
    this.byCause.set(e.reason, (this.byCause.get(e.reason) ?? 0n) + e.delta);
    if (e.fund !== this.fund) this.broken ??= `an insurance event reports the fund at ${e.fund}; its moves sum to ${this.fund}`;
  }

  /** A process is starting: the tally restarts from the fund the restored state holds, read at its first replayed record. */
  restarting(): void {
    this.base = null;
    this.byCause.clear();
    this.watched = null;
    this.reading = null;
    this.marks = [];
    this.indexes = [];
    this.markMovesAtTick = null;
    this.payouts.restarting();
    this.holders.clear();
    this.movedByOthers.clear();
    // The crash lost the commands in flight; their retries open spans of their own.
    this.spans.clear();
  }

  private touchedByOthers(owner: OwnerIndex): void {
    this.movedByOthers.add(owner);
    for (const span of this.spans) if (span.owner === owner) span.byOthers = true;
  }

  /** Reads the marks now: any different from the last read is a move (it opens the Tick window and every command's in flight). */
  watchMarks(): void {
    const exchange = this.watched;
    if (exchange === null) return;
    const now = exchange.markets.map((m) => exchange.ledger.prices(m.index).mark);
    if (now.some((mark, i) => mark !== this.marks[i])) {
      this.markMoves++;
      this.marks = now;
    }
    const ledger = exchange.ledger;
    for (const m of exchange.markets) {
      const index = ledger.prices(m.index).index;
      const before = this.indexes[m.index];
      if (before !== undefined && before !== index) this.payouts.indexMoved(m.index, before, index, this.positions(exchange, m.index));
      this.indexes[m.index] = index;
    }
  }

  /** A command acting for `owner` is about to execute on `exchange`: the span `afterCommand` closes. */
  beforeCommand(exchange: Exchange, owner: OwnerIndex): CommandSpan {
    if (this.watched !== exchange) {
      this.watched = exchange;
      this.marks = [];
      this.indexes = [];
    }
    this.reading = exchange;
    this.watchMarks();
    const span: CommandSpan = { owner, wasLiquidatable: exchange.ledger.liquidatable(owner).length > 0, markMoves: this.markMoves, byOthers: false };
    this.spans.add(span);
    return span;
  }

  /**
   * The command's own effects are applied: unless it found the owner below maintenance, a mark
   * moved or others touched the owner meanwhile, the owner must not be below maintenance (reported at the next check).
   */
  afterCommand(span: CommandSpan): void {
    if (!this.spans.delete(span)) return;
    this.watchMarks();
    if (span.wasLiquidatable || span.byOthers || span.markMoves !== this.markMoves) return;
    this.counts.ownCommand++;
    this.broken ??= this.overLeveraged(this.watched!, 'after a command of its own that moved no mark', undefined, span.owner);
  }

  /** Recovery is about to apply its first record (or none): the fund and the positions as the snapshot left them. */
  started(exchange: Exchange): void {
    this.reading = exchange;
    if (this.base !== null) return;
    this.base = exchange.ledger.insuranceFund;
    this.fund = this.base;
    for (let id = 1; id <= exchange.ledger.ownerCount; id++) {
      const owner = asOwnerIndex(id);
      if (exchange.ledger.positionsOf(owner).length > 0) this.holders.add(owner);
    }
  }

  /**
   * What an index move in `market` acts on (signed lots): the holders' positions, and the open
   * orders resting in the book (a hold covers an order's loss against the mark it was admitted
   * at; an index move while it rests takes the rest — a maker's ask filled after the index rose).
   */
  private *positions(exchange: Exchange, market: MarketIndex): Generator<[OwnerIndex, number]> {
    for (const owner of this.holders) yield [owner, exchange.ledger.position(owner, market)];
    for (const o of exchange.orders.openOrders()) {
      if (o.market === market && o.status !== 'untriggered') yield [o.owner, o.side * o.remaining];
    }
  }

  /** Right after a Tick executed: the liquidation engine acted on every account below maintenance (reported at the next check). */
  afterTick(exchange: Exchange): void {
    if (this.watched !== exchange) {
      this.marks = [];
      this.indexes = [];
    }
    this.watched = exchange;
    this.reading = exchange;
    this.watchMarks();
    this.markMovesAtTick = this.markMoves;
    this.movedByOthers.clear();
    this.counts.afterTick++;
    // Whoever the Tick left healthy starts afresh: the fund owes it nothing for what came before.
    const ledger = exchange.ledger;
    for (const owner of new Set([...this.holders, ...this.payouts.tracked()])) {
      if (ledger.liquidatable(owner).length === 0 && ledger.liquidatingIn(owner).length === 0) {
        this.payouts.healthy(owner, exchange.orders.ofOwner(owner).filter((o) => o.status !== 'untriggered'));
      }
    }
    this.broken ??= this.overLeveraged(exchange, 'right after a Tick');
  }

  /** Every bound now; a description of the first one broken, or null. */
  check(exchange: Exchange): string | null {
    if (this.broken !== null) return this.broken;
    const ledger = exchange.ledger;
    if (this.base !== null && ledger.insuranceFund !== this.fund) {
      return `the insurance fund is ${ledger.insuranceFund}, but it started at ${this.base} and its moves (${[...this.byCause].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}) sum to ${this.fund}`;
    }
    if (ledger.insuranceFund < 0n) return `the insurance fund is ${ledger.insuranceFund} (negative)`;
    this.watchMarks();
    if (this.watched !== exchange || this.markMovesAtTick !== this.markMoves) return null;
    this.counts.atTickMarks++;
    return this.overLeveraged(exchange, 'with every mark where the last Tick left it, by its own acts', this.movedByOthers);
  }

  /** The first owner (of all, or only `only`) below maintenance with no liquidation in flight, outside `inWindow`. */
  private overLeveraged(exchange: Exchange, when: string, inWindow: ReadonlySet<OwnerIndex> = new Set(), only?: OwnerIndex): string | null {
    const ledger = exchange.ledger;
    for (let id = only ?? 1; id <= (only ?? ledger.ownerCount); id++) {
      const owner = asOwnerIndex(id);
      if (inWindow.has(owner)) continue;
      const due = ledger.liquidatable(owner);
      if (due.length === 0) continue;
      const stats = ledger.stats(owner)!;
      const leverage = Number(stats.crossLeverage) / Number(RATE_ONE);
      return `owner ${owner} is below maintenance in market ${due.join(', ')} ${when} (cross equity ${stats.crossEquity}, maintenance ${stats.maintMargin}, leverage ${leverage.toFixed(1)}×), no liquidation in flight`;
    }
    return null;
  }
}
