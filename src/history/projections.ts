/**
 * @module history/projections
 *
 * Turns what the exchange reports (order changes, trades, settled fills, funding rates,
 * transfers) into history records and gets them written in batches. History is derived data
 * in its own LMDB environment: the journal is what must survive a power cut.
 * Each batch carries the journal sequence number it covers (`HistoryBatch.seq`), written in
 * the same transaction, so a restart projects only what came after it and never counts a
 * trade into a candle twice.
 *
 * Two ways of writing, one format: during start-up replay batches are written on this thread,
 * in order, before anything else runs; once the exchange is live (`startThread`) they go to
 * the projection thread (history/projection-worker), and the main thread only builds records.
 * A reply to a write waits for the journal only; a read of history waits for `readable(seq)`
 * with the journal's flushed position when it came, so an order a client was told is filled is
 * in GET /account/orders and its fills in GET /account/fills however far the thread lags.
 *
 * History never holds what the journal does not: a batch is written only once the journal has
 * committed every record it covers (`JournalPosition.whenCommitted`), so a crash (kill -9)
 * cannot leave history ahead of the journal — after one, the journal would hand the lost seqs
 * and orderIds to new commands, and history would show both. The commit comes well before the
 * flush a reply waits for, so a read right after the reply waits for little more than the flush. (A power cut can still lose journal commits that
 * the unflushed history kept: start-up rebuilds history then, storage/data-directory.)
 *
 * Subaccount events (history/account-events: order changes, fills, positions, balances) are
 * numbered here, per owner, in journal order: the number after the owner's newest one in
 * history (read once per owner, then counted in memory). Replay numbers only the records it
 * projects (after `projectedSeq`), exactly as the first run did, so the numbering continues
 * across a restart with no gap and no repeat; live, each numbered event also goes to the
 * feeds (`feed`, ws/feed-relay).
 *
 * Invariants: batches are written in the order they are made; a batch's seq is the journal's
 * last seq when it was made (in replay: the last record applied), so it covers every record
 * queued before it and no record it lacks; it is written only once that seq is committed; live,
 * records wait at most `HOLD_MS` for an idle thread, and not at all once a read waits for them.
 * Backpressure: `behind()` names the reason to refuse new writes when the projection thread lags.
 */
import type { RootDatabase } from 'lmdb';
import type { LedgerEvent } from '../ledger/events.ts';
import type { Side } from '../engine/types.ts';
import { HistoryStore, type HistoryWrite } from './batch.ts';
import type { TransferHistory } from './transfers.ts';
import type { OwnerIdentity } from '../ledger/accounts.ts';
import type { OrderState } from '../app/order-registry.ts';
import type { AccountEventRecord, AccountEventReader } from './account-events.ts';
import type { ExchangeListeners } from '../app/ports.ts';
import { siblingModule, spawnWorker } from '../transport/spawn-worker.ts';
import { batchPacker } from './history-wire.ts';
import type { ProjectionThreadData } from './projection-worker.ts';
import type { ProjectionMessage, ProjectionReport } from './projection-writer.ts';
import type { MarketIndex, OwnerIndex } from '../types/ids.ts';

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

/** The projection thread (history/projection-worker) on the history environment at `data.path`. */
const spawnProjectionThread = (data: ProjectionThreadData): ProjectionThread => spawnWorker(siblingModule('./projection-worker.ts', import.meta.url), { workerData: data });

/** What a reply waits on once the projection thread stopped: it never settles. */
const NEVER = new Promise<void>(() => {});

/** History records (a trade, a fill, one subaccount event…) that may wait for the projection thread before new commands are refused. */
const MAX_QUEUED_RECORDS = 200_000;

/**
 * How long records wait for more before they go to an idle projection thread (ms), when no read
 * waits for them. A history transaction costs mostly per B-tree page it copies and writes, and
 * the pages are the same for one record or fifty (each subaccount's entries sit together), so
 * bigger batches cost the thread less per order: bench:order-path, the thread's CPU per order
 * 42.0 · 42.5 · 43.5 µs sending at once against 29.0 · 31.0 · 27.0 µs holding 20 ms, the
 * server's 237 → 220 µs (three runs of each, alternated; docs/benchmarks.md). A
 * read that must see the records (`caughtUp`, `readable`) sends them at once, so no reply waits
 * for the hold; only the candle feeds, which follow written history, see it (at most this late).
 */
