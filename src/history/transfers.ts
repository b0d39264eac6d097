/**
 * @module history/transfers
 *
 * The transfers projection: every settled transfer between subaccounts, listed per subaccount
 * for GET /account/transfer/history. One named database in the history environment (count it
 * in history/history-env's `maxDbs`), written like the other projections — `onTransfer`
 * inside a history batch's write transaction (history/batch), with `putSync`.
 *
 * Key: `[owner, time, id]` → the transfer, once under the debited owner and once under the
 * credited one (a transfer never goes to its own subaccount). `id` is the caller's unique,
 * increasing number for the event (the order transfers settle in), so two transfers in the same
 * millisecond keep their order. Amounts are stored as decimal integer strings (base units).
 * Query: newest first, `from` on or after and `to` before (ms), at most `limit`, optionally
 * only one direction (read past the other: a filter outside the key).
 * May import: types/ids (types), history/, lmdb (types).
 */
import type { Database, RootDatabase } from 'lmdb';
import { projectionDatabase } from './history-env.ts';
import { KEY_TOP } from './store.ts';
import type { RangeQuery } from './types.ts';
import type { OwnerIndex } from '../types/ids.ts';

/** A settled transfer, as the projections build it from the ledger's `transfer` event. */
export interface TransferRecord {
  /** Unique and increasing: transfers are numbered in the order they settle (kept across restarts). */
  id: number;
  time: number;
  fromOwner: OwnerIndex;
  toOwner: OwnerIndex;
  accountFrom: string;
  subaccountIndexFrom: number;
  accountTo: string;
  subaccountIndexTo: number;
  /** Collateral base units (COLLATERAL_SCALE), > 0. */
  amount: bigint;
}

/** As stored: the key holds the owner, time and id; the amount is a decimal integer string. */
type StoredTransfer = Omit<TransferRecord, 'id' | 'time' | 'amount'> & { amount: string };

export interface TransferQuery extends RangeQuery {
  /** Only transfers into (`in`) or out of (`out`) the subaccount. */
  direction?: 'in' | 'out';
}

/** What the transfer history route reads. */
export interface TransferHistoryReader {
  transfers(owner: OwnerIndex, query: TransferQuery): TransferRecord[];
}

export class TransferHistory implements TransferHistoryReader {
  private readonly db: Database<StoredTransfer, number[]>;

  constructor(root: RootDatabase) {
    this.db = projectionDatabase<StoredTransfer, number[]>(root, 'history.transfers');
  }

  /** Records a transfer under both subaccounts. Call inside a history batch's write transaction. */
  onTransfer(t: TransferRecord): void {
    const stored: StoredTransfer = {
      fromOwner: t.fromOwner,
      toOwner: t.toOwner,
      accountFrom: t.accountFrom,
      subaccountIndexFrom: t.subaccountIndexFrom,
      accountTo: t.accountTo,
      subaccountIndexTo: t.subaccountIndexTo,
      amount: t.amount.toString(),
    };
    this.db.putSync([t.fromOwner, t.time, t.id], stored);
    this.db.putSync([t.toOwner, t.time, t.id], stored);
  }

  /** Transfers of a subaccount, newest first. */
  transfers(owner: OwnerIndex, query: TransferQuery): TransferRecord[] {
    const out: TransferRecord[] = [];
    // `after` (`[time, id]` of the previous page's last transfer) continues below it.
    const below = query.after !== undefined && (query.to === undefined || query.after[0] < query.to) ? [owner, ...query.after] : [owner, query.to ?? KEY_TOP];
    const range = { start: below, exclusiveStart: true, end: [owner, query.from ?? 0], inclusiveEnd: true, reverse: true };
    for (const { key, value } of this.db.getRange(range)) {
      const direction = value.fromOwner === owner ? 'out' : 'in';
      if (query.direction !== undefined && query.direction !== direction) continue;
      out.push({ id: key[2], time: key[1], ...value, amount: BigInt(value.amount) });
      if (out.length >= query.limit) break;
    }
    return out;
  }
}
