import { test } from 'node:test';
import { ALICE_BUY_20_AT_95000_OPEN } from '../fixtures/orders.ts';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { parseMarkets } from '../../src/config/market.ts';
import { Side, orderIdOf, type OwnerIndex } from '../../src/engine/types.ts';
import { CANDLE_INTERVALS, intervalByName } from '../../src/history/candles.ts';
import type { AccountFillRecord, OrderRecord, TradeRecord } from '../../src/history/types.ts';
import { accountFillView, summaryView } from '../../src/history/views.ts';
import { HistoryReader } from '../../src/history/reader.ts';
import { openTempHistory } from './temp-store.ts';
import { marketNo, orderNo, ownerNo } from '../fixtures/ids.ts';

const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));
const BTC = markets[0];
const MINUTE = 60_000;
const T0 = Date.UTC(2024, 2, 10, 12, 0, 0);

/** What a window query should return, from the raw list: from ≤ t < to, newest `limit`. */
function naiveWindow<T>(items: T[], time: (x: T) => number, q: { from?: number; to?: number; limit: number }): T[] {
  return items.filter((x) => (q.from === undefined || time(x) >= q.from) && (q.to === undefined || time(x) < q.to)).slice(-q.limit);
}

/** A bound, often on a minute (where candles start and the generated trades often are). */
const boundArb = (span: number) =>
  fc.oneof(fc.integer({ min: T0 - MINUTE, max: T0 + span }), fc.integer({ min: -1, max: span / MINUTE }).map((k) => T0 + k * MINUTE));

const windowArb = (span: number) =>
  fc.record({ from: boundArb(span), to: boundArb(span), limit: fc.integer({ min: 1, max: 30 }) }, { requiredKeys: ['limit'] });

test('trades: newest first; from on or after, to before; limit keeps the newest', () => {
  const h = openTempHistory();
  const trades: TradeRecord[] = [10, 20, 20, 30, 40].map((dt, i) => ({ marketIndex: BTC.index, seq: 5 + 3 * i, time: T0 + dt, price: 950_000 + i, quantity: i + 1, takerSide: i % 2 === 0 ? Side.Buy : Side.Sell }));
  h.write((w) => {
    for (const t of trades) w.onTrade(t);
    w.onTrade({ marketIndex: marketNo(1), seq: 1, time: T0 + 25, price: 1, quantity: 1, takerSide: Side.Buy });
  });
  const seqs = (q: { from?: number; to?: number; limit: number }) => h.reader.trades(BTC.index, q).map((t) => t.seq);
  assert.deepEqual(seqs({ limit: 100 }), [17, 14, 11, 8, 5]);
  assert.deepEqual(seqs({ limit: 2 }), [17, 14]);
  assert.deepEqual(seqs({ from: T0 + 20, limit: 100 }), [17, 14, 11, 8]);
  assert.deepEqual(seqs({ to: T0 + 30, limit: 100 }), [11, 8, 5]);
  assert.deepEqual(seqs({ from: T0 + 20, to: T0 + 30, limit: 1 }), [11]);
  assert.deepEqual(seqs({ from: T0 + 40, to: T0 + 40, limit: 10 }), []);
  assert.deepEqual(h.reader.trades(BTC.index, { limit: 1 })[0], trades[4]);
  assert.deepEqual(h.reader.tradesAfter(BTC.index, 8, 2).map((t) => t.seq), [11, 14]);
  assert.equal(h.reader.lastPrice(BTC.index), 950_004);
  assert.equal(h.reader.lastPrice(marketNo(1)), 1);
  assert.equal(h.reader.lastPrice(marketNo(2)), undefined);
});

