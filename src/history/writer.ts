/**
 * @module history/writer
 *
 * Feeds the history projections from journaled events. The runtime calls one method per
 * event, inside the same LMDB write transaction that journals the event
 * (`root.transaction(cb)` for grouped commits or `root.transactionSync(cb)`), so an event and
 * its projections become durable together and a replay rebuilds exactly what was lost.
 *
 * Writes are `putSync`/`removeSync`. Inside a transaction callback lmdb-js performs them
 * at once in the open write transaction (no separate commit, no promise per write), reads in
 * the same callback see them (the read-modify-write of candles and order indexes relies on
 * it), and a failure throws there, aborting the caller's transaction, instead of rejecting a
 * promise that nobody awaits. Called outside a transaction each write would commit on its
 * own: a misuse, not supported.
 *
 * State lives only in LMDB (no cache beside it), so an aborted transaction leaves nothing
 * stale behind and a restart needs no warm-up. Cost per trade: 2 trade puts, 11 candle
 * get+put (one funding read when a candle opens).
 * May import: history/, config/, engine/types.
 */
import { candlesAfterFundingRate, candlesAfterTrade, CANDLE_INTERVALS, type CandleInterval, type CandleState } from './candles.ts';
import { KEY_TOP, loadCandle, storeCandle, storeFill, storeTrade, type HistoryDatabases } from './store.ts';
import type { AccountFillRecord, FundingRateRecord, OrderRecord, TradeRecord } from './types.ts';

export class HistoryWriter {
  constructor(private readonly dbs: HistoryDatabases) {}

  /** A fill of the book: the public trade, and the candles of every interval. */
  onTrade(trade: TradeRecord): void {
    const stored = storeTrade(trade);
    this.dbs.trades.putSync([trade.marketIndex, trade.seq], stored);
    this.dbs.tradesByTime.putSync([trade.marketIndex, trade.time, trade.seq], stored);
    const candles = candlesAfterTrade(this.candleState(trade.marketIndex), trade.time, trade.price, trade.quantity);
    for (let i = 0; i < CANDLE_INTERVALS.length; i++) {
      this.dbs.candles.putSync([trade.marketIndex, i, candles[i].start], storeCandle(candles[i]));
    }
  }

  /** One subaccount's side of a fill, with what the ledger realized on it. */
  onFill(fill: AccountFillRecord): void {
    this.dbs.fills.putSync([fill.owner, fill.time, fill.marketIndex, fill.seq], storeFill(fill));
  }

  /** The order's state after any change (accepted, filled, cancelled, triggered …). */
  onOrderUpdate(order: OrderRecord): void {
    const previous = this.dbs.orders.get(order.orderId);
    if (previous !== undefined) {
      if (previous.updatedAt !== order.updatedAt || previous.owner !== order.owner) {
        this.dbs.ordersByUpdated.removeSync([previous.owner, previous.updatedAt, previous.orderId]);
      }
      if (previous.createdAt !== order.createdAt || previous.owner !== order.owner) {
        this.dbs.ordersByCreated.removeSync([previous.owner, previous.createdAt, previous.orderId]);
      }
    }
    this.dbs.orders.putSync(order.orderId, order);
    this.dbs.ordersByUpdated.putSync([order.owner, order.updatedAt, order.orderId], order.orderId);
    this.dbs.ordersByCreated.putSync([order.owner, order.createdAt, order.orderId], order.orderId);
  }

  /** A funding rate settled: the market's rate history, and the candles of its period. */
  onFundingRate(record: FundingRateRecord): void {
    this.dbs.funding.putSync([record.marketIndex, record.time], record.rate.toString());
    for (const { interval, candle } of candlesAfterFundingRate(this.candleState(record.marketIndex), record.time, record.rate)) {
      this.dbs.candles.putSync([record.marketIndex, interval.index, candle.start], storeCandle(candle));
    }
  }

  private candleState(marketIndex: number): CandleState {
    const { candles, funding } = this.dbs;
    return {
      candle(interval: CandleInterval, start: number) {
        const stored = candles.get([marketIndex, interval.index, start]);
        return stored === undefined ? undefined : loadCandle(start, stored);
      },
      latestFundingRate() {
        for (const { value } of funding.getRange({ start: [marketIndex, KEY_TOP], end: [marketIndex], reverse: true, limit: 1 })) {
          return BigInt(value);
        }
        return null;
      },
    };
  }
}
