/**
 * @module history/reader
 *
 * The gateway's queries over the history projections (keys in `history/store`). Reads use
 * lmdb-js's own read transactions and never wait on writers. Results are integer records; the
 * routes format them (`history/views`).
 *
 * Window semantics everywhere: `from` on or after, `to` before (both ms, both optional), and
 * at most `limit` results; when more match, the newest are kept. Listings come newest first,
 * except candles, which come ascending (the newest `limit`, then in time order).
 *
 * Cost: a query is one range read of at most `limit` entries, except where a filter is not
 * part of the key (fills by market, orders by status/market/type), which reads past what it
 * skips. Fills and orders share the subaccount's timeline (history/store): each of those
 * queries also reads past the other kinds' entries in its window — about three per order
 * (created, updated, superseded updates) beside its fills. The 24h summary reads at most 59 +
 * 24 + 59 candles (1-minute edges, 1-hour middle). A clientId lookup reads at most `scan`
 * orders per subaccount of the account (and the other entries of the timeline among them).
 * May import: types/ids, history/, lmdb types.
 */
import { candleStart, INTERVAL_1H, INTERVAL_1M, mergeCandles, type Candle, type CandleInterval } from './candles.ts';
import { KEY_TOP, loadCandle, loadFill, loadTrade, openHistoryDatabases, TIMELINE_CREATED, TIMELINE_FILL, TIMELINE_UPDATED, type HistoryDatabases, type StoredFill } from './store.ts';
import type { RootDatabase } from 'lmdb';
import type {
  AccountFillRecord,
  FillQuery,
  FundingRateRecord,
  MarketHistory,
  MarketSummary,
  OrderQuery,
  OrderRecord,
  RangeQuery,
  TradeRecord,
} from './types.ts';
import type { MarketIndex, OrderId } from '../types/ids.ts';

const DAY = 24 * 3600_000;

/** Range options reading keys `[...prefix, t, …]` with from ≤ t < to, newest first. */
function newestFirst(prefix: number[], from: number | undefined, to: number | undefined) {
  return {
    start: [...prefix, to ?? KEY_TOP],
    exclusiveStart: true,
    end: [...prefix, from ?? 0],
    inclusiveEnd: true,
    reverse: true,
  };
}

export class HistoryReader implements MarketHistory {
  private readonly dbs: HistoryDatabases;

  /** Over databases already opened, or opened here from the exchange's history environment. */
  constructor(source: HistoryDatabases | RootDatabase) {
    this.dbs = 'tradesByTime' in source ? source : openHistoryDatabases(source);
  }

  trades(marketIndex: MarketIndex, query: RangeQuery): TradeRecord[] {
    const out: TradeRecord[] = [];
    if (query.from === undefined && query.to === undefined) {
      for (const { key, value } of this.dbs.trades.getRange({ start: [marketIndex, KEY_TOP], end: [marketIndex], reverse: true, limit: query.limit })) {
        out.push(loadTrade(marketIndex, key[1], value));
      }
      return out;
    }
    for (const { key, value } of this.dbs.tradesByTime.getRange({ ...newestFirst([marketIndex], query.from, query.to), limit: query.limit })) {
      out.push(loadTrade(marketIndex, key[2], value));
    }
    return out;
  }

  /** Trades after market sequence `seq`, oldest first: where a feed resumes. */
  tradesAfter(marketIndex: MarketIndex, seq: number, limit: number): TradeRecord[] {
    const out: TradeRecord[] = [];
    for (const { key, value } of this.dbs.trades.getRange({ start: [marketIndex, seq], exclusiveStart: true, end: [marketIndex, KEY_TOP], limit })) {
      out.push(loadTrade(marketIndex, key[1], value));
    }
    return out;
  }

  candles(marketIndex: MarketIndex, interval: CandleInterval, query: RangeQuery): Candle[] {
    const out: Candle[] = [];
    for (const { key, value } of this.dbs.candles.getRange({ ...newestFirst([marketIndex, interval.index], query.from, query.to), limit: query.limit })) {
      out.push(loadCandle(key[2], value));
    }
    return out.reverse();
  }

  lastPrice(marketIndex: MarketIndex): number | undefined {
    for (const { value } of this.dbs.trades.getRange({ start: [marketIndex, KEY_TOP], end: [marketIndex], reverse: true, limit: 1 })) {
      return value.price;
    }
    return undefined;
  }

