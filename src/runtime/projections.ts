/**
 * @module runtime/projections
 *
 * Turns what the exchange reports (order changes, trades, settled fills, funding rates) into
 * history records, queued and written together once per batch. History is derived data: it
 * lives in its own LMDB environment, is rebuilt from the journal on start-up, and so needs no
 * flush of its own (the journal is what must survive a power cut).
 */
import type { RootDatabase } from 'lmdb';
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
  private queue: (() => void)[] = [];
  /** Transfers numbered in the order they settle (history is rebuilt in journal order). */
  private transferCount = 0;
  /** Who an owner id is: set once the ledger exists. */
  identity: (owner: number) => OwnerIdentity | undefined = () => undefined;
  /** The market sequence number of the book event being applied (ledger fills carry none). */
  currentSeq = 0;

  constructor(private readonly env: RootDatabase, dbs: HistoryDatabases) {
    this.writer = new HistoryWriter(dbs);
    this.transfers = new TransferHistory(env);
  }

  /** The listeners to hand the Exchange. */
  listeners(): ExchangeListeners {
    return {
      orderChanged: (o: OrderState) => {
        const record = { ...o, marketIndex: o.market };
        this.queue.push(() => this.writer.onOrderUpdate(record));
      },
      trade: (market: number, seq: number, time: number, price: number, quantity: number, takerSide: Side) => {
        this.queue.push(() => this.writer.onTrade({ marketIndex: market, seq, time, price, quantity, takerSide }));
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
          this.queue.push(() => this.writer.onFill(record));
        } else if (e.type === 'transfer') {
          const from = this.identity(e.from)!;
          const to = this.identity(e.to)!;
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
          this.queue.push(() => this.transfers.onTransfer(record));
        } else if (e.type === 'fundingRate') {
          const record = { marketIndex: e.market, time: e.time, rate: e.rate };
          this.queue.push(() => this.writer.onFundingRate(record));
        }
      },
    };
  }

  /** Writes everything queued in one transaction. */
  flush(): void {
    if (this.queue.length === 0) return;
    const queue = this.queue;
    this.queue = [];
    this.env.transactionSync(() => {
      for (const write of queue) write();
    });
  }
}
