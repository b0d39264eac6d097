/**
 * @module sequencer/sequencer
 *
 * Stage ③ to ⑥ of the pipeline on the main thread: one writer decides, in order, what every
 * command does (`Exchange.execute`), journals it, routes book work to the market threads,
 * applies their events as they come back (R2) and journals those too. A caller's promise
 * resolves only when the market threads have finished its command and every journal record up
 * to that point is flushed to disk — not when its history is written: reads of history wait for
 * that themselves (gateway `historyRead`, history/projections `readable`). Should the journal's
 * sink refuse a record (replication: this node was fenced), the command's own record decides:
 * once it is stored the command was taken — its book events follow from it, and a start
 * completes those of a command cut short, the same (the new primary's, sequencer/recovery) — and
 * the promise resolves; else it rejects. The outcome
 * carries the orders the command named as it left them (`Outcome.orders`), copied at its
 * completion, not when the promise resolves: by then later commands may have changed the same
 * orders with records not yet on disk.
 *
 * Feeds: with a relay (ws/feed-relay, through `FeedTap`) each book event is decoded once more into the
 * relay's listener after the exchange applied it, and every batch (a ring batch, or a command
 * that routed nothing) closes a feed frame; the relay waits for the flush, not the sequencer.
 *
 * Time: no command runs at a time before the last one's (`lastTime`, from the journal's end at
 * construction, sequencer/exchange-time `lastJournaledTime`): a command stamped earlier — its
 * signature verified while a later-stamped tick went first, a host clock stepped back — runs and
 * is journaled at the last one's. So the journal's times never go back and a replay, which runs
 * each command at its journaled time, sees them as the live exchange did.
 *
 * Backpressure: when the journal, the history or a command ring is behind, or a market thread
 * has stopped, `submit` refuses with `Overloaded` before changing anything, so nothing accepted
 * is ever dropped.
 */
import type { Journal } from '../journal/journal.ts';
import { decodeEvent, doneCode, recordKind, recordLength, recordMarket } from '../transport/codec.ts';
import { RecordKind } from '../transport/layout.ts';
import { commandText, type Command } from '../app/commands.ts';
import type { Exchange } from '../app/exchange.ts';
import type { ExecuteResult } from '../app/codes.ts';
import type { OrderState } from '../app/order-registry.ts';
import type { MarketLink } from '../transport/market-link.ts';
import type { Projections } from '../history/projections.ts';
import type { BookListener } from '../engine/types.ts';
import type { MarketIndex } from '../types/ids.ts';
import { lastJournaledTime } from './exchange-time.ts';

/** What the sequencer needs of a market thread's link: whether its thread runs and its command ring has room. */
export type CommandRoom = Pick<MarketLink, 'hasRoom' | 'problem'>;
/** What the sequencer needs of the feeds (ws/feed-relay's `FeedRelay` has this shape): each book event, and the end of each batch. */
export interface FeedTap {
  /** The listener each book event of `market` is decoded into once more, after the exchange applied it. */
  listener(market: MarketIndex): BookListener;
  /** Closes the feeds' frame of what they heard; `journalSeq` covers all of it. */
  endOfBatch(journalSeq: number): void;
}
/** What the sequencer needs of history: its backpressure, its batches and the market seq of each book event. */
export type HistorySink = Pick<Projections, 'behind' | 'flushSoon' | 'atEvent'>;

export interface Outcome {
  result: ExecuteResult;
  /** The book's result per routed command (EngineCode or a count), in `result.routed` order. */
  bookResults: number[];
  /**
   * The orders the command named (`result.orderIds`, else `result.orderId`) as it left them,
   * copied once its own effects were applied and before any later command's — everything in
   * them is durable when the promise resolves. Empty when the command was refused before it
   * changed anything; a refusal that was journaled (its nonce spent, say) carries the orders its
   * result names all the same, as the command left them — a submission's rejected order; undefined
   * for an order no longer known (finished among more than 8,192 others meanwhile).
   */
  orders: (OrderState | undefined)[];
}

