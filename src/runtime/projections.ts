/**
 * @module runtime/projections
 *
 * Turns what the exchange reports (order changes, trades, settled fills, funding rates,
 * transfers) into history records, queued and written together once per batch. History is
 * derived data: it lives in its own LMDB environment and needs no flush of its own (the journal
 * is what must survive a power cut). Each batch also records the journal sequence number it
 * covers (`projectedSeq`), in the same transaction, so a restart projects only what came after
 * it and never counts a trade into a candle twice. A history that cannot be opened is rebuilt
 * from the whole journal.
 */
import type { Database, RootDatabase } from 'lmdb';
import type { LedgerEvent } from '../ledger/events.ts';
import type { Side } from '../engine/types.ts';
import { HistoryWriter } from '../history/writer.ts';
import { TransferHistory } from '../history/transfers.ts';
import type { OwnerIdentity } from '../ledger/accounts.ts';
import type { HistoryDatabases } from '../history/store.ts';
import type { OrderState } from './order-registry.ts';
import type { ExchangeListeners } from './exchange.ts';

export class Projections {
  private readonly writer: HistoryWriter;
  readonly transfers: TransferHistory;
  private queue: ((writer: HistoryWriter) => void)[] = [];
  /** Transfers numbered in the order they settle (history is rebuilt in journal order). */
  private transferCount = 0;
  /** Who an owner id is: set once the ledger exists. */
  identity: (owner: number) => OwnerIdentity | undefined = () => undefined;
  /** The last journal sequence number whose projections are written. */
  readonly projectedSeq: number;
  /** The journal record being applied (replay sets it; live it is always past `projectedSeq`). */
  applying = Number.MAX_SAFE_INTEGER;
  /** The journal's last sequence number, read when a batch is written. */
  lastSeq: () => number = () => 0;
  private readonly meta: Database<number, string>;
  /** The market sequence number of the book event being applied (ledger fills carry none). */
  currentSeq = 0;

  constructor(private readonly env: RootDatabase, dbs: HistoryDatabases) {
    this.writer = new HistoryWriter(dbs);
    this.transfers = new TransferHistory(env);
    this.meta = env.openDB<number, string>({ name: 'history.meta' });
    this.projectedSeq = this.meta.get('projectedSeq') ?? 0;
    this.transferCount = this.meta.get('transferCount') ?? 0;
  }

  /** Queues a write, unless replay is re-applying a record whose projections are already written. */
  private push(write: (writer: HistoryWriter) => void): void {
    if (this.applying > this.projectedSeq) this.queue.push(write);
  }

  /** The listeners to hand the Exchange. */
  listeners(): ExchangeListeners {
    return {
      orderChanged: (o: OrderState) => {
        const record = { ...o, marketIndex: o.market };
        this.push((w) => w.onOrderUpdate(record));
      },
      trade: (market: number, seq: number, time: number, price: number, quantity: number, takerSide: Side) => {
        this.push((w) => w.onTrade({ marketIndex: market, seq, time, price, quantity, takerSide }));
      },
      ledgerEvent: (e: LedgerEvent) => {
        if (e.type === 'fill') {
          const record = {
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
          };
          this.push((w) => w.onFill(record));
        } else if (e.type === 'transfer') {
          const from = this.identity(e.from)!;
          const to = this.identity(e.to)!;
          if (this.applying <= this.projectedSeq) return;
          const record = {
            id: ++this.transferCount,
            time: e.time,
            fromOwner: e.from,
            toOwner: e.to,
            accountFrom: from.address,
            subaccountIndexFrom: from.subaccountIndex,
            accountTo: to.address,
            subaccountIndexTo: to.subaccountIndex,
            amount: e.amount,
          };
          this.push(() => this.transfers.onTransfer(record));
        } else if (e.type === 'fundingRate') {
          const record = { marketIndex: e.market, time: e.time, rate: e.rate };
          this.push((w) => w.onFundingRate(record));
        }
      },
    };
  }

  private scheduled = false;

  /**
   * Writes what is queued at the end of this event-loop turn: one transaction for everything a
   * turn produced. It runs before any reply of the turn goes out, because replies wait for the
   * journal's flush, which completes in a later turn.
   */
  flushSoon(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /**
   * Writes everything queued in one transaction, with the sequence number it covers. With
   * `markDone`, the marker moves to the journal's end even when nothing is queued: records that
   * project to nothing (ticks, index prices) are projected too.
   */
  flush(markDone = false): void {
    if (this.queue.length === 0 && !markDone) return;
    const queue = this.queue;
    this.queue = [];
    const seq = this.lastSeq();
    this.writer.batch(
      (writer) => {
        for (const write of queue) write(writer);
      },
      () => {
        this.meta.putSync('projectedSeq', seq);
        this.meta.putSync('transferCount', this.transferCount);
      },
    );
  }
}
