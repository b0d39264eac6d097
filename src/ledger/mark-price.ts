/**
 * @module ledger/mark-price
 *
 * A market's prices: index (oracle), last trade, book best bid/ask, the premium's moving
 * average, and the mark derived from them (as Hyperliquid and Binance do):
 *   premium sample p = (max(0, bid − index) − max(0, index − ask)) / index   (RATE_SCALE)
 *     — zero while the book straddles the index; a missing side contributes nothing.
 *   EMA:   ema ← ema + (p − ema) / 10  (truncated toward zero)
 *   mark = median(index · (1 + ema), book mid, last trade)   in ticks
 * With fewer than three of those available the mark is the first available of
 * index·(1+ema), last trade, book mid. Unrealized PnL and margin use the mark.
 * Once there is an index the mark stays within `markBand` of it (half the market's maintenance
 * margin fraction): two of the three legs, the mid and the last trade, are the book's, which one
 * trader can set with two one-lot orders of its own accounts. Unbounded, such a mark bankrupts
 * an accomplice's position that is healthy at the index, and the insurance fund pays its
 * shortfall to the trader holding the other side (test/ledger/mark-band). Within half the
 * maintenance fraction, a position at its maintenance margin at one end of the band still has
 * equity at the other end: the book cannot make a loss for the fund.
 * May import: config/market.
 */
import { RATE_ONE, type MarketSpec } from '../config/market.ts';

const PREMIUM_EMA_WEIGHT = 10n;

export interface MarketPrices {
  /** Oracle price in ticks (0 until the first update). */
  index: number;
  /** Last trade price in ticks (0 before the first fill). */
  last: number;
  bid: number;
  ask: number;
  /** Moving average of premium samples, RATE_SCALE. */
  premiumEma: bigint;
  /** Derived; recomputed whenever an input changes. */
  mark: number;
}

export function newPrices(): MarketPrices {
  return { index: 0, last: 0, bid: 0, ask: 0, premiumEma: 0n, mark: 0 };
}

/** One premium sample (RATE_SCALE) of the book against the index; 0 without an index. */
export function premiumSample(index: number, bid: number, ask: number): bigint {
  if (index <= 0) return 0n;
  const above = bid > index ? BigInt(bid - index) : 0n;
  const below = ask > 0 && ask < index ? BigInt(index - ask) : 0n;
  return ((above - below) * RATE_ONE) / BigInt(index);
}

export function samplePremium(p: MarketPrices, bid: number, ask: number, band = 0n): bigint {
  p.bid = bid;
  p.ask = ask;
  const sample = premiumSample(p.index, bid, ask);
  p.premiumEma += (sample - p.premiumEma) / PREMIUM_EMA_WEIGHT;
  p.mark = markOf(p, band);
  return sample;
}

/** How far (RATE_SCALE fraction of the index) a market's mark may be from its index: half its lowest maintenance margin fraction. */
export function markBand(spec: MarketSpec): bigint {
  return spec.maintenanceMarginFraction / 2n;
}

/**
 * The mark in ticks (≥ 1 once any price is known, 0 before); with an index and a `band` > 0,
 * within index·(1 ± band) (rounded inward).
 */
export function markOf(p: MarketPrices, band = 0n): number {
  const fromIndex = p.index > 0 ? Number((BigInt(p.index) * (RATE_ONE + p.premiumEma)) / RATE_ONE) : 0;
  const mid = p.bid > 0 && p.ask > 0 ? Math.floor((p.bid + p.ask) / 2) : 0;
  let mark: number;
  if (fromIndex > 0 && mid > 0 && p.last > 0) {
    mark = Math.max(Math.min(fromIndex, mid), Math.min(Math.max(fromIndex, mid), p.last));
  } else {
    mark = fromIndex > 0 ? fromIndex : p.last > 0 ? p.last : mid;
  }
  if (band > 0n && p.index > 0) {
    const index = BigInt(p.index);
    const low = Number((index * (RATE_ONE - band) + RATE_ONE - 1n) / RATE_ONE);
    const high = Number((index * (RATE_ONE + band)) / RATE_ONE);
    mark = mark < low ? low : mark > high ? high : mark;
  }
  return mark > 0 ? mark : fromIndex > 0 || p.last > 0 || mid > 0 ? 1 : 0;
}