test('property: trades and candles windows equal a naive filter of what was written', () => {
  const h = openTempHistory();
  let runs = 10;
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.integer({ min: 0, max: 3 * MINUTE }), fc.integer({ min: 0, max: 3 }).map((k) => k * MINUTE)), { minLength: 0, maxLength: 40 }),
      windowArb(60 * MINUTE),
      (gaps, q) => {
        const market = marketNo(++runs);
        let time = T0;
        const trades: TradeRecord[] = gaps.map((gap, i) => ({ marketIndex: market, seq: 2 * i + 1, time: (time += gap), price: 100 + i, quantity: 1, takerSide: Side.Buy }));
        h.write((w) => trades.forEach((t) => w.onTrade(t)));
        assert.deepEqual(h.reader.trades(market, q), naiveWindow(trades, (t) => t.time, q).reverse());
        const oneMinute = intervalByName('1m')!;
        const starts = [...new Set(trades.map((t) => t.time - (t.time % MINUTE)))];
        assert.deepEqual(h.reader.candles(market, oneMinute, q).map((c) => c.start), naiveWindow(starts, (s) => s, q));
      },
    ),
    { numRuns: 100 },
  );
});

test('candles: ascending; from is a start on or after, to a start before; limit drops the oldest', () => {
  const h = openTempHistory();
  h.write((w) => {
    for (let i = 0; i < 5; i++) w.onTrade({ marketIndex: BTC.index, seq: i + 1, time: T0 + i * MINUTE + 1, price: 10 + i, quantity: 1, takerSide: Side.Sell });
  });
  const m1 = CANDLE_INTERVALS[0];
  const starts = (q: { from?: number; to?: number; limit: number }) => h.reader.candles(BTC.index, m1, q).map((c) => (c.start - T0) / MINUTE);
  assert.deepEqual(starts({ limit: 5000 }), [0, 1, 2, 3, 4]);
  assert.deepEqual(starts({ limit: 2 }), [3, 4]);
  assert.deepEqual(starts({ from: T0 + MINUTE, limit: 5000 }), [1, 2, 3, 4]);
  assert.deepEqual(starts({ from: T0 + MINUTE + 1, limit: 5000 }), [2, 3, 4]);
  assert.deepEqual(starts({ to: T0 + 3 * MINUTE, limit: 5000 }), [0, 1, 2]);
  assert.deepEqual(starts({ from: T0 + MINUTE, to: T0 + 4 * MINUTE, limit: 2 }), [2, 3]);
  const hour = h.reader.candles(BTC.index, intervalByName('1h')!, { limit: 10 });
  assert.deepEqual(hour.map((c) => [c.start, c.open, c.high, c.low, c.close, c.volume, c.trades]), [[T0, 10, 14, 10, 14, 5n, 5]]);
});

test('fills: per subaccount, newest first, by market, from/to in ms, limit', () => {
  const h = openTempHistory();
  const fill = (owner: OwnerIndex, market: number, seq: number, time: number, quantity: number): AccountFillRecord => ({
    owner, marketIndex: marketNo(market), seq, time, orderId: orderIdOf(marketNo(market), seq), price: 950_001, quantity,
    realizedExposure: 95_000_100_000n, realizedFunding: -1_500n, realizedPnl: 12_345_678n, realizedPoints: 0n,
  });
  const fills = [fill(ownerNo(7), 0, 3, T0, 5), fill(ownerNo(7), 1, 3, T0, -2), fill(ownerNo(8), 0, 3, T0, -5), fill(ownerNo(7), 0, 9, T0 + 1000, 1)];
  h.write((w) => fills.forEach((f) => w.onFill(f)));
  assert.deepEqual(h.reader.fills(ownerNo(7), { limit: 50 }), [fills[3], fills[1], fills[0]]);
  assert.deepEqual(h.reader.fills(ownerNo(7), { limit: 50, marketIndex: BTC.index }), [fills[3], fills[0]]);
  assert.deepEqual(h.reader.fills(ownerNo(7), { limit: 1, marketIndex: marketNo(1) }), [fills[1]]);
  assert.deepEqual(h.reader.fills(ownerNo(7), { limit: 50, to: T0 + 1000 }), [fills[1], fills[0]]);
  assert.deepEqual(h.reader.fills(ownerNo(7), { limit: 50, from: T0 + 1000 }), [fills[3]]);
  assert.deepEqual(h.reader.fills(ownerNo(7), { limit: 2 }), [fills[3], fills[1]]);
  assert.deepEqual(h.reader.fills(ownerNo(9), { limit: 50 }), []);
  assert.deepEqual(accountFillView(BTC, fills[2]), {
    price: '95000.1', quantity: '-0.0005', symbol: 'BTC-USD-PERP', orderId: '0x0000000000000003',
    realizedExposure: '95000.1', realizedFunding: '-0.0015', realizedPnl: '12.345678', realizedPoints: '0', time: T0,
  });
});