export const HOLD_MS = 20;
/** Queued records that end a hold at once: a transaction stays bounded however fast orders come. */
const HOLD_RECORDS = 5_000;

const RESOLVED = Promise.resolve();

/** `Omit` applied to each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What projections need of the journal: how far it is appended, and when a seq is committed. */
export interface JournalPosition {
  lastSeq(): number;
  committedSeq(): number;
  whenCommitted(seq: number): Promise<void>;
}

interface Waiter {
  seq: number;
  resolve(): void;
  reject(error: Error): void;
}

export class Projections {
  private readonly store: HistoryStore;
  /** For reads of the transfer history (the gateway's). */
  readonly transfers: TransferHistory;
  /** For a resuming feed's reads of the subaccount events (the gateway's). */
  readonly accountEvents: AccountEventReader;
  private queue: HistoryWrite[] = [];
  /** The records in `queue` (a subaccount's events count one each, though they travel as one write). */
  private queuedRecords = 0;
  /** Transfers numbered in the order they settle (history is rebuilt in journal order). */
  private transferCount: number;
  /** Who an owner id is: set once the ledger exists. */
  identity: (owner: OwnerIndex) => OwnerIdentity | undefined = () => undefined;
  /** The last journal sequence number whose projections were written before this start. */
  readonly projectedSeq: number;
  /** The layout the history was written in (history/store `HISTORY_FORMAT`; undefined: an older build's, or nothing written yet). */
  readonly format: number | undefined;
  /** The journal record being applied (replay sets it; live it is always past `projectedSeq`). */
  applying = Number.MAX_SAFE_INTEGER;
  /** The journal: its last seq is read when a batch is made, and the batch waits for its commit. */
  journal: JournalPosition = { lastSeq: () => 0, committedSeq: () => 0, whenCommitted: () => RESOLVED };
  /** The market sequence number of the book event being applied (ledger fills carry none): set by `atEvent`. */
  currentSeq = 0;

  private thread: ProjectionThread | null = null;
  /** Packs the batches for the one thread `startThread` starts (history/history-wire: a stream per thread). */
  private readonly packBatch = batchPacker();
  /** Seq of the newest batch the thread reported written. */
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
  /** The newest event number of each owner numbered since start (history has the others'). */
  private readonly accountSeqs = new Map<OwnerIndex, number>();
  /** The queued event writes of the journal record `groupedRecord`, by subaccount (`queueAccountEvent`). */
  private readonly groups = new Map<OwnerIndex, AccountEventRecord[]>();
  private groupedRecord = -1;
  /**
   * Called once if the projection thread ends without being asked to (it threw or exited) or
   * reports a batch it could not write (it writes nothing after one): either way no history can
   * be written from then on, and no reply that waits for it can come (pipeline: fatal).
   */
  onThreadStopped: (reason: string) => void = () => {};
  /** `close` or `terminate` was called: the thread's end is expected. */
  private ending = false;
  /** The feeds, once live: they hear every numbered subaccount event and every written batch. */
  feed: { account(event: AccountEventRecord): void; historyWritten(): void } | null = null;

  /** Rejects when the projection thread stops (what `allWritten` waits on beside the position). */
  private readonly stopped: Promise<never>;
  private stop: (error: Error) => void = () => {};

  constructor(private readonly env: RootDatabase) {
    this.stopped = new Promise<never>((_, reject) => (this.stop = reject));
    // Nobody may be waiting when the thread stops: that is not an unhandled rejection.
    this.stopped.catch(() => {});
    this.store = new HistoryStore(env);
    this.transfers = this.store.transfers;
    this.accountEvents = this.store.accountEvents;
    const position = this.store.position();
    this.projectedSeq = position.seq;
    this.format = position.format;
    this.transferCount = position.transferCount;
  }

  /** Queues a write, unless replay is re-applying a record whose projections are already written. */
  private push(write: HistoryWrite): void {
    if (this.applying <= this.projectedSeq) return;
    this.queue.push(write);
    this.queuedRecords++;
  }

