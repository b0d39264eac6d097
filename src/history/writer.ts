/**
 * @module history/writer
 *
 * Feeds the history projections from journaled events, one batch (one LMDB write transaction)
 * at a time: `batch(fn)` runs `fn`, which calls one method per event, then writes what the
 * batch changed and commits. Trades and fills are written as they come; candles and orders are
 * collected in the batch and each written once, in its final state, when the batch ends — a
 * batch of a thousand trades writes 11 candles per market, not 11,000, and an order accepted
 * and filled in one batch is written once.
 *
 * Writes are `putSync`/`removeSync` inside the batch's `transactionSync`: performed at once in
 * the open transaction, visible to reads in it, and a failure throws there and aborts the
 * whole batch.
 *
 * Order index entries (in the subaccount's timeline, history/store) are append-only, so an
 * order's change reads nothing and removes nothing: an update entry for every change at a new
 * `updatedAt` while the order is open and one for its terminal change, in the range of its
 * final status (the reader lists an order at its newest entry; history/store), one
 * created entry per order (owner and createdAt never change), put when this thread first sees
 * the order, and again after a restart (the same key and value). Both depend only on the
 * changes, not on how they were batched, so replaying the journal rebuilds them exactly.
 *
 * Cache: the newest candle of each (market, interval) as committed, so a trade reads no candle
 * from LMDB except when a period opens or an older one is touched. It only ever holds what is
 * committed: an aborted batch clears it, and makes every projection database forget the value
 * shapes it had saved (history-env `forgetUncommittedShapes`). The open orders whose created entry is written, so
 * it is put once; it holds only committed orders too. Cost per trade: 2 trade puts and 11
 * in-memory candle updates; per order change, 1 index put; per batch, one put per touched
 * candle and per changed order, and one per order seen for the first time.
 * May import: types/ids, history/, app/order-registry (isTerminal).
 */
import { forgetUncommittedShapes } from './history-env.ts';
import { candlesAfterFundingRate, candlesAfterTrade, CANDLE_INTERVALS, type Candle, type CandleInterval, type CandleState } from './candles.ts';
import { changeKey, createdKey, fillKey, KEY_TOP, loadCandle, storeCandle, storeFill, storeTrade, type HistoryDatabases } from './store.ts';
import type { AccountFillRecord, FundingRateRecord, OrderRecord, TradeRecord } from './types.ts';
import { isTerminal, storedOrder } from '../app/order-registry.ts';
import type { MarketIndex } from '../types/ids.ts';

/** Slot of (market, interval) in the candle maps. */
const slot = (marketIndex: MarketIndex, interval: number): number => marketIndex * CANDLE_INTERVALS.length + interval;

export class HistoryWriter {
  /** Newest committed candle per slot. */
  private readonly newest = new Map<number, Candle>();
  /** Candles this batch changed, per slot and start. */
  private readonly dirtyCandles = new Map<number, Map<number, Candle>>();
  /** Orders this batch changed, in their latest state. */
  private readonly dirtyOrders = new Map<number, OrderRecord>();
  /** Open orders whose created entry is committed (finished ones leave: no change follows). */
  private readonly createdIndexed = new Set<number>();
  private inBatch = false;

  constructor(private readonly dbs: HistoryDatabases) {}

  /**
   * Runs `fn` (the batch's events) and then `after` (the caller's own writes, such as a
   * progress marker) in one write transaction, and commits. Throws what they throw, with
   * nothing of the batch written.
   */
  batch(fn: (writer: HistoryWriter) => void, after?: () => void): void {
    if (this.inBatch) throw new Error('history batches do not nest');
    this.inBatch = true;
    try {
      this.dbs.root.transactionSync(() => {
        fn(this);
        this.writeCandles();
        this.writeOrders();
        after?.();
      });
      for (const order of this.dirtyOrders.values()) {
        if (isTerminal(order.status)) this.createdIndexed.delete(order.orderId);
        else this.createdIndexed.add(order.orderId);
      }
      for (const [key, candles] of this.dirtyCandles) {
        for (const candle of candles.values()) {
          const newest = this.newest.get(key);
          if (newest === undefined || candle.start >= newest.start) this.newest.set(key, candle);
        }
      }
    } catch (error) {
      this.newest.clear();
      this.createdIndexed.clear();
      forgetUncommittedShapes(this.dbs.root);
      throw error;
    } finally {
      this.dirtyCandles.clear();
      this.dirtyOrders.clear();
      this.inBatch = false;
    }
  }

