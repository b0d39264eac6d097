/**
 * @module sequencer/recovery
 *
 * Start-up: rebuilds the exchange from the journal, on this thread, before any market thread
 * runs. Application commands re-run through `Exchange.execute` against in-process books; the
 * journaled book events are applied at the positions they had live, and each must equal —
 * field for field (`sameEvent`) — the event the replayed book produced for it (a divergence
 * refuses to start, with a report naming the record and what the operator can do).
 * Events the books produce that the journal never received (a crash between routing a command
 * and journaling its events) are applied and journaled at the end, until no book has one left
 * (applying one may route commands to another market's book): nothing half-applied remains.
 * A markets record switches the parameters where it stands — the exchange's (fees, margins,
 * funding) and the books' minSize — so every replay computes what the exchange answered then.
 * `recover` runs the replay in one go (the journal tool, a replica, the simulator);
 * `recoverPausing` runs the same loop but lets the event loop in every few milliseconds, so a
 * server's listener answers its probes during a long start-up replay.
 */
import { FastOrderBook } from '../engine/fast-book.ts';
import { payloadView, type Journal, type JournalEntry } from '../journal/journal.ts';
import { DataRefusedError } from '../journal/refusal.ts';
import { BookEventWriter, RecordBuffer, decodeEvent, recordKind, recordLength, recordMarket } from '../transport/codec.ts';
import { describeEvent, differingFields, sameEvent, type EventFields } from '../transport/event-fields.ts';
import { CommandKind, decodeCommand, isCommandKind, isKnownCommandKind, type Command } from '../app/commands.ts';
import type { MarketSpec } from '../config/market.ts';
import type { Exchange } from '../app/exchange.ts';
import type { MarketRouter } from '../app/ports.ts';
import type { BookSnapshot, PlaceOrder } from '../engine/types.ts';
import type { MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';

/** Books on this thread whose events are kept, per market, until the journal's copy arrives. */
class ReplayBooks implements MarketRouter {
  readonly books: FastOrderBook[];
  readonly produced: RecordBuffer[];
  /** Read position in `produced`, per market. */
  readonly cursor: number[];

  constructor(exchange: Exchange, from: readonly BookSnapshot[]) {
    this.produced = [];
    this.cursor = [];
    this.books = [];
    this.configure(exchange.markets, from);
  }

  /** Each market's minSize as `markets` gives it; a market not here yet gets its book (from `from`, or empty). */
  configure(markets: readonly MarketSpec[], from: readonly BookSnapshot[] = []): void {
    for (const m of markets) {
      if (m.index < this.books.length) {
        this.books[m.index].setMinSize(m.minSizeLots);
        continue;
      }
      this.produced.push(new RecordBuffer(1 << 16));
      this.cursor.push(0);
      const writer = new BookEventWriter(this.produced[m.index], m.index);
      const snapshot = from.find((b) => b.marketIndex === m.index);
      const options = { minSizeLots: m.minSizeLots };
      this.books.push(snapshot === undefined ? new FastOrderBook(m.index, writer, options) : FastOrderBook.restore(snapshot, writer, options));
    }
  }

  place(market: MarketIndex, cmd: PlaceOrder): void {
    this.books[market].place(cmd);
  }
  cancel(market: MarketIndex, orderId: OrderId, owner: OwnerIndex, time: number): void {
    this.books[market].cancel(orderId, owner, time);
  }
  cancelAll(market: MarketIndex, owner: OwnerIndex, time: number, reason: number): void {
    this.books[market].cancelAll(owner, time, reason);
  }
  expire(market: MarketIndex, time: number): void {
    this.books[market].expire(time);
  }

  /** The next produced record of `market` that the journal has not matched yet, or -1. */
  next(market: MarketIndex): number {
    const buffer = this.produced[market];
    const at = this.cursor[market];
    if (at >= buffer.length) {
      // Everything produced is matched: reuse the buffer from the start.
      buffer.reset();
      this.cursor[market] = 0;
      return -1;
    }
    this.cursor[market] = at + recordLength(buffer.view, at);
    return at;
  }
}

/**
 * Replaying the journal's commands produced a book event other than the one the journal holds
 * at `seq` (or none). The journal is not damaged — its checksums and hash chain were verified
 * before replay — but this build's cores decide differently from the build that wrote it, so
 * starting would serve a state that differs from what was acknowledged. The message names the
 * record and the differing fields and says what the operator can do; it is the whole report
 * (the stack adds nothing).
 */
export class ReplayDivergenceError extends DataRefusedError {
  override name = 'ReplayDivergenceError';

  constructor(
    readonly seq: number,
    readonly market: MarketIndex,
    readonly journaled: EventFields,
    readonly produced: EventFields | null,
    readonly fields: readonly string[],
  ) {
    const show = (event: EventFields) => `${event.kind} ${JSON.stringify(event)}`;
    super(
      [
        `replay diverged at journal seq ${seq}, market ${market}: the journal holds ${show(journaled)}`,
        produced === null ? 'but replaying the commands before it produced no further event in that market' : `but replaying the commands before it produced ${show(produced)}; differing fields: ${fields.join(', ')}`,
        'The journal itself is intact (checksums and hash chain verified): nothing acknowledged is lost.',
        'This build replays it differently from the build that wrote it, so it will not serve a state other than the one acknowledged.',
        'To restore service: start the build that wrote this journal on the same data directory (it replays it unchanged),',
        'and keep the directory as it is. `npm run journal -- verify --data-dir DIR --replay src/sequencer/replay-target.ts` prints this report offline.',
      ].join('\n'),
    );
  }
}

export interface RecoveryReport {
  commands: number;
  events: number;
  /** Events produced in replay that the journal lacked, now applied and journaled. */
  recoveredEvents: number;
  books: FastOrderBook[];
  /** The replay itself, to go on applying records that arrive later (a replica following the primary). */
  replay: Replay;
}

export interface RecoveryOptions {
  /** The first journal record to replay: 1, or the one after the snapshot the exchange was built from. */
  from?: number;
  /** The books at that point (empty for a fresh start). */
  books?: readonly BookSnapshot[];
  /** Called with each record's sequence number before it is applied (projections skip what they have). */
  onRecord?: (seq: number) => void;
  /** Called with each book event (journaled or recovered) just before the ledger applies it (projections key fills by its market seq). */
  onEvent?: (view: DataView, offset: number) => void;
  /** Called every few thousand records and at the end (projections write in batches). */
  onBatch?: () => void;
  /**
   * False for a replica: events the books produced that the journal lacks are not journaled
   * (the primary's copy of them is still to come). Default true.
   */
  finish?: boolean;
}

/** Applies journal entries one at a time: a command re-runs, an event must match its book's. */
export class Replay {
  private readonly books: ReplayBooks;
  commands = 0;
  events = 0;
  /**
   * The newest seq applied after which no command was in flight (`noCommandInFlight`): where a
   * snapshot of this state may be taken. Starts at the seq the replay starts after (a snapshot's
   * is quiet; 0 is the empty exchange).
   */
  quietSeq = 0;

  constructor(
    private readonly exchange: Exchange,
    from: readonly BookSnapshot[] = [],
    private readonly onEvent: (view: DataView, offset: number) => void = () => {},
  ) {
    this.books = new ReplayBooks(exchange, from);
    exchange.routeTo(this.books);
  }

  apply(entry: JournalEntry): void {
    if (isCommandKind(entry.kind)) {
      // A command this build does not know was journaled by a newer one (a rollback): skipped, the
      // replay would reach another state than the one that build answered under, in silence.
      if (!isKnownCommandKind(entry.kind)) throw new DataRefusedError(newerBuildRecord(entry.seq, entry.kind));
      this.execute(decodeCommand(payloadView(entry)));
      if (this.noCommandInFlight()) this.quietSeq = entry.seq;
      return;
    }
    const view = entry.view;
    const offset = entry.payloadOffset;
    const market = recordMarket(view, offset);
    const at = this.books.next(market);
    const produced = this.books.produced[market].view;
    if (at < 0) throw new ReplayDivergenceError(entry.seq, market, describeEvent(view, offset), null, []);
    if (!sameEvent(produced, at, view, offset)) {
      const journaled = describeEvent(view, offset);
      const replayed = describeEvent(produced, at);
      throw new ReplayDivergenceError(entry.seq, market, journaled, replayed, differingFields(journaled, replayed));
    }
    this.onEvent(view, offset);
    decodeEvent(view, offset, this.exchange.listener(market));
    this.events++;
    if (this.noCommandInFlight()) this.quietSeq = entry.seq;
  }

  /**
   * Runs one command as the journal holds it (`apply`), or as a start journals it after the
   * replay (a markets record): a markets record's minSizes reach the books here as well.
   */
  execute(command: Command): void {
    this.exchange.execute(command);
    if (command.kind === CommandKind.Markets) this.books.configure(this.exchange.markets);
    this.commands++;
  }

  /**
   * Events the books produced that the journal never received (a crash between routing a
   * command and journaling its events): applied now, and appended to `journal` when given.
   * Applying one may route book commands to any market (a liquidation priced when its owner's
   * last order ended, in another market than that order's; the cancels it sends), whose books
   * answer at once: the markets are drained again until none has an event left, so every
   * command the books ran has its events applied and journaled — none is left in a book the
   * market threads start from and missing from the journal and the ledger.
   */
  finish(journal?: Journal): number {
    let recovered = 0;
    for (let more = true; more; ) {
      more = false;
      for (const m of this.exchange.markets) {
        for (let at = this.books.next(m.index); at >= 0; at = this.books.next(m.index)) {
          const buffer = this.books.produced[m.index];
          this.onEvent(buffer.view, at);
          decodeEvent(buffer.view, at, this.exchange.listener(m.index));
          journal?.append(recordKind(buffer.view, at), buffer.bytes, at, recordLength(buffer.view, at));
          recovered++;
          more = true;
        }
      }
    }
    return recovered;
  }

  /**
   * True when every event the books produced has been matched by the journal: the state is
   * one the live exchange was in with no command in flight (a snapshot may be taken here).
   */
  noCommandInFlight(): boolean {
    return this.exchange.markets.every((m) => this.books.cursor[m.index] >= this.books.produced[m.index].length);
  }

  /** The rebuilt books. */
  get rebuilt(): FastOrderBook[] {
    return this.books.books;
  }
}

/**
 * Replays the journal from `options.from` into `exchange` (fresh, or restored from the snapshot
 * taken just before `from`) and returns the rebuilt books, in one go on this thread.
 */
export function recover(exchange: Exchange, journal: Journal, options: RecoveryOptions = {}): RecoveryReport {
  const steps = replaying(exchange, journal, options);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * `recover` letting the event loop run at least every `pauseEveryMs` (a server answers its
 * probes during a long start-up replay). The same loop: only where it pauses differs.
 */
export async function recoverPausing(
  exchange: Exchange,
  journal: Journal,
  options: RecoveryOptions & { pauseEveryMs: number; /** Checked at each pause: an aborted start stops replaying (its reason is thrown). */ cancel?: AbortSignal },
): Promise<RecoveryReport> {
  const steps = replaying(exchange, journal, options);
  let resumed = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (performance.now() - resumed < options.pauseEveryMs) continue;
    await new Promise((resolve) => setImmediate(resolve));
    options.cancel?.throwIfAborted();
    resumed = performance.now();
  }
}

/**
 * Records between the points where the replay may pause: the clock is read once per step, a
 * cost the replay does not measure (a record takes tens of microseconds to apply).
 */
const STEP_RECORDS = 256;

/** The replay loop, stepping out every STEP_RECORDS records; returns the report. */
function* replaying(exchange: Exchange, journal: Journal, options: RecoveryOptions): Generator<void, RecoveryReport> {
  const onBatch = options.onBatch ?? (() => {});
  const replay = new Replay(exchange, options.books ?? [], options.onEvent);
  replay.quietSeq = (options.from ?? 1) - 1;
  for (const entry of journal.range(options.from ?? 1)) {
    options.onRecord?.(entry.seq);
    replay.apply(entry);
    const applied = replay.commands + replay.events;
    if (applied % 4096 === 0) onBatch();
    if (applied % STEP_RECORDS === 0) yield;
  }
  options.onRecord?.(Number.MAX_SAFE_INTEGER);
  const recoveredEvents = options.finish === false ? 0 : replay.finish(journal);
  onBatch();
  return { commands: replay.commands, events: replay.events, recoveredEvents, books: replay.rebuilt, replay };
}

/** The refusal of a journal record of a command kind this build does not know. */
function newerBuildRecord(seq: number, kind: number): string {
  return (
    `journal record ${seq} is a command of kind ${kind}, which this build does not know: a newer build wrote it. ` +
    'Replaying past it would reach another state than the one that build answered under. Nothing was changed: start the build that wrote it, or a newer one.'
  );
}
