import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  CANDLE_INTERVALS,
  candleStart,
  candlesAfterFundingRate,
  candlesAfterTrade,
  intervalByName,
  type Candle,
  type CandleInterval,
  type CandleState,
} from '../../src/history/candles.ts';
import { Side } from '../../src/engine/types.ts';
import { openTempHistory } from './temp-store.ts';
import { marketNo } from '../fixtures/ids.ts';

type Event = { kind: 'trade'; time: number; price: number; quantity: number } | { kind: 'rate'; time: number; rate: bigint };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** 2024-03-09T23:00:00Z: a day boundary an hour in, with every shorter boundary on the way. */
const T0 = Date.UTC(2024, 2, 9, 23, 0, 0);

/** The UTC start of the period `time` falls in, from calendar fields (not from the modulo the code uses). */
function utcPeriodStart(name: string, time: number): number {
  const d = new Date(time);
  const unit = name.slice(-1);
  const n = Number(name.slice(0, -1));
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (unit === 'd') return day;
  if (unit === 'h') return day + Math.floor(d.getUTCHours() / n) * n * HOUR;
  const minuteOfDay = d.getUTCHours() * 60 + d.getUTCMinutes();
  return day + Math.floor(minuteOfDay / n) * n * MINUTE;
}

/** Every interval's candles recomputed from the raw events, ascending by start. */
function naiveCandles(events: Event[], interval: CandleInterval): Candle[] {
  const byStart = new Map<number, Event[]>();
  for (const e of events) {
    if (e.kind !== 'trade') continue;
    const start = utcPeriodStart(interval.name, e.time);
    byStart.set(start, [...(byStart.get(start) ?? []), e]);
  }
  return [...byStart.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([start, list]) => {
      const trades = list as Extract<Event, { kind: 'trade' }>[];
      const prices = trades.map((t) => t.price);
      // Times only grow: the rate in force is the last one settled before the period ends.
      const rates = events.filter((e) => e.kind === 'rate' && e.time < start + interval.ms) as Extract<Event, { kind: 'rate' }>[];
      return {
        start,
        open: prices[0],
        high: Math.max(...prices),
        low: Math.min(...prices),
        close: prices[prices.length - 1],
        volume: trades.reduce((s, t) => s + BigInt(t.quantity), 0n),
        notional: trades.reduce((s, t) => s + BigInt(t.quantity) * BigInt(t.price), 0n),
        trades: trades.length,
        fundingRate: rates.length === 0 ? null : rates[rates.length - 1].rate,
      };
    });
}

/** Random events with non-decreasing times, often landing exactly on period boundaries. */
const eventsArb = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constant(0),
        fc.integer({ min: 1, max: 5 * MINUTE }),
        fc.constantFrom(MINUTE, 3 * MINUTE, 15 * MINUTE, HOUR, 4 * HOUR),
        fc.integer({ min: HOUR, max: DAY }),
      ),
      fc.oneof(
        { weight: 4, arbitrary: fc.record({ kind: fc.constant('trade' as const), price: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 2_000_000 })), quantity: fc.integer({ min: 1, max: 2 ** 40 }) }) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('rate' as const), rate: fc.bigInt({ min: -4_000_000n, max: 4_000_000n }) }) },
      ),
    ),
    { minLength: 1, maxLength: 60 },
  )
  .map((steps) => {
    let time = T0 - 7 * MINUTE;
    return steps.map(([gap, e]) => {
      time += gap;
      return { ...e, time } as Event;
    });
  });

/** The aggregation over a Map, the way the store keeps candles. */
function aggregateInMemory(events: Event[]): Map<string, Candle> {
  const candles = new Map<string, Candle>();
  let latest: bigint | null = null;
  const state: CandleState = {
    candle: (interval, start) => candles.get(`${interval.index}:${start}`),
    latestFundingRate: () => latest,
  };
  for (const e of events) {
    if (e.kind === 'trade') {
      candlesAfterTrade(state, e.time, e.price, e.quantity).forEach((c, i) => candles.set(`${i}:${c.start}`, c));
    } else {
      latest = e.rate;
      for (const { interval, candle } of candlesAfterFundingRate(state, e.time, e.rate)) candles.set(`${interval.index}:${candle.start}`, candle);
    }
  }
  return candles;
}