test('orders: the latest state by orderId, listed by updatedAt or createdAt with filters', () => {
  const h = openTempHistory();
  const order = (orderId: number, status: OrderRecord['status'], createdAt: number, updatedAt: number, marketIndex = 0): OrderRecord => ({
    ...ALICE_BUY_20_AT_95000_OPEN, orderId: orderNo(orderId), owner: ownerNo(7), market: marketNo(marketIndex), status, createdAt, updatedAt, price: 10, remaining: 1,
  });
  h.write((w) => {
    w.onOrderUpdate(order(1, 'new', T0, T0));
    w.onOrderUpdate(order(2, 'new', T0 + 10, T0 + 10));
    w.onOrderUpdate(order(3, 'new', T0 + 20, T0 + 20, 1));
  });
  h.write((w) => {
    w.onOrderUpdate(order(1, 'partiallyFilled', T0, T0 + 30));
    w.onOrderUpdate(order(1, 'filled', T0, T0 + 40));
    w.onOrderUpdate(order(3, 'cancelled', T0 + 20, T0 + 50, 1));
  });
  const ids = (q: Parameters<typeof h.reader.orders>[1]) => h.reader.orders(ownerNo(7), q).map((o) => o.orderId);
  assert.equal(h.reader.order(orderNo(1))?.status, 'filled');
  assert.deepEqual(ids({ limit: 500 }), [3, 1, 2]);
  assert.deepEqual(ids({ limit: 500, by: 'created' }), [3, 2, 1]);
  const closed = new Set(['filled', 'cancelled', 'expired', 'rejected'] as const);
  assert.deepEqual(ids({ limit: 500, statuses: closed }), [3, 1]);
  assert.deepEqual(ids({ limit: 1, statuses: closed }), [3]);
  assert.deepEqual(ids({ limit: 500, statuses: closed, marketIndex: BTC.index }), [1]);
  assert.deepEqual(ids({ limit: 500, from: T0 + 40, to: T0 + 50 }), [1]);
  assert.deepEqual(ids({ limit: 500, by: 'created', from: T0, to: T0 + 20 }), [2, 1]);
  assert.deepEqual(ids({ limit: 500, orderTypes: new Set(['twap']) }), []);
  // The update index keeps every change's entry (append-only): an order is listed at its latest update only.
  assert.deepEqual(ids({ limit: 500, from: T0, to: T0 + 31 }), [2], 'order 1 was updated at T0 and T0 + 30, but last at T0 + 40');
  assert.deepEqual(ids({ limit: 1, from: T0 + 30 }), [3]);
});

