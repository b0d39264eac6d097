/**
 * @module history/store
 *
 * The history projections' named databases, their key layouts and value codecs. The
 * environment is passed in, never opened here: history/projections opens one beside the
 * journal's (open it with `maxDbs` ≥ `HISTORY_DATABASE_COUNT` + its own).
 *
 * Keys (lmdb ordered-binary arrays of integers, so ranges sort numerically):
 * ```
 * history.trades          [marketIndex, seq]                      → trade   newest first = reverse read
 * history.tradesByTime    [marketIndex, time, seq]                → trade   from/to windows
 * history.candles         [marketIndex, intervalIndex, start]     → candle
 * history.orders          orderId                                 → order record (app/order-registry `StoredOrder`)
 * history.timeline        [owner, TIMELINE_FILL, time, marketIndex, seq]                  → fill  (marketIndex: seqs are per market)
 *                         [owner, TIMELINE_CREATED, time, orderId, marketIndex, type]      → null  one per order, at createdAt
 *                         [owner, TIMELINE_UPDATED, time, orderId, marketIndex, type]      → null  a change that leaves it open
 *                         [owner, finishedKind(final), time, orderId, marketIndex, type]   → null  its terminal change
 * history.funding         [marketIndex, time]                     → rate
 * ```
 * A subaccount's timeline holds its fills and its order entries, each kind in its own range
 * ordered by time, so a listing reads only the kinds it lists (a market maker's few fills are
 * not found among its million cancelled orders' entries). An order's changes are append-only
 * entries: one at each new updatedAt while it stays open, and one for its terminal change in
 * the range of its final status (`FINAL_STATUS_CODE`: filled, cancelled, expired, rejected;
 * a terminal status never changes again), so the orders that ended filled are listed without
 * reading past the others. A listing by updatedAt merges the ranges it needs newest first and
 * lists an order at its newest entry (history/reader); the older ones stay. Order entries carry
 * what a listing filters on that never changes — the market and the order type
 * (`ORDER_TYPE_CODE`) — so a filter skips by key, and an order's record is read only for an
 * entry the listing may list.
 * `history.meta` `format` names this layout (`HISTORY_FORMAT`): a history without it is from
 * an older build, and start-up rebuilds it from the journal (storage/data-directory).
 * Values are msgpack records against each database's shared structures (history-env
 * `projectionDatabase`, since format 4); `bigint`s are stored as decimal integer strings. Format 5
 * keeps a subaccount's events one entry per journal record (history/account-events).
 * May import: types/ids, types/orders, history/, lmdb (types), engine/types, app/order-registry (types).
 */
import type { Database, RootDatabase } from 'lmdb';
import { projectionDatabase } from './history-env.ts';
import type { Candle } from './candles.ts';
import type { AccountFillRecord, OrderRecord, TradeRecord } from './types.ts';
import type { Side } from '../engine/types.ts';
import type { StoredOrder } from '../app/order-registry.ts';
import { asMarketIndex, asOwnerIndex, type MarketIndex, type OrderId } from '../types/ids.ts';
import { ORDER_TYPES, type OrderStatus } from '../types/orders.ts';

export const HISTORY_DATABASE_COUNT = 6;

/** The layout above; history written in another is rebuilt at start (storage/data-directory). */
export const HISTORY_FORMAT = 5;

/** What a timeline entry is: its third key part. */
export const TIMELINE_CREATED = 0;
export const TIMELINE_UPDATED = 1;
export const TIMELINE_FILL = 2;

/** An order type's code in its timeline keys: its place in ORDER_TYPES (append new types; never reorder). */
export const ORDER_TYPE_CODE: ReadonlyMap<string, number> = new Map(ORDER_TYPES.map((t, i) => [t, i]));

/** The terminal statuses by their code (1–4): each has its range of finished orders (`finishedKind`). */
export const FINAL_STATUS_CODE: ReadonlyMap<OrderStatus, number> = new Map([['filled', 1], ['cancelled', 2], ['expired', 3], ['rejected', 4]]);

function typeCode(o: OrderRecord): number {
  const code = ORDER_TYPE_CODE.get(o.orderType);
  if (code === undefined) throw new Error(`order ${o.orderId} has no order type history can index: ${o.orderType}`);
  return code;
}

/** The timeline kind listing the orders that ended with final status `code` (1–4): after the kinds above. */
export function finishedKind(code: number): number {
  return TIMELINE_FILL + code;
}

/** The timeline entry an order gets at creation. */
export function createdKey(o: OrderRecord): number[] {
  return [o.owner, TIMELINE_CREATED, o.createdAt, o.orderId, o.market, typeCode(o)];
}

