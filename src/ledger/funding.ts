/**
 * @module ledger/funding
 *
 * Funding: premium samples are averaged over each interval (`fundingIntervalMs`, aligned to
 * multiples of it since the epoch); at the boundary the rate is
 *   rate = clamp(avgPremium + clamp(interestRate − avgPremium, −0.05 %, +0.05 %), −cap, +cap)
 * (Binance's formula; `interestRate` is per interval). Each position pays
 *   payment = |quantity| × index × rate   (index notional; the mark when there is no index)
 * longs pay shorts when the rate is positive. A payer pays ⌈payment⌉, a receiver gets
 * ⌊payment⌋; the difference (< 1 unit per position) goes to the insurance fund, so the sum
 * of all funding is ≤ 0 and money is conserved exactly.
 * May import: config/market (types).
 */
import type { MarketSpec } from '../config/market.ts';

const INTEREST_CLAMP = 50_000n; // 0.05 %

export interface FundingState {
  /** Boundary of the interval being sampled (ms); 0 until the first sample. */
  nextAt: number;
  premiumSum: bigint;
  samples: number;
  /** Settled rates, oldest first. */
  history: FundingRecord[];
}

export interface FundingRecord {
  time: number;
  rate: bigint;
}

export function newFunding(): FundingState {
  return { nextAt: 0, premiumSum: 0n, samples: 0, history: [] };
}

/** The first interval boundary strictly after `time`. */
export function nextBoundary(spec: MarketSpec, time: number): number {
  return (Math.floor(time / spec.fundingIntervalMs) + 1) * spec.fundingIntervalMs;
}

function clamp(x: bigint, lo: bigint, hi: bigint): bigint {
  return x < lo ? lo : x > hi ? hi : x;
}

/** The rate for an interval with these samples (no samples: the interest component alone). */
export function fundingRate(spec: MarketSpec, premiumSum: bigint, samples: number): bigint {
  const avg = samples > 0 ? premiumSum / BigInt(samples) : 0n;
  const rate = avg + clamp(spec.interestRate - avg, -INTEREST_CLAMP, INTEREST_CLAMP);
  return clamp(rate, -spec.fundingRateCap, spec.fundingRateCap);
}
