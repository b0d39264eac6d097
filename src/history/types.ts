/**
 * @module history/types
 *
 * What the history projections take in (records history/projections builds from journaled events,
 * in the cores' integer units) and what they give out to the gateway.
 *
 * Units: prices in ticks, quantities in lots, money (`realized*`) `bigint` collateral base
 * units (COLLATERAL_SCALE), rates `bigint` at RATE_SCALE, every time in milliseconds.
 * May import: types/ids, engine/types, history/candles, types/orders, app/order-registry (types:
 * a stored order is the registry's state).
 */
import type { Side } from '../engine/types.ts';
import type { OrderStatus, SignedOrderType } from '../types/orders.ts';
import type { OrderState } from '../app/order-registry.ts';
import type { Candle, CandleInterval } from './candles.ts';
import type { MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';

/** A public trade: one fill of the book, as `BookListener.onFill` reports it. */
export interface TradeRecord {
  marketIndex: MarketIndex;
  /** The market's sequence number of the fill event. */
  seq: number;
  time: number;
  price: number;
  /** Lots, > 0. */
  quantity: number;
  /** The aggressor's side. */
  takerSide: Side;
}

/** One side of a fill, as the ledger settled it for one subaccount. */
export interface AccountFillRecord {
  /** The subaccount (interned by the ledger). */
  owner: OwnerIndex;
  marketIndex: MarketIndex;
  /** The market's sequence number of the fill event (a maker and a taker share it). */
  seq: number;
  time: number;
  orderId: OrderId;
  price: number;
  /** Signed lots: positive bought, negative sold. */
  quantity: number;
  realizedExposure: bigint;
  realizedFunding: bigint;
  realizedPnl: bigint;
  realizedPoints: bigint;
}

/** An account fill as the API shows it (spec "Account fill"): decimals as strings, time in ms. */
export interface AccountFillView {
  price: string;
  quantity: string;
  symbol: string;
  orderId: string;
  realizedExposure: string;
  realizedFunding: string;
  realizedPnl: string;
  realizedPoints: string;
  time: number;
}

/**
 * The latest state of one order, written on every change (`onOrderUpdate`). The order routes
 * format it; the projection only needs `orderId`, `owner`, `market`, `status`,
 * `orderType`, `createdAt` and `updatedAt` to index it, and keeps the rest as given — stored
 * as app/order-registry `StoredOrder` (`filled` named `settled`), read back as this.
 * Values must be msgpack-safe (numbers, strings, booleans, null; no bigint). (Records written
 * before this was the registry's state as it is also carry `marketIndex`, the same as `market`.)
 */
export type OrderRecord = OrderState;

export interface FundingRateRecord {
  marketIndex: MarketIndex;
  /** When the rate was settled (ms). */
  time: number;
  /** RATE_SCALE. */
  rate: bigint;
}

/** A time window and a count: `from` on or after (ms), `to` before (ms), at most `limit`. */
export interface RangeQuery {
  from?: number;
  to?: number;
  limit: number;
  /**
   * Continue after this entry, the last of the previous page: trades `[time, seq]`, fills
   * `[time, marketIndex, seq]`; only older entries follow. Entries share milliseconds, so
   * a time alone cannot say where a page ended.
   */
  after?: readonly number[];
}

export interface FillQuery extends RangeQuery {
  /** Only this market's fills. */
  marketIndex?: MarketIndex;
}

export interface OrderQuery {
  /** Which time the window applies to (and the listing's order, newest first). Default `updated`. */
  by?: 'created' | 'updated';
  from?: number;
  to?: number;
  limit: number;
  /** As `RangeQuery.after`: `[time, orderId]` of the last order of the previous page. */
  after?: readonly number[];
  statuses?: ReadonlySet<OrderStatus>;
  marketIndex?: MarketIndex;
  orderTypes?: ReadonlySet<SignedOrderType>;
}

/** A market's activity over the last 24 hours (see `HistoryReader.summary24h`). */
export interface MarketSummary {
  /** Start of the window (ms): the first of the 1440 minutes it covers. */
  from: number;
  /** Merged 1-minute candles of the window; undefined when nothing traded in it. */
  window: Candle | undefined;
  /** The market's last trade price (ticks), whenever it was; undefined before the first. */
  lastPrice: number | undefined;
}

/**
 * What the public market-data routes read. `HistoryReader` implements it over LMDB; tests
 * may hand in another. Every method may throw when the database fails: routes answer 500.
 */
export interface MarketHistory {
  /** Newest first (by market sequence). */
  trades(marketIndex: MarketIndex, query: RangeQuery): TradeRecord[];
  /** Ascending by start; when more than `limit` match, the newest `limit`. */
  candles(marketIndex: MarketIndex, interval: CandleInterval, query: RangeQuery): Candle[];
  lastPrice(marketIndex: MarketIndex): number | undefined;
  summary24h(marketIndex: MarketIndex, now: number): MarketSummary;
}

/** Mark and index price of a market in ticks, 0 when unknown (as `ledger/mark-price` keeps them). */
/** A market's mark and index in ticks (0 = none yet); `held` while an operator-set index holds it (testnet). */
export type PriceSource = (marketIndex: MarketIndex) => { mark: number; index: number; held?: boolean };
