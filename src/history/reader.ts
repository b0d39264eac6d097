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
 * Cost: a query is one range read of at most `limit` entries of its kind (the subaccount's
 * timeline keeps fills, created and updated entries in ranges of their own, history/store),
 * except where a filter skips entries (fills by market, orders by status/market/type): then it
 * reads past the keys it skips, keys only — an order's record is read only for an entry it may
 * list (a status filter on the created window reads the record of each entry in the window),
 * and an order listed by updatedAt may have one superseded entry (read) beside its latest. At
 * most `SEARCH_LIMIT` entries: past that a listing throws `SearchTooBroad` and the route asks
 * for a narrower window. The 24h summary reads at most 59 + 24 + 59 candles (1-minute edges,
 * 1-hour middle). A clientId lookup reads at most `scan` orders per subaccount of the account.
 * May import: types/ids, history/, lmdb (types), app/order-registry (the stored order's shape).
 */
import { candleStart, INTERVAL_1H, INTERVAL_1M, mergeCandles, type Candle, type CandleInterval } from './candles.ts';
import { changeKind, FINAL_STATUS_CODE, finishedKind, KEY_TOP, loadCandle, loadFill, loadTrade, openHistoryDatabases, ORDER_TYPE_CODE, TIMELINE_CREATED, TIMELINE_FILL, TIMELINE_UPDATED, type HistoryDatabases, type StoredFill } from './store.ts';
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
import type { MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';
import { orderOfStored } from '../app/order-registry.ts';

const DAY = 24 * 3600_000;

/**
 * Most timeline entries one listing reads (its keys; a few of them also their record). A
 * listing whose filters match little in a long history (an order type never used, a rarely
 * traded market among a market maker's million orders) would otherwise read the subaccount's
 * whole history on the gateway's thread, holding every other request and order behind it.
 * 20,000 entries are the newest changes of 20,000 orders, or 20,000 fills: bench:history-read
 * measures what a listing stopped there costs.
 */
export const SEARCH_LIMIT = 20_000;

/** A listing stopped at `SEARCH_LIMIT` entries before it was complete: its window is too wide. */
export class SearchTooBroad extends Error {
  constructor() {
    super('a history listing reached its search limit');
  }
}

/**
 * Range options reading keys `[...prefix, t, …]` with from ≤ t < to, newest first; with
 * `after` (a key suffix `[t, …]`), only the keys below `[...prefix, ...after]` as well.
 */
function newestFirst(prefix: number[], from: number | undefined, to: number | undefined, after?: readonly number[]) {
  const below = after !== undefined && (to === undefined || after[0] < to) ? [...prefix, ...after] : [...prefix, to ?? KEY_TOP];
  return {
    start: below,
    exclusiveStart: true,
    end: [...prefix, from ?? 0],
    inclusiveEnd: true,
    reverse: true,
  };
}

/** Whether timeline entry `a` comes before `b` newest first: later, then a higher orderId, then a final status' range before the open changes'. */
function newer(a: number[], b: number[]): boolean {
  return a[2] !== b[2] ? a[2] > b[2] : a[3] !== b[3] ? a[3] > b[3] : a[1] > b[1];
}

export class HistoryReader implements MarketHistory {
  private readonly dbs: HistoryDatabases;

  /**
   * Over databases already opened, or opened here from the exchange's history environment.
   * `searchLimit`: most entries a listing reads (`SEARCH_LIMIT`; smaller in tests).
   */
  constructor(source: HistoryDatabases | RootDatabase, private readonly searchLimit = SEARCH_LIMIT) {
    this.dbs = 'tradesByTime' in source ? source : openHistoryDatabases(source);
  }

  trades(marketIndex: MarketIndex, query: RangeQuery): TradeRecord[] {
    const out: TradeRecord[] = [];
    if (query.from === undefined && query.to === undefined && query.after === undefined) {
      for (const { key, value } of this.dbs.trades.getRange({ start: [marketIndex, KEY_TOP], end: [marketIndex], reverse: true, limit: query.limit })) {
        out.push(loadTrade(marketIndex, key[1], value));
      }
      return out;
    }
    for (const { key, value } of this.dbs.tradesByTime.getRange({ ...newestFirst([marketIndex], query.from, query.to, query.after), limit: query.limit })) {
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

  /** Fills of a subaccount, newest first. Throws `SearchTooBroad` past `SEARCH_LIMIT` entries. */
  fills(owner: OwnerIndex, query: FillQuery): AccountFillRecord[] {
    const out: AccountFillRecord[] = [];
    let read = 0;
    for (const { key, value } of this.dbs.timeline.getRange(newestFirst([owner, TIMELINE_FILL], query.from, query.to, query.after))) {
      if (++read > this.searchLimit) throw new SearchTooBroad();
      if (query.marketIndex !== undefined && key[3] !== query.marketIndex) continue;
      out.push(loadFill(key, value as StoredFill));
      if (out.length >= query.limit) break;
    }
    return out;
  }

  order(orderId: OrderId): OrderRecord | undefined {
    const stored = this.dbs.orders.get(orderId);
    return stored === undefined ? undefined : orderOfStored(stored);
  }

  /**
   * Orders of a subaccount, newest first by the time `query.by` names (default updatedAt). The
   * market, type and final status are read from each entry's key (store), so an order's record
   * is read only for an entry the query may list. Throws `SearchTooBroad` past the search limit.
   */
  orders(owner: OwnerIndex, query: OrderQuery): OrderRecord[] {
    const types = query.orderTypes === undefined ? undefined : new Set([...query.orderTypes].flatMap((t) => ORDER_TYPE_CODE.get(t) ?? []));
    const out: OrderRecord[] = [];
    let read = 0;
    // Records read and not listed (a status filter over the created window): each costs as much as ten keys.
    let passed = 0;
    for (const key of query.by === 'created' ? this.dbs.timeline.getKeys(newestFirst([owner, TIMELINE_CREATED], query.from, query.to, query.after)) : this.latestChanges(owner, query)) {
      if (++read + 10 * passed > this.searchLimit) throw new SearchTooBroad();
      if (query.marketIndex !== undefined && key[4] !== query.marketIndex) continue;
      if (types !== undefined && !types.has(key[5])) continue;
      const order = this.dbs.orders.get(key[3]);
      if (order === undefined || (query.statuses !== undefined && !query.statuses.has(order.status))) {
        passed++;
        continue;
      }
      // An update entry is the order's latest change only at the order's updatedAt (an entry
      // newer than the window's end superseded it).
      if (query.by !== 'created' && (key[2] !== order.updatedAt || key[1] !== changeKind(order.status))) continue;
      out.push(orderOfStored(order));
      if (out.length >= query.limit) break;
    }
    return out;
  }

  /**
   * The newest change of each order of `owner` in the window, newest first: the open changes'
   * range and the ranges of the final statuses merged (history/store), only those the query's
   * statuses can match — `status=filled` reads no entry of a cancelled order. An order's
   * older entries (met after a newer one) are skipped by key.
   */
  private *latestChanges(owner: OwnerIndex, query: Pick<OrderQuery, 'statuses' | 'from' | 'to' | 'after'>): Generator<number[]> {
    const kinds: number[] = [];
    if (query.statuses === undefined || [...query.statuses].some((s) => !FINAL_STATUS_CODE.has(s))) kinds.push(TIMELINE_UPDATED);
    for (const [status, code] of FINAL_STATUS_CODE) if (query.statuses === undefined || query.statuses.has(status)) kinds.push(finishedKind(code));
    const ranges = kinds.map((kind) => this.dbs.timeline.getKeys(newestFirst([owner, kind], query.from, query.to, query.after))[Symbol.iterator]());
    const heads = ranges.map((range) => range.next());
    const met = new Set<number>();
    for (;;) {
      // The newest head: by time, then orderId, and an order's terminal entry before its open one at the same ms.
      let next = -1;
      for (let i = 0; i < heads.length; i++) {
        if (heads[i].done) continue;
        if (next < 0 || newer(heads[i].value, heads[next].value)) next = i;
      }
      if (next < 0) return;
      const key = heads[next].value as number[];
      heads[next] = ranges[next].next();
      if (met.has(key[3])) continue;
      met.add(key[3]);
      yield key;
    }
  }

  /**
   * The newest order (highest orderId) with this clientId among each owner's `scan` most
   * recently updated orders, or undefined. Bounded: a clientId never used costs at most
   * owners × scan reads. (A closed order's clientId may name a newer order later; the newer
   * was created after the older closed, so each owner's first match is its newest.)
   */
  latestByClient(owners: readonly OwnerIndex[], clientId: string, scan: number): OrderRecord | undefined {
    let newest: OrderRecord | undefined;
    for (const owner of owners) {
      let scanned = 0;
      for (const key of this.latestChanges(owner, {})) {
        const order = this.dbs.orders.get(key[3]);
        if (order === undefined) continue;
        if (order.clientId === clientId) {
          if (newest === undefined || order.orderId > newest.orderId) newest = orderOfStored(order);
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