  /** Numbers a subaccount event and hands it to the feeds; the caller queues it. */
  private numbered<E extends DistributiveOmit<AccountEventRecord, 'owner' | 'seq'>>(owner: OwnerIndex, event: E): E & { owner: OwnerIndex; seq: number } {
    const seq = (this.accountSeqs.get(owner) ?? this.accountEvents.lastSeq(owner)) + 1;
    this.accountSeqs.set(owner, seq);
    const record = { owner, seq, ...event };
    this.feed?.account(record as AccountEventRecord);
    return record;
  }

  /** Numbers a subaccount event and queues it (and hands it to the feeds), unless replay already projected it. */
  private accountEvent(owner: OwnerIndex, event: DistributiveOmit<AccountEventRecord, 'owner' | 'seq'>): void {
    if (this.applying <= this.projectedSeq) return;
    this.queueAccountEvent(this.numbered(owner, event) as AccountEventRecord);
  }

  /**
   * Queues a numbered event with the others its subaccount got from the same journal record:
   * one write per record and subaccount (history/account-events). The record is told apart by
   * its seq: replay's, or live the one it is about to be journaled at (a command or a book
   * event is journaled after it is applied, sequencer; a replica journals first, and its seq
   * tells the records apart as well). It depends on the journal alone, not on batching.
   */
  private queueAccountEvent(record: AccountEventRecord): void {
    const recordSeq = this.applying !== Number.MAX_SAFE_INTEGER ? this.applying : this.journal.lastSeq() + 1;
    if (recordSeq !== this.groupedRecord) {
      this.groups.clear();
      this.groupedRecord = recordSeq;
    }
    this.queuedRecords++;
    const events = this.groups.get(record.owner);
    if (events !== undefined) {
      events.push(record);
      return;
    }
    const first = [record];
    this.groups.set(record.owner, first);
    this.queue.push({ kind: 'accountEvents', events: first });
  }

  /** Called with each book event before the ledger applies it, live and in replay alike: fills are keyed by its market seq. */
  readonly atEvent = (view: DataView, offset: number): void => {
    this.currentSeq = view.getFloat64(offset + 8, true);
  };

