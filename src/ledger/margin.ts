/**
 * @module ledger/margin
 *
 * Margin requirements from a market's tiers. Tiers are applied piecewise, like income-tax
 * brackets: the part of a notional between a tier's floor and the next floor is charged that
 * tier's fraction. The requirement is therefore continuous and never falls as notional grows
 * (a single-rate lookup would jump at each floor).
 *   IM(n) = Σ_tiers ⌈…⌉ of portion_i · max(userFraction, imf_i)   (rounded up once, at the end)
 *   MM(n) = Σ_tiers portion_i · mmf_i                              (rounded up once)
 * `userFraction` is the owner's chosen margin fraction (1/leverage) for the market.
 * Complexity: O(tiers), usually 1.
 * May import: config/market, ledger/units.
 */
import { RATE_ONE, type MarginTier, type MarketSpec } from '../config/market.ts';
import { ceilDiv } from './units.ts';

function tiered(tiers: readonly MarginTier[], amount: bigint, fractionOf: (t: MarginTier) => bigint): bigint {
  if (amount <= 0n) return 0n;
  if (tiers.length === 1) return ceilDiv(amount * fractionOf(tiers[0]), RATE_ONE);
  let scaled = 0n;
  for (let i = 0; i < tiers.length; i++) {
    const floor = tiers[i].notionalFloor;
    if (amount <= floor) break;
    const top = i + 1 < tiers.length && tiers[i + 1].notionalFloor < amount ? tiers[i + 1].notionalFloor : amount;
    scaled += (top - floor) * fractionOf(tiers[i]);
  }
  return ceilDiv(scaled, RATE_ONE);
}

/** Initial margin of an unsigned notional at the owner's fraction. */
export function initialMargin(spec: MarketSpec, amount: bigint, userFraction: bigint): bigint {
  return tiered(spec.marginTiers, amount, (t) => (t.initialMarginFraction > userFraction ? t.initialMarginFraction : userFraction));
}

/** Maintenance margin of an unsigned notional. */
export function maintenanceMargin(spec: MarketSpec, amount: bigint): bigint {
  return tiered(spec.marginTiers, amount, (t) => t.maintenanceMarginFraction);
}

/** Smallest fraction an owner may choose: ⌈1/maxLeverage⌉ at RATE_SCALE. */
export function minimumFraction(spec: MarketSpec): bigint {
  return ceilDiv(RATE_ONE, BigInt(spec.maxLeverage));
}

/** Whether `fraction` is an allowed margin setting: 1/maxLeverage ≤ fraction ≤ 1. */
export function fractionInBounds(spec: MarketSpec, fraction: bigint): boolean {
  return fraction >= minimumFraction(spec) && fraction <= RATE_ONE;
}
