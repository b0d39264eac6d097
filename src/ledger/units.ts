/**
 * @module ledger/units
 *
 * Ticks × lots → collateral base units, exactly. For a market,
 *   notional = ticks · lots · tickUnits · lotUnits · 10^(COLLATERAL_SCALE − priceScale − quantityScale)
 * The power of ten is folded into a multiplier `mul` (exponent ≥ 0) or a divisor `div`
 * (exponent < 0), computed once per market, so the hot path is two bigint multiplications and
 * at most one division.
 *
 * Rounding (see docs/ledger.md): a trade's notional rounds down (it moves between two traders,
 * both see the same number, so nothing is created or lost); a position's value at the mark
 * rounds toward −∞ (a long is worth no more, a short owes no less); amounts owed to the
 * exchange (fees, margin requirements) round up; payouts round down.
 * May import: config/market.
 */
import { COLLATERAL_SCALE, RATE_ONE, type MarketSpec } from '../config/market.ts';

export interface NotionalScale {
  mul: bigint;
  div: bigint;
}

export function notionalScale(spec: MarketSpec): NotionalScale {
  const exponent = COLLATERAL_SCALE - spec.priceScale - spec.quantityScale;
  const units = spec.tickUnits * spec.lotUnits;
  return exponent >= 0 ? { mul: units * 10n ** BigInt(exponent), div: 1n } : { mul: units, div: 10n ** BigInt(-exponent) };
}

/** ⌊a / b⌋ for b > 0 (bigint `/` truncates toward zero). */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a < 0n && q * b !== a ? q - 1n : q;
}

/** ⌈a / b⌉ for b > 0. */
export function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a > 0n && q * b !== a ? q + 1n : q;
}

/** Unsigned notional of `lots` (≥ 0) at `ticks`, rounded down. */
export function notional(s: NotionalScale, ticks: number, lots: number): bigint {
  const raw = BigInt(ticks) * BigInt(lots) * s.mul;
  return s.div === 1n ? raw : raw / s.div;
}

/** Signed value of `signedLots` at `ticks`, rounded toward −∞ (against the holder). */
export function valueAt(s: NotionalScale, ticks: number, signedLots: number): bigint {
  const raw = BigInt(ticks) * BigInt(signedLots) * s.mul;
  return s.div === 1n ? raw : floorDiv(raw, s.div);
}

/** `amount` × `rate` (RATE_SCALE fraction), rounded up: what a trader owes. */
export function owed(amount: bigint, rate: bigint): bigint {
  return ceilDiv(amount * rate, RATE_ONE);
}

/** `amount` × `rate`, rounded down: what a trader is paid. */
export function paid(amount: bigint, rate: bigint): bigint {
  return floorDiv(amount * rate, RATE_ONE);
}

/** `a / b` as a RATE_SCALE fraction rounded down (b > 0). */
export function ratio(a: bigint, b: bigint): bigint {
  return floorDiv(a * RATE_ONE, b);
}

export function abs(x: bigint): bigint {
  return x < 0n ? -x : x;
}

/**
 * Whole ticks that move `amount` of value on `lots` (> 0): ⌊amount / (lots · value of one tick-lot)⌋.
 * Used to turn an equity share into a price distance (liquidation and bankruptcy prices).
 */
export function ticksForValue(s: NotionalScale, amount: bigint, lots: number): bigint {
  return floorDiv(amount * s.div, BigInt(lots) * s.mul);
}