const NO_ORDERS: (OrderState | undefined)[] = [];

/**
 * Observes a command's outcome at its completion, before any later command's effects — for
 * checks that must see the state exactly then (the simulator's bounds); a reply needs only the
 * outcome the promise resolves with.
 */
export type OnComplete = (outcome: Outcome) => void;

/**
 * A write refused before anything changed: a stage is behind, or the exchange stops. Its name is
 * what the gateway tells it by (its `Overloaded`, http/ports), answering 503 with the reason.
 */
export class OverloadedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'OverloadedError';
  }
}

interface Completion {
  waiting: number;
  /** The seq of the command's record: whether it was taken. */
  seq: number;
  result: ExecuteResult;
  bookResults: number[];
  onComplete: OnComplete | undefined;
  resolve: (outcome: Outcome) => void;
  reject: (error: Error) => void;
}

/** The completion of a book command issued while handling an event: nobody waits for it. */
function unsolicited(): Completion {
  return { waiting: 1, seq: 0, result: { code: 0, changed: true, routed: [] }, bookResults: [], onComplete: undefined, resolve: () => {}, reject: () => {} };
}

const RESOLVED = Promise.resolve();

/** Commands a single submit may route to one market at most (a tick: expiry + liquidations). */
const ROOM_NEEDED = 64;

export class Sequencer {
  /** Per market: completions waiting for the market thread's `Done`, oldest first. */
  private readonly waiting: Completion[][];
  private closed = false;
  /** While a snapshot is taken, new commands wait here (briefly) instead of entering. */
  private gate: { promise: Promise<void>; open: () => void } | null = null;
  /** Callers of `idle()` waiting for the last command in flight to come back. */
  private idleWaiters: Array<() => void> = [];
  /**
   * Called right after each command is executed (not when it is submitted: a command held during
   * a snapshot's pause runs later): the clock re-arms its conditional timer, which the command
   * may have brought forward (sequencer/clock `rearm`).
   */
  afterExecute: () => void = () => {};
  /** The time of the last command run (ms): no later command runs at an earlier one. */
  private lastTime: number;

  constructor(
    readonly exchange: Exchange,
    private readonly journal: Journal,
    private readonly links: readonly CommandRoom[],
    private readonly projections: HistorySink,
    private readonly feed: FeedTap | null = null,
  ) {
    this.waiting = exchange.markets.map(() => []);
    this.lastTime = lastJournaledTime(journal);
  }

  /** Why a write must be refused now, or null. */
  overloaded(): string | null {
    if (this.closed) return 'shutting down';
    if (this.journal.isBehind()) return 'journal is behind';
    const history = this.projections.behind();
    if (history !== null) return history;
    for (const link of this.links) {
      // A stopped market thread takes no commands: no write may wait for it (the process exits, main.ts).
      const stopped = link.problem();
      if (stopped !== null) return stopped;
      if (!link.hasRoom(ROOM_NEEDED)) return 'a market is behind';
    }
    return null;
  }

  /** Decides, journals and routes one command; resolves when its effects are durable. */
  submit(command: Command, onComplete?: OnComplete): Promise<Outcome> {
    if (this.gate !== null) return this.gate.promise.then(() => this.submit(command, onComplete));
    const busy = this.overloaded();
    if (busy !== null) return Promise.reject(new OverloadedError(busy));
    // In place, not a copy: the command is this call's (it happens by a few ms under load, each
    // time a later-stamped command got past its signature first).
    if (command.time < this.lastTime) command.time = this.lastTime;
    else this.lastTime = command.time;
    const result = this.exchange.execute(command);
    this.afterExecute();
    if (result.changed) this.journal.appendText(command.kind, commandText(command));
    this.projections.flushSoon();
    this.feed?.endOfBatch(this.journal.lastSeq());
    if (result.routed.length === 0) {
      const outcome: Outcome = { result, bookResults: [], orders: this.ordersLeft(result) };
      onComplete?.(outcome);
      return result.changed ? this.journal.durable(this.journal.lastSeq()).then(() => outcome) : Promise.resolve(outcome);
    }
    return new Promise<Outcome>((resolve, reject) => {
      const completion: Completion = { waiting: result.routed.length, seq: this.journal.lastSeq(), result, bookResults: [], onComplete, resolve, reject };
      for (const market of result.routed) this.waiting[market].push(completion);
    });
  }

