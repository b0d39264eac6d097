/**
 * @module ledger/fees
 *
 * Trading, originator and liquidation fees, all fractions (RATE_SCALE) of a fill's notional.
 * A positive fee rounds up (the exchange is owed); a maker rebate (negative makerFee) rounds its
 * magnitude down (a payout). So feesCollected gains ⌈n·taker⌉ − ⌊n·|rebate|⌋ ≥ 0 per fill
 * whenever taker + maker ≥ 0, which the market config enforces.
 * The originator fee is the order's `originatorFee` read as a RATE_SCALE fraction of notional,
 * charged to the order's owner (rounded up) and paid in full to the originator.
 * May import: ledger/units.
 */
import { owed, paid } from './units.ts';

/** Signed fee of a fill side: + charged, − rebated. */
export function tradingFee(notional: bigint, rate: bigint): bigint {
  return rate >= 0n ? owed(notional, rate) : -paid(notional, -rate);
}

/** Default liquidation fee: 0.5 % of the liquidated notional, to the insurance fund. */
export const DEFAULT_LIQUIDATION_FEE = 500_000n;
