/**
 * @module history/candles
 *
 * Candle aggregation for the eleven intervals of GET /candles (1m … 1d), built incrementally:
 * every trade updates the current candle of every interval, every settled funding rate
 * updates the candles whose period contains it. Nothing here is recomputed per request.
 *
 * Pure: where the candles live is the caller's business (`CandleState`: the LMDB store in
 * production, a Map in tests); this module only says what the next candles are.
 *
 * Units: start times in milliseconds, UTC-aligned (`start = ⌊time / length⌋ × length`: every
 * length divides a day, so a 1d candle starts at 00:00 UTC); prices in ticks; volume in lots
 * and notional in ticks × lots, both `bigint` because sums grow without bound; funding rates
 * `bigint` at RATE_SCALE.
 *
 * Funding rate of a candle: the rate in force for its period — the market's latest rate when
 * the candle opens, then each rate settled inside the period as it arrives. A period with no
 * trade has no candle (a rate settled then only becomes the market's latest rate).
 *
 * Out-of-order time (a trade older than the current candle) updates the older candle it
 * falls in: candles are addressed by start time, never by "current".
 * May import: nothing.
 */

export interface CandleInterval {
  /** Position in `CANDLE_INTERVALS`; part of the candle key in the store. */
  index: number;
  /** As the API names it: `1m`, `1h`, `1d`. */
  name: string;
  /** Length in milliseconds. */
  ms: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const CANDLE_INTERVALS: readonly CandleInterval[] = (
  [
    ['1m', MINUTE], ['3m', 3 * MINUTE], ['5m', 5 * MINUTE], ['15m', 15 * MINUTE], ['30m', 30 * MINUTE],
    ['1h', HOUR], ['2h', 2 * HOUR], ['4h', 4 * HOUR], ['8h', 8 * HOUR], ['12h', 12 * HOUR], ['1d', 24 * HOUR],
  ] as const
).map(([name, ms], index) => ({ index, name, ms }));

export const INTERVAL_1M = CANDLE_INTERVALS[0];
export const INTERVAL_1H = CANDLE_INTERVALS[5];

/** The interval a query names, exactly as listed (`1h`, not `1H` or `60m`). */
export function intervalByName(name: string): CandleInterval | undefined {
  return CANDLE_INTERVALS.find((i) => i.name === name);
}

/** Start (ms) of the `interval` candle that `time` (ms, ≥ 0) falls in. */
export function candleStart(interval: CandleInterval, time: number): number {
  return time - (time % interval.ms);
}

export interface Candle {
  /** Milliseconds, UTC-aligned to the interval. */
  start: number;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Lots traded. */
  volume: bigint;
  /** Σ price × quantity, ticks × lots. */
  notional: bigint;
  /** Number of trades. */
  trades: number;
  /** Rate in force for the period (RATE_SCALE); null while the market has none. */
  fundingRate: bigint | null;
}

/** Where the current candles live, as the aggregation reads them. */
export interface CandleState {
  candle(interval: CandleInterval, start: number): Candle | undefined;
  /** The market's latest funding rate, taken by a candle when it opens. */
  latestFundingRate(): bigint | null;
}

/** `candle` after one more trade; a new candle when `candle` is undefined. Never mutates. */
function withTrade(candle: Candle | undefined, start: number, price: number, quantity: number, rateInForce: bigint | null): Candle {
  const lots = BigInt(quantity);
  const notional = lots * BigInt(price);
  if (candle === undefined) {
    return { start, open: price, high: price, low: price, close: price, volume: lots, notional, trades: 1, fundingRate: rateInForce };
  }
  return {
    start,
    open: candle.open,
    high: price > candle.high ? price : candle.high,
    low: price < candle.low ? price : candle.low,
    close: price,
    volume: candle.volume + lots,
    notional: candle.notional + notional,
    trades: candle.trades + 1,
    fundingRate: candle.fundingRate,
  };
}

/**
 * The candles of every interval after a trade at `time` (ms), `price` (ticks), `quantity`
 * (lots > 0): one per interval, in `CANDLE_INTERVALS` order, for the caller to store.
 */
export function candlesAfterTrade(state: CandleState, time: number, price: number, quantity: number): Candle[] {
  const out: Candle[] = [];
  let rate: bigint | null | undefined; // read once, and only if a candle opens
  for (const interval of CANDLE_INTERVALS) {
    const start = candleStart(interval, time);
    const current = state.candle(interval, start);
    if (current === undefined && rate === undefined) rate = state.latestFundingRate();
    out.push(withTrade(current, start, price, quantity, rate ?? null));
  }
  return out;
}

/**
 * The candles that a funding rate settled at `time` changes: those of every interval whose
 * period contains `time` and that already exist. Returned with their interval, for storing.
 */
export function candlesAfterFundingRate(state: CandleState, time: number, rate: bigint): { interval: CandleInterval; candle: Candle }[] {
  const out: { interval: CandleInterval; candle: Candle }[] = [];
  for (const interval of CANDLE_INTERVALS) {
    const current = state.candle(interval, candleStart(interval, time));
    if (current !== undefined && current.fundingRate !== rate) out.push({ interval, candle: { ...current, fundingRate: rate } });
  }
  return out;
}

/**
 * One candle summing consecutive candles given oldest first (for windows such as the 24h
 * summary); undefined for none. `start` is the first one's; the rate is the last one's.
 */
export function mergeCandles(candles: readonly Candle[]): Candle | undefined {
  if (candles.length === 0) return undefined;
  const first = candles[0];
  const merged: Candle = { ...first };
  for (let i = 1; i < candles.length; i++) {
    const c = candles[i];
    if (c.high > merged.high) merged.high = c.high;
    if (c.low < merged.low) merged.low = c.low;
    merged.close = c.close;
    merged.volume += c.volume;
    merged.notional += c.notional;
    merged.trades += c.trades;
    merged.fundingRate = c.fundingRate;
  }
  return merged;
}