  /** The listeners to hand the Exchange. */
  listeners(): ExchangeListeners {
    return {
      // One write per change: the numbered event carries the order's state for both projections.
      orderChanged: (o: OrderState) => {
        if (this.applying <= this.projectedSeq) return;
        this.queueAccountEvent(this.numbered(o.owner, { kind: 'order' as const, order: { ...o } }));
      },
      trade: (market: MarketIndex, seq: number, time: number, price: number, quantity: number, takerSide: Side) => {
        this.push({ kind: 'trade', record: { marketIndex: market, seq, time, price, quantity, takerSide } });
      },
      ledgerEvent: (e: LedgerEvent) => {
        if (e.type === 'fill') {
          this.push({
            kind: 'fill',
            record: {
              owner: e.owner,
              marketIndex: e.market,
              seq: this.currentSeq,
              time: e.time,
              orderId: e.orderId,
              price: e.price,
              quantity: e.side * e.quantity,
              realizedExposure: e.realizedExposure,
              realizedFunding: e.realizedFunding,
              realizedPnl: e.realizedPnl,
              realizedPoints: e.realizedPoints,
            },
          });
          this.accountEvent(e.owner, {
            kind: 'fill',
            fill: {
              market: e.market,
              marketSeq: this.currentSeq,
              orderId: e.orderId,
              side: e.side,
              price: e.price,
              quantity: e.quantity,
              notional: String(e.notional),
              fee: String(e.fee),
              realizedPnl: String(e.realizedPnl),
              realizedFunding: String(e.realizedFunding),
              maker: e.maker,
              liquidation: e.liquidation,
              time: e.time,
            },
          });
        } else if (e.type === 'position') {
          this.accountEvent(e.owner, {
            kind: 'position',
            position: { market: e.market, quantity: e.quantity, basis: String(e.basis), fees: String(e.fees), funding: String(e.funding), margin: String(e.margin), isolated: e.isolated, updatedAt: e.updatedAt },
          });
        } else if (e.type === 'balance') {
          this.accountEvent(e.owner, { kind: 'balance', balance: { delta: String(e.delta), collateral: String(e.collateral), reason: e.reason, time: e.time } });
        } else if (e.type === 'transfer') {
          if (this.applying <= this.projectedSeq) return;
          const from = this.identity(e.from)!;
          const to = this.identity(e.to)!;
          this.push({
            kind: 'transfer',
            record: {
              id: ++this.transferCount,
              time: e.time,
              fromOwner: e.from,
              toOwner: e.to,
              accountFrom: from.address,
              subaccountIndexFrom: from.subaccountIndex,
              accountTo: to.address,
              subaccountIndexTo: to.subaccountIndex,
              amount: e.amount,
            },
          });
        } else if (e.type === 'fundingRate') {
          this.push({ kind: 'fundingRate', record: { marketIndex: e.market, time: e.time, rate: e.rate } });
        }
      },
    };
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
    if (this.queue.length === 0) return;
    if (this.thread !== null && (this.batchInFlight || this.holdTimer !== null)) return;
    if (this.thread !== null && this.waiters.length === 0 && this.queuedRecords < HOLD_RECORDS) {
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
   * One batch at a time is in flight to the thread: what is queued meanwhile goes as one batch
   * when it reports back, so under load each message (a copy and a wake-up of the thread) and
   * each history transaction carries many turns' records.
   */
  flush(markDone = false): void {
    if (this.queue.length === 0 && !markDone) return;
    if (this.thread !== null && this.batchInFlight) {
      this.positionOwed ||= markDone;
      return;
    }
    // Live, a batch covers the journal up to now. In replay (no thread yet) it covers only the
    // records applied so far (`applying`, the last one applied when `onBatch` calls): the
    // journal's end is still ahead, and a start killed before it must not leave history
    // claiming records it never wrote — the next start would skip them for good.
    const seq = this.thread === null ? Math.min(this.journal.lastSeq(), this.applying) : this.journal.lastSeq();
    // Replay writes here, at once: what the journal has not committed yet (events replay added
    // at its end) waits in the queue for the first batch of the thread, which waits for it.
    if (this.thread === null && seq > this.journal.committedSeq()) return;
    this.endHold();
    const batch = { seq, transferCount: this.transferCount, writes: this.queue };
    this.queue = [];
    this.queuedRecords = 0;
    // A batch ends between records: nothing more joins the writes it took.
    this.groups.clear();
    this.groupedRecord = -1;
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
    if (seq <= this.journal.committedSeq()) post();
    else this.journal.whenCommitted(seq).then(post, (error: Error) => this.fail(error));
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
    if (this.queue.length === 0 && (!this.batchInFlight || seq <= this.writtenSeq)) return RESOLVED;
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
    if (seq <= this.writtenSeq || (this.queue.length === 0 && !this.batchInFlight)) return null;
    return this.caughtUp(seq);
  }

  /** Journal records whose history is not written yet: 0 when nothing is queued or in flight (metrics). */
  lag(): number {
    if (this.queue.length === 0 && !this.batchInFlight) return 0;
    return Math.max(0, this.journal.lastSeq() - this.writtenSeq);
  }

  /** Why new writes should be refused now, or null. */
  behind(): string | null {
    if (this.failure !== null) return 'history cannot be written';
    return this.queuedRecords > MAX_QUEUED_RECORDS ? 'history is behind' : null;
  }

  /**
   * Resolves once everything journaled so far is written; rejects if the projection thread stops
   * first (a snapshot or a stop waiting here must not wait for ever — replies waiting for history
   * get no answer instead, see `threadStopped`).
   */
  allWritten(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    this.flush(true);
    return Promise.race([this.caughtUp(this.journal.lastSeq()), this.stopped]);
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
    this.onThreadStopped(reason);
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
    if (this.positionOwed || this.queuedRecords >= HOLD_RECORDS || this.waiters.some((w) => w.seq > report.seq)) this.flush(this.positionOwed);
    else if (this.queue.length > 0) this.hold();
    const all = !this.batchInFlight && this.queue.length === 0;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      if (all || w.seq <= report.seq) w.resolve();
      else this.waiters.push(w);
    }
    this.feed?.historyWritten();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.endHold();
    this.stop(this.failure);
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.reject(this.failure);
  }
}