  /** A record from a market thread's event ring. */
  readonly onRecord = (view: DataView, bytes: Uint8Array, offset: number): void => {
    const kind = recordKind(view, offset);
    const market = recordMarket(view, offset);
    if (kind === RecordKind.Done) {
      const completion = this.waiting[market].shift();
      if (completion === undefined) throw new Error(`sequencer: Done from market ${market} with no command waiting`);
      if (this.idleWaiters.length > 0 && this.inFlight() === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
      completion.bookResults.push(doneCode(view, offset));
      if (--completion.waiting === 0) {
        const outcome: Outcome = { result: completion.result, bookResults: completion.bookResults, orders: this.ordersLeft(completion.result) };
        completion.onComplete?.(outcome);
        // Every record up to now: the orders as left may show what later commands did (a
        // trailing stop's trigger follows the mark). Records refused by the sink leave the
        // command to its own record, which may be stored all the same.
        this.journal.durable(this.journal.lastSeq()).then(
          () => completion.resolve(outcome),
          (error: Error) => this.journal.durable(completion.seq).then(() => completion.resolve(outcome), () => completion.reject(error)),
        );
      }
      return;
    }
    this.projections.atEvent(view, offset);
    decodeEvent(view, offset, this.exchange.listener(market));
    if (this.feed !== null) decodeEvent(view, offset, this.feed.listener(market));
    // Book commands the event caused (a conditional order it fired): their Done has no caller.
    for (const m of this.exchange.takeUnsolicitedRoutes()) this.waiting[m].push(unsolicited());
    this.journal.append(kind, bytes, offset, recordLength(view, offset));
  };

  /** The orders `result` names, as they stand now (see `Outcome.orders`). */
  private ordersLeft(result: ExecuteResult): (OrderState | undefined)[] {
    if (!result.changed) return NO_ORDERS;
    const ids = result.orderIds ?? (result.orderId === undefined ? undefined : [result.orderId]);
    return ids === undefined ? NO_ORDERS : ids.map((id) => this.exchange.orderAsLeft(id));
  }

  /** After a batch of events: their projections are written with the rest of the turn's. */
  readonly onBatch = (): void => {
    this.projections.flushSoon();
    this.feed?.endOfBatch(this.journal.lastSeq());
  };

  /** Refuses new commands; market threads finish what they hold. */
  close(): void {
    this.closed = true;
  }

  /** Holds new commands back (they wait, they are not refused) until `resume`. */
  pause(): void {
    if (this.gate !== null) return;
    let open = () => {};
    const promise = new Promise<void>((resolve) => (open = resolve));
    this.gate = { promise, open };
  }

  resume(): void {
    const gate = this.gate;
    this.gate = null;
    gate?.open();
  }

  /**
   * Resolves once every routed command has come back from its market thread — at the `Done`
   * that empties the last queue, not on a timer: a snapshot holds new commands back meanwhile.
   */
  idle(): Promise<void> {
    if (this.inFlight() === 0) return RESOLVED;
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * A seq with nothing in flight, for a snapshot (sequencer/snapshot-schedule `quiet`): new
   * commands wait only until the commands already routed came back from the books.
   */
  async quietSeq(): Promise<number> {
    this.pause();
    try {
      await this.idle();
      return this.journal.lastSeq();
    } finally {
      this.resume();
    }
  }

  private inFlight(): number {
    let n = 0;
    for (const queue of this.waiting) n += queue.length;
    return n;
  }
}