test('interval names are the eleven of the spec, and starts are UTC-aligned', () => {
  assert.deepEqual(CANDLE_INTERVALS.map((i) => i.name), ['1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '8h', '12h', '1d']);
  assert.equal(intervalByName('1H'), undefined);
  assert.equal(intervalByName('60m'), undefined);
  const t = Date.UTC(2024, 2, 10, 13, 47, 31, 250);
  const expected: Record<string, number> = {
    '1m': Date.UTC(2024, 2, 10, 13, 47), '3m': Date.UTC(2024, 2, 10, 13, 45), '5m': Date.UTC(2024, 2, 10, 13, 45),
    '15m': Date.UTC(2024, 2, 10, 13, 45), '30m': Date.UTC(2024, 2, 10, 13, 30), '1h': Date.UTC(2024, 2, 10, 13),
    '2h': Date.UTC(2024, 2, 10, 12), '4h': Date.UTC(2024, 2, 10, 12), '8h': Date.UTC(2024, 2, 10, 8),
    '12h': Date.UTC(2024, 2, 10, 12), '1d': Date.UTC(2024, 2, 10),
  };
  for (const interval of CANDLE_INTERVALS) assert.equal(candleStart(interval, t), expected[interval.name], interval.name);
});

test('a trade on the last millisecond and one on the boundary open different candles in every interval', () => {
  const midnight = Date.UTC(2024, 2, 10);
  const events: Event[] = [
    { kind: 'trade', time: midnight - 1, price: 100, quantity: 2 },
    { kind: 'trade', time: midnight, price: 90, quantity: 3 },
  ];
  const candles = aggregateInMemory(events);
  for (const interval of CANDLE_INTERVALS) {
    const before = candles.get(`${interval.index}:${midnight - interval.ms}`);
    const at = candles.get(`${interval.index}:${midnight}`);
    assert.deepEqual([before?.close, before?.volume, at?.open, at?.volume], [100, 2n, 90, 3n], interval.name);
  }
});

test('a candle takes the rate in force when it opens and each rate settled inside its period', () => {
  const start = Date.UTC(2024, 2, 10, 8);
  const events: Event[] = [
    { kind: 'rate', time: start - HOUR, rate: 100n },
    { kind: 'trade', time: start + 1, price: 10, quantity: 1 },
    { kind: 'rate', time: start + 30 * MINUTE, rate: -250n },
  ];
  const candles = aggregateInMemory(events);
  const rateOf = (name: string) => candles.get(`${intervalByName(name)!.index}:${candleStart(intervalByName(name)!, start + 1)}`)?.fundingRate;
  assert.equal(rateOf('1m'), 100n); // its minute ended before the new rate
  assert.equal(rateOf('30m'), 100n);
  assert.equal(rateOf('1h'), -250n);
  assert.equal(rateOf('1d'), -250n);
});

test('property: every interval\'s candles equal a naive recomputation from the raw trades (in memory)', () => {
  fc.assert(
    fc.property(eventsArb, (events) => {
      const candles = aggregateInMemory(events);
      for (const interval of CANDLE_INTERVALS) {
        const got = [...candles.entries()].filter(([k]) => k.startsWith(`${interval.index}:`)).map(([, c]) => c).sort((a, b) => a.start - b.start);
        assert.deepEqual(got, naiveCandles(events, interval), interval.name);
      }
    }),
    { numRuns: 300 },
  );
});

test('property: the LMDB projection stores the same candles as the naive recomputation, however the events are batched', () => {
  const history = openTempHistory();
  let runs = 0;
  let seq = 0;
  fc.assert(
    fc.property(eventsArb, fc.array(fc.integer({ min: 1, max: 8 }), { maxLength: 20 }), (events, batchSizes) => {
      const market = marketNo(++runs); // a fresh market per run: runs do not see each other's candles
      // Batches of the given sizes, the rest in one: candles carried from batch to batch by the writer's cache.
      const batches: Event[][] = [];
      let at = 0;
      for (const size of batchSizes) {
        if (at >= events.length) break;
        batches.push(events.slice(at, (at += size)));
      }
      if (at < events.length) batches.push(events.slice(at));
      for (const batch of batches) {
        history.write((w) => {
          for (const e of batch) {
            if (e.kind === 'trade') w.onTrade({ marketIndex: market, seq: ++seq, time: e.time, price: e.price, quantity: e.quantity, takerSide: Side.Buy });
            else w.onFundingRate({ marketIndex: market, time: e.time, rate: e.rate });
          }
        });
      }
      for (const interval of CANDLE_INTERVALS) {
        assert.deepEqual(history.reader.candles(market, interval, { limit: 5000 }), naiveCandles(events, interval), interval.name);
      }
    }),
    { numRuns: 100 },
  );
});

test('property: trades out of time order, in any batches, give the candles of the in-memory aggregation', () => {
  const history = openTempHistory();
  let runs = 1_000;
  let seq = 0;
  const tradesArb = eventsArb
    .map((events) => events.filter((e) => e.kind === 'trade'))
    .chain((trades) => fc.tuple(fc.shuffledSubarray(trades, { minLength: trades.length, maxLength: trades.length }), fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 20 })));
  fc.assert(
    fc.property(tradesArb, ([trades, batchSizes]) => {
      const market = marketNo(++runs);
      let at = 0;
      for (const size of [...batchSizes, trades.length]) {
        if (at >= trades.length) break;
        const batch = trades.slice(at, (at += size));
        history.write((w) => {
          for (const e of batch) if (e.kind === 'trade') w.onTrade({ marketIndex: market, seq: ++seq, time: e.time, price: e.price, quantity: e.quantity, takerSide: Side.Buy });
        });
      }
      const expected = aggregateInMemory(trades);
      for (const interval of CANDLE_INTERVALS) {
        const want = [...expected.entries()].filter(([k]) => k.startsWith(`${interval.index}:`)).map(([, c]) => c).sort((a, b) => a.start - b.start);
        assert.deepEqual(history.reader.candles(market, interval, { limit: 5000 }), want, interval.name);
      }
    }),
    { numRuns: 150 },
  );
});