  /** A fill of the book: the public trade, and the candles of every interval. */
  onTrade(trade: TradeRecord): void {
    this.assertInBatch();
    const stored = storeTrade(trade);
    this.dbs.trades.putSync([trade.marketIndex, trade.seq], stored);
    this.dbs.tradesByTime.putSync([trade.marketIndex, trade.time, trade.seq], stored);
    const candles = candlesAfterTrade(this.candleState(trade.marketIndex), trade.time, trade.price, trade.quantity);
    for (let i = 0; i < CANDLE_INTERVALS.length; i++) this.touchCandle(trade.marketIndex, i, candles[i]);
  }

  /** One subaccount's side of a fill, with what the ledger realized on it. */
  onFill(fill: AccountFillRecord): void {
    this.assertInBatch();
    this.dbs.timeline.putSync(fillKey(fill), storeFill(fill));
  }

  /** The order's state after any change (accepted, filled, cancelled, triggered …). */
  onOrderUpdate(order: OrderRecord): void {
    this.assertInBatch();
    const previous = this.dirtyOrders.get(order.orderId);
    // A change that leaves the order open, at a new time; or its terminal change, in the range of its final status.
    if (isTerminal(order.status) || previous === undefined || previous.updatedAt !== order.updatedAt) this.dbs.timeline.putSync(changeKey(order), null);
    if (previous === undefined && !this.createdIndexed.has(order.orderId)) {
      this.dbs.timeline.putSync(createdKey(order), null);
    }
    this.dirtyOrders.set(order.orderId, order);
  }

  /** A funding rate settled: the market's rate history, and the candles of its period. */
  onFundingRate(record: FundingRateRecord): void {
    this.assertInBatch();
    this.dbs.funding.putSync([record.marketIndex, record.time], record.rate.toString());
    for (const { interval, candle } of candlesAfterFundingRate(this.candleState(record.marketIndex), record.time, record.rate)) {
      this.touchCandle(record.marketIndex, interval.index, candle);
    }
  }

  private assertInBatch(): void {
    if (!this.inBatch) throw new Error('history writes happen inside HistoryWriter.batch');
  }

  private touchCandle(marketIndex: MarketIndex, interval: number, candle: Candle): void {
    const key = slot(marketIndex, interval);
    let candles = this.dirtyCandles.get(key);
    if (candles === undefined) this.dirtyCandles.set(key, (candles = new Map()));
    candles.set(candle.start, candle);
  }

  private writeCandles(): void {
    for (const [key, candles] of this.dirtyCandles) {
      const marketIndex = Math.floor(key / CANDLE_INTERVALS.length);
      const interval = key % CANDLE_INTERVALS.length;
      for (const candle of candles.values()) this.dbs.candles.putSync([marketIndex, interval, candle.start], storeCandle(candle));
    }
  }

  /** Each changed order once, in its latest state (its index entries went in as it changed). */
  private writeOrders(): void {
    for (const order of this.dirtyOrders.values()) this.dbs.orders.putSync(order.orderId, storedOrder(order));
  }

  /** Candles as this batch sees them: its own changes, then the newest committed, then LMDB. */
  private candleState(marketIndex: MarketIndex): CandleState {
    const { candles, funding } = this.dbs;
    return {
      candle: (interval: CandleInterval, start: number) => {
        const key = slot(marketIndex, interval.index);
        const changed = this.dirtyCandles.get(key)?.get(start);
        if (changed !== undefined) return changed;
        const newest = this.newest.get(key);
        if (newest !== undefined && newest.start === start) return newest;
        // Nothing newer than the cached candle exists unless this batch made it (checked above).
        if (newest !== undefined && start > newest.start) return undefined;
        const stored = candles.get([marketIndex, interval.index, start]);
        return stored === undefined ? undefined : loadCandle(start, stored);
      },
      // Read in the open transaction, so a rate settled earlier in this batch counts.
      latestFundingRate: () => {
        for (const { value } of funding.getRange({ start: [marketIndex, KEY_TOP], end: [marketIndex], reverse: true, limit: 1 })) {
          return BigInt(value);
        }
        return null;
      },
    };
  }
}
