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
 * history.orders          orderId                                 → order record
 * history.timeline        [owner, time, TIMELINE_FILL, marketIndex, seq]    → fill  (marketIndex: seqs are per market)
 *                         [owner, time, TIMELINE_CREATED, orderId]          → null  one per order, at createdAt
 *                         [owner, time, TIMELINE_UPDATED, orderId]          → null  one per change at a new updatedAt
 * history.funding         [marketIndex, time]                     → rate
 * ```
 * A subaccount's timeline holds its fills and both order indexes in one range ordered by
 * time, so what one order adds (its created entry, its updates, its fills) lands on the same
 * page near the end of that range: a batch dirties about one timeline page per subaccount it
 * touches instead of one in each of three databases (LMDB's cost per batch is per page
 * copied and written at commit). A query reads its kind and skips the others. The update
 * entries are append-only: an order that changed again keeps its earlier entries, and the
 * reader lists it only at its latest `updatedAt` (history/writer, history/reader).
 * `history.meta` `format` names this layout (`HISTORY_FORMAT`): a history without it is from
 * an older build, and start-up rebuilds it from the journal (storage/data-directory).
 * Values are msgpack (lmdb's default); `bigint`s are stored as decimal integer strings.
 * May import: types/ids, history/, lmdb types, engine/types.
 */
import type { Database, RootDatabase } from 'lmdb';
import type { Candle } from './candles.ts';
import type { AccountFillRecord, OrderRecord, TradeRecord } from './types.ts';
import type { Side } from '../engine/types.ts';
import { asMarketIndex, type MarketIndex, type OrderId } from '../types/ids.ts';

export const HISTORY_DATABASE_COUNT = 6;

/** The layout above; history written in another is rebuilt at start (storage/data-directory). */
export const HISTORY_FORMAT = 2;

/** What a timeline entry is: its third key part. */
export const TIMELINE_CREATED = 0;
export const TIMELINE_UPDATED = 1;
export const TIMELINE_FILL = 2;

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
  readonly orders: Database<OrderRecord, number>;
  /** Fills (`StoredFill`) and the order index entries (null) of each subaccount. */
  readonly timeline: Database<StoredFill | null, Key>;
  readonly funding: Database<string, Key>;
}

/** Opens (creating when absent) the projections' databases in `root`. */
export function openHistoryDatabases(root: RootDatabase): HistoryDatabases {
  const db = <V, K extends Key | number>(name: string) => root.openDB<V, K>({ name });
  return {
    root,
    trades: db<StoredTrade, Key>('history.trades'),
    tradesByTime: db<StoredTrade, Key>('history.tradesByTime'),
    candles: db<StoredCandle, Key>('history.candles'),
    orders: db<OrderRecord, number>('history.orders'),
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
  return [f.owner, f.time, TIMELINE_FILL, f.marketIndex, f.seq];
}

export function loadFill(key: Key, s: StoredFill): AccountFillRecord {
  const [owner, time, , marketIndex, seq] = key;
  return {
    owner,
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