/** The timeline kind an order's change in `status` is listed under: the open changes', or its final status' range. */
export function changeKind(status: OrderStatus): number {
  const code = FINAL_STATUS_CODE.get(status);
  return code === undefined ? TIMELINE_UPDATED : finishedKind(code);
}

/** The entry of an order's change, at its updatedAt: among the open changes, or in the range of its final status. */
export function changeKey(o: OrderRecord): number[] {
  return [o.owner, changeKind(o.status), o.updatedAt, o.orderId, o.market, typeCode(o)];
}

/** Above every stored time and sequence: the open upper end of a range. */
export const KEY_TOP = Number.MAX_SAFE_INTEGER;

export interface StoredTrade {
  time: number;
  price: number;
  quantity: number;
  side: Side;
}

export interface StoredCandle {
  open: number;
  high: number;
  low: number;
  close: number;
  volume: string;
  notional: string;
  trades: number;
  fundingRate: string | null;
}

export interface StoredFill {
  orderId: OrderId;
  price: number;
  quantity: number;
  realizedExposure: string;
  realizedFunding: string;
  realizedPnl: string;
  realizedPoints: string;
}

type Key = number[];

export interface HistoryDatabases {
  readonly root: RootDatabase;
  readonly trades: Database<StoredTrade, Key>;
  readonly tradesByTime: Database<StoredTrade, Key>;
  readonly candles: Database<StoredCandle, Key>;
  readonly orders: Database<StoredOrder, number>;
  /** Fills (`StoredFill`) and the order index entries (null) of each subaccount. */
  readonly timeline: Database<StoredFill | null, Key>;
  readonly funding: Database<string, Key>;
}

/** Opens (creating when absent) the projections' databases in `root`. */
export function openHistoryDatabases(root: RootDatabase): HistoryDatabases {
  const db = <V, K extends Key | number>(name: string) => projectionDatabase<V, K>(root, name);
  return {
    root,
    trades: db<StoredTrade, Key>('history.trades'),
    tradesByTime: db<StoredTrade, Key>('history.tradesByTime'),
    candles: db<StoredCandle, Key>('history.candles'),
    orders: db<StoredOrder, number>('history.orders'),
    timeline: db<StoredFill | null, Key>('history.timeline'),
    funding: db<string, Key>('history.funding'),
  };
}

export function storeTrade(t: TradeRecord): StoredTrade {
  return { time: t.time, price: t.price, quantity: t.quantity, side: t.takerSide };
}

export function loadTrade(marketIndex: MarketIndex, seq: number, s: StoredTrade): TradeRecord {
  return { marketIndex, seq, time: s.time, price: s.price, quantity: s.quantity, takerSide: s.side };
}

export function storeCandle(c: Candle): StoredCandle {
  return {
    open: c.open,
    high: c.high,
    low: c.low,
    close: c.close,
    volume: c.volume.toString(),
    notional: c.notional.toString(),
    trades: c.trades,
    fundingRate: c.fundingRate === null ? null : c.fundingRate.toString(),
  };
}

export function loadCandle(start: number, s: StoredCandle): Candle {
  return {
    start,
    open: s.open,
    high: s.high,
    low: s.low,
    close: s.close,
    volume: BigInt(s.volume),
    notional: BigInt(s.notional),
    trades: s.trades,
    fundingRate: s.fundingRate === null ? null : BigInt(s.fundingRate),
  };
}

export function storeFill(f: AccountFillRecord): StoredFill {
  return {
    orderId: f.orderId,
    price: f.price,
    quantity: f.quantity,
    realizedExposure: f.realizedExposure.toString(),
    realizedFunding: f.realizedFunding.toString(),
    realizedPnl: f.realizedPnl.toString(),
    realizedPoints: f.realizedPoints.toString(),
  };
}

/** A fill's timeline key. */
export function fillKey(f: AccountFillRecord): Key {
  return [f.owner, TIMELINE_FILL, f.time, f.marketIndex, f.seq];
}

export function loadFill(key: Key, s: StoredFill): AccountFillRecord {
  const [owner, , time, marketIndex, seq] = key;
  return {
    owner: asOwnerIndex(owner),
    marketIndex: asMarketIndex(marketIndex),
    seq,
    time,
    orderId: s.orderId,
    price: s.price,
    quantity: s.quantity,
    realizedExposure: BigInt(s.realizedExposure),
    realizedFunding: BigInt(s.realizedFunding),
    realizedPnl: BigInt(s.realizedPnl),
    realizedPoints: BigInt(s.realizedPoints),
  };
}
