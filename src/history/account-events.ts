/**
 * @module history/account-events
 *
 * The private feed's log: every event of a subaccount (an order's status change, a settled fill,
 * a position change, a balance change), numbered per subaccount 1, 2, 3… in journal order. A
 * feed client that reconnects resumes from the last number it saw by reading the numbers after
 * it here (ws/account-feed). One named database in the history environment (count it in
 * history/history-env's `maxDbs`), written like the other projections — inside a
 * history batch's write transaction, so its numbering moves with `projectedSeq` and a restart
 * continues it exactly where the journal left it (history/projections numbers the events).
 *
 * Key: `[owner, seq of its last event]` → the events one journal record gave that subaccount
 * (a fill gives each side its order change, the fill, its position and its balance), oldest
 * first: one entry per record and subaccount, not one per event, so a fill costs its two sides
 * two writes instead of eight. The grouping depends only on the journal's records (history/
 * projections groups by the record being applied), never on how they were batched, so a rebuild
 * writes the same entries. Values hold numbers, strings and booleans only (money as decimal
 * integer strings of base units), so they store and cross threads as they are.
 * May import: types/ids, history/, lmdb (types), app/order-registry (the stored order's shape).
 */
import type { Database, RootDatabase } from 'lmdb';
import { projectionDatabase } from './history-env.ts';
import { KEY_TOP } from './store.ts';
import type { OrderRecord } from './types.ts';
import { orderOfStored, storedOrder, type StoredOrder } from '../app/order-registry.ts';
import type { MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';

/** One side of a settled fill (ledger `fill` event); money in collateral base units. */
export interface AccountFillEvent {
  market: MarketIndex;
  /** The market sequence number of the book's fill. */
  marketSeq: number;
  orderId: OrderId;
  side: number;
  price: number;
  quantity: number;
  notional: string;
  fee: string;
  realizedPnl: string;
  realizedFunding: string;
  maker: boolean;
  liquidation: boolean;
  time: number;
}

export interface AccountPositionEvent {
  market: MarketIndex;
  /** Signed lots; 0 = closed. */
  quantity: number;
  basis: string;
  fees: string;
  funding: string;
  margin: string;
  isolated: boolean;
  updatedAt: number;
}

export interface AccountBalanceEvent {
  delta: string;
  collateral: string;
  reason: string;
  time: number;
}

export type OrderEventRecord = { owner: OwnerIndex; seq: number; kind: 'order'; order: OrderRecord };

export type AccountEventRecord =
  | OrderEventRecord
  | { owner: OwnerIndex; seq: number; kind: 'fill'; fill: AccountFillEvent }
  | { owner: OwnerIndex; seq: number; kind: 'position'; position: AccountPositionEvent }
  | { owner: OwnerIndex; seq: number; kind: 'balance'; balance: AccountBalanceEvent };

/** An event as the log stores it: an order change's order as stored (app/order-registry `StoredOrder`). */
type StoredAccountEvent = Exclude<AccountEventRecord, OrderEventRecord> | (Omit<OrderEventRecord, 'order'> & { order: StoredOrder });

/** What a resuming feed reads. */
export interface AccountEventReader {
  /** The newest number given to `owner`'s events (0 = none yet). */
  lastSeq(owner: OwnerIndex): number;
  /** `owner`'s events numbered above `seq`, oldest first, at most `limit`. */
  after(owner: OwnerIndex, seq: number, limit: number): AccountEventRecord[];
}

export class AccountEventLog implements AccountEventReader {
  private readonly db: Database<StoredAccountEvent[], number[]>;

  constructor(root: RootDatabase) {
    this.db = projectionDatabase<StoredAccountEvent[], number[]>(root, 'history.accountEvents');
  }

  /** Records one journal record's events of one subaccount (numbered in a row, oldest first). Call inside a history batch's write transaction. */
  onAccountEvents(events: readonly AccountEventRecord[]): void {
    const last = events[events.length - 1];
    this.db.putSync(
      [last.owner, last.seq],
      events.map((e) => (e.kind === 'order' ? { ...e, order: storedOrder(e.order) } : e)),
    );
  }

  lastSeq(owner: OwnerIndex): number {
    for (const key of this.db.getKeys({ start: [owner, KEY_TOP], end: [owner, 0], reverse: true, limit: 1 })) return key[1];
    return 0;
  }

  after(owner: OwnerIndex, seq: number, limit: number): AccountEventRecord[] {
    const out: AccountEventRecord[] = [];
    // The first entry keyed above `seq` holds the event after it (an entry's key is its last event's number).
    for (const { value } of this.db.getRange({ start: [owner, seq], exclusiveStart: true, end: [owner, KEY_TOP] })) {
      for (const e of value) {
        if (e.seq <= seq) continue;
        if (out.length === limit) return out;
        out.push(e.kind === 'order' ? { ...e, order: orderOfStored(e.order) } : e);
      }
    }
    return out;
  }
}
