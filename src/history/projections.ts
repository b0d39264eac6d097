/**
 * @module history/projections
 *
 * Turns what the exchange reports (order changes, trades, settled fills, funding rates,
 * transfers) into history records, and queues them for the next batch. History is derived data
 * in its own LMDB environment: the journal is what must survive a power cut. When a batch is
 * made, where it is written, and the reads that wait for it are history/projection-batches';
 * this class hands its API on, so the rest of the exchange holds one object for history's
 * write side.
 *
 * Subaccount events (history/account-events: order changes, fills, positions, balances) are
 * numbered here, per owner, in journal order: the number after the owner's newest one in
 * history (read once per owner, then counted in memory). Replay numbers only the records it
 * projects (after `projectedSeq`), exactly as the first run did, so the numbering continues
 * across a restart with no gap and no repeat; live, each numbered event also goes to the
 * feeds (`feed`, ws/feed-relay).
 *
 * Invariants: a record replay re-applies at or before `projectedSeq` is not queued again (its
 * projections are written); a subaccount's events from one journal record are one write, told
 * apart by the record's seq alone, so the grouping does not depend on batching; a batch ends
 * between records (`take` starts a new group).
 *
 * May import: history/batch, history/transfers (types), history/account-events (types),
 * history/projection-batches, history/projection-worker (types), ledger/events (types),
 * ledger/accounts (types), engine/types (types), app/order-registry (types), app/ports (types),
 * types/ids (types), lmdb (types).
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
import { ProjectionBatches, type JournalPosition, type ProjectionThread } from './projection-batches.ts';
import type { ProjectionThreadData } from './projection-worker.ts';
import type { MarketIndex, OwnerIndex } from '../types/ids.ts';

/** `Omit` applied to each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export class Projections {
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
  journal: JournalPosition = { lastSeq: () => 0, committedSeq: () => 0, whenCommitted: () => Promise.resolve() };
  /** The market sequence number of the book event being applied (ledger fills carry none): set by `atEvent`. */
  currentSeq = 0;

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
  /** The feeds, once live: they hear every numbered subaccount event and every written batch. */
  feed: { account(event: AccountEventRecord): void; historyWritten(): void } | null = null;
  private readonly batches: ProjectionBatches;

  constructor(env: RootDatabase) {
    const store = new HistoryStore(env);
    this.transfers = store.transfers;
    this.accountEvents = store.accountEvents;
    const position = store.position();
    this.projectedSeq = position.seq;
    this.format = position.format;
    this.transferCount = position.transferCount;
    this.batches = new ProjectionBatches(env, store, {
      queuedRecords: () => this.queuedRecords,
      take: () => this.take(),
      applying: () => this.applying,
      journal: () => this.journal,
      written: () => this.feed?.historyWritten(),
      threadStopped: (reason) => this.onThreadStopped(reason),
    });
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

  /**
   * The queued writes for a batch, with the transfers numbered so far; the queue starts empty.
   * A batch ends between records: nothing more joins the writes it took.
   */
  private take(): { writes: HistoryWrite[]; transferCount: number } {
    const writes = this.queue;
    this.queue = [];
    this.queuedRecords = 0;
    this.groups.clear();
    this.groupedRecord = -1;
    return { writes, transferCount: this.transferCount };
  }

  // The write side's batches, as history/projection-batches documents them.

  /** From now on batches are written by the projection thread (`spawn` starts it). Call once replay is done. */
  startThread(path: string, spawn?: (data: ProjectionThreadData) => ProjectionThread): void {
    this.batches.startThread(path, spawn);
  }

  /** Writes what is queued soon: at the end of this turn in replay, after the hold live. */
  flushSoon(): void {
    this.batches.flushSoon();
  }

  /** Makes a batch now (with `markDone` even of nothing, to move the position). */
  flush(markDone = false): void {
    this.batches.flush(markDone);
  }

  /** Resolves when every history record of the journal up to `seq` is written and readable here. */
  caughtUp(seq: number): Promise<void> {
    return this.batches.caughtUp(seq);
  }

  /** Read-your-writes: null when history holds every record up to `seq`, else the wait for it. */
  readable(seq: number): Promise<void> | null {
    return this.batches.readable(seq);
  }

  /** Journal records whose history is not written yet (metrics). */
  lag(): number {
    return this.batches.lag();
  }

  /** Why new writes should be refused now, or null. */
  behind(): string | null {
    return this.batches.behind();
  }

  /** Resolves once everything journaled so far is written; rejects if the projection thread stops first. */
  allWritten(): Promise<void> {
    return this.batches.allWritten();
  }

  /** Writes what is left, then stops the projection thread. */
  close(): Promise<void> {
    return this.batches.close();
  }

  /** Ends the projection thread at once, whatever it was writing (a start that failed). */
  terminate(): Promise<void> {
    return this.batches.terminate();
  }
}