  /**
   * The 24 hours up to `now` (ms), at minute resolution: the 1440 one-minute periods ending
   * with the one `now` falls in. Built from stored candles: 1-minute ones at the edges,
   * 1-hour ones in between (equal by construction to the minutes they cover).
   */
  summary24h(marketIndex: MarketIndex, now: number): MarketSummary {
    const end = candleStart(INTERVAL_1M, now) + INTERVAL_1M.ms;
    const from = end - DAY;
    const firstHour = Math.min(candleStart(INTERVAL_1H, from + INTERVAL_1H.ms - 1), end);
    const lastHour = Math.max(candleStart(INTERVAL_1H, end), firstHour);
    const parts = [
      ...this.candlesBetween(marketIndex, INTERVAL_1M, from, firstHour),
      ...this.candlesBetween(marketIndex, INTERVAL_1H, firstHour, lastHour),
      ...this.candlesBetween(marketIndex, INTERVAL_1M, lastHour, end),
    ];
    return { from, window: mergeCandles(parts), lastPrice: this.lastPrice(marketIndex) };
  }

  /** Fills of a subaccount, newest first. */
  fills(owner: number, query: FillQuery): AccountFillRecord[] {
    const out: AccountFillRecord[] = [];
    for (const { key, value } of this.dbs.timeline.getRange(newestFirst([owner], query.from, query.to))) {
      if (key[2] !== TIMELINE_FILL) continue;
      if (query.marketIndex !== undefined && key[3] !== query.marketIndex) continue;
      out.push(loadFill(key, value as StoredFill));
      if (out.length >= query.limit) break;
    }
    return out;
  }

  order(orderId: OrderId): OrderRecord | undefined {
    return this.dbs.orders.get(orderId);
  }

  /** Orders of a subaccount, newest first by the time `query.by` names (default updatedAt). */
  orders(owner: number, query: OrderQuery): OrderRecord[] {
    const kind = query.by === 'created' ? TIMELINE_CREATED : TIMELINE_UPDATED;
    const out: OrderRecord[] = [];
    for (const key of this.dbs.timeline.getKeys(newestFirst([owner], query.from, query.to))) {
      if (key[2] !== kind) continue;
      const order = this.dbs.orders.get(key[3]);
      if (order === undefined) continue;
      // An entry of a superseded change (update entries are append-only, history/writer): listed at its latest time only.
      if (kind === TIMELINE_UPDATED && key[1] !== order.updatedAt) continue;
      if (query.statuses !== undefined && !query.statuses.has(order.status)) continue;
      if (query.marketIndex !== undefined && order.market !== query.marketIndex) continue;
      if (query.orderTypes !== undefined && !query.orderTypes.has(order.orderType)) continue;
      out.push(order);
      if (out.length >= query.limit) break;
    }
    return out;
  }

  /**
   * The newest order (highest orderId) with this clientId among each owner's `scan` most
   * recently updated orders, or undefined. Bounded: a clientId never used costs at most
   * owners × scan reads. (A closed order's clientId may name a newer order later; the newer
   * was created after the older closed, so each owner's first match is its newest.)
   */
  latestByClient(owners: readonly number[], clientId: string, scan: number): OrderRecord | undefined {
    let newest: OrderRecord | undefined;
    for (const owner of owners) {
      let scanned = 0;
      for (const key of this.dbs.timeline.getKeys(newestFirst([owner], undefined, undefined))) {
        if (key[2] !== TIMELINE_UPDATED) continue;
        const order = this.dbs.orders.get(key[3]);
        // A superseded update entry is not one of the orders scanned (the order is, at its latest).
        if (order === undefined || key[1] !== order.updatedAt) continue;
        if (order.clientId === clientId) {
          if (newest === undefined || order.orderId > newest.orderId) newest = order;
          break;
        }
        if (++scanned >= scan) break;
      }
    }
    return newest;
  }

  /** Settled funding rates of a market, newest first. */
  fundingRates(marketIndex: MarketIndex, query: RangeQuery): FundingRateRecord[] {
    const out: FundingRateRecord[] = [];
    for (const { key, value } of this.dbs.funding.getRange({ ...newestFirst([marketIndex], query.from, query.to), limit: query.limit })) {
      out.push({ marketIndex, time: key[1], rate: BigInt(value) });
    }
    return out;
  }

  /** Candles with from ≤ start < to, ascending, all of them. */
  private candlesBetween(marketIndex: MarketIndex, interval: CandleInterval, from: number, to: number): Candle[] {
    if (from >= to) return [];
    const out: Candle[] = [];
    for (const { key, value } of this.dbs.candles.getRange({ start: [marketIndex, interval.index, from], end: [marketIndex, interval.index, to] })) {
      out.push(loadCandle(key[2], value));
    }
    return out;
  }
}