test('funding rates: history newest first, and the candles of the period carry the rate', () => {
  const h = openTempHistory();
  h.write((w) => {
    w.onFundingRate({ marketIndex: BTC.index, time: T0 - 3_600_000, rate: 1_250n });
    w.onTrade({ marketIndex: BTC.index, seq: 1, time: T0 + 5, price: 10, quantity: 1, takerSide: Side.Buy });
    w.onFundingRate({ marketIndex: BTC.index, time: T0 + 3_600_000 - 1, rate: -300n });
  });
  assert.deepEqual(h.reader.fundingRates(BTC.index, { limit: 10 }), [
    { marketIndex: 0, time: T0 + 3_600_000 - 1, rate: -300n },
    { marketIndex: 0, time: T0 - 3_600_000, rate: 1_250n },
  ]);
  assert.deepEqual(h.reader.fundingRates(BTC.index, { limit: 10, to: T0 }).map((r) => r.rate), [1_250n]);
  assert.equal(h.reader.candles(BTC.index, intervalByName('1m')!, { limit: 1 })[0].fundingRate, 1_250n);
  assert.equal(h.reader.candles(BTC.index, intervalByName('1h')!, { limit: 1 })[0].fundingRate, -300n);
});

test('summary24h merges the 1440 minutes up to now exactly as the raw trades in that window', () => {
  const h = openTempHistory();
  const now = T0 + 37 * MINUTE + 12_345; // window: minutes from T0 − 1d + 38m to the one holding now
  const windowStart = T0 + 38 * MINUTE - 24 * 60 * MINUTE;
  const times = [windowStart - 1, windowStart, windowStart + 5 * MINUTE, windowStart + 3 * 3_600_000, T0 - 1, T0, now];
  const trades = times.map((time, i): TradeRecord => ({ marketIndex: BTC.index, seq: i + 1, time, price: [50, 70, 40, 90, 60, 65, 80][i], quantity: i + 1, takerSide: Side.Buy }));
  h.write((w) => trades.forEach((t) => w.onTrade(t)));
  const s = h.reader.summary24h(BTC.index, now);
  assert.equal(s.from, windowStart);
  assert.equal(s.lastPrice, 80);
  assert.deepEqual(
    [s.window?.open, s.window?.high, s.window?.low, s.window?.close, s.window?.volume, s.window?.trades],
    [70, 90, 40, 80, 2n + 3n + 4n + 5n + 6n + 7n, 6],
  );
  assert.deepEqual(summaryView(BTC, s), {
    symbol: 'BTC-USD-PERP', open: '7', high: '9', low: '4', close: '8', lastPrice: '8', volume: '0.0027',
    quoteVolume: String((70 * 2 + 40 * 3 + 90 * 4 + 60 * 5 + 65 * 6 + 80 * 7) / 1e5), change: '1', changePercent: '14.28',
    trades: 6, openTime: windowStart / 1000,
  });
  const quiet = h.reader.summary24h(BTC.index, now + 2 * 24 * 3_600_000);
  assert.equal(quiet.window, undefined);
  assert.deepEqual(summaryView(BTC, quiet).close, '8');
  assert.deepEqual(summaryView(BTC, h.reader.summary24h(marketNo(5), now)).lastPrice, null);
});

test('projections commit and abort with the caller\'s transaction', () => {
  const h = openTempHistory();
  const trade: TradeRecord = { marketIndex: marketNo(3), seq: 1, time: T0, price: 10, quantity: 1, takerSide: Side.Buy };
  assert.throws(() => h.write((w) => {
    w.onTrade(trade);
    w.onFundingRate({ marketIndex: marketNo(3), time: T0, rate: 5n });
    throw new Error('journal write failed');
  }), /journal write failed/);
  const reader = new HistoryReader(h.root); // opened from the environment, as the gateway does
  assert.deepEqual(reader.trades(marketNo(3), { limit: 10 }), []);
  assert.deepEqual(reader.candles(marketNo(3), CANDLE_INTERVALS[0], { limit: 10 }), []);
  assert.deepEqual(reader.fundingRates(marketNo(3), { limit: 10 }), []);
  h.write((w) => w.onTrade(trade));
  assert.deepEqual(reader.trades(marketNo(3), { limit: 10 }), [trade]);
  const [minute] = reader.candles(marketNo(3), CANDLE_INTERVALS[0], { limit: 10 });
  assert.deepEqual([minute.trades, minute.volume, minute.fundingRate], [1, 1n, null], 'the aborted batch left nothing in the candles either');
});
