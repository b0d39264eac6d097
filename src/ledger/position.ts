/**
 * @module ledger/position
 *
 * One owner's position in one market and how a trade changes it.
 * `quantity` is signed lots (+ long, − short); `basis` is the signed entry cost in collateral
 * units (a long's is ≥ 0, a short's ≤ 0): the sum of the signed notionals that opened it,
 * less the share released by reductions. Realized PnL on a reduction is the cash the reduction
 * brings in minus the basis share it releases; that share rounds up (⌈basis·closed/|q|⌉), so a
 * partial close never realizes more than it earned. Whatever rounding leaves in the basis comes
 * back at the final close, when the whole remaining basis is released.
 *
 * Conservation: for every trade, Δcollateral − Δbasis = cash flow (−signed notional), exactly,
 * whatever the rounding of the released share. Summed over both sides of a fill it is zero.
 * May import: types/ids, ledger/units.
 */
import { ceilDiv } from './units.ts';
import type { MarketIndex } from '../types/ids.ts';

export interface Position {
  market: MarketIndex;
  /** Signed lots; never 0 while the position exists. */
  quantity: number;
  /** Signed entry cost, collateral units. */
  basis: bigint;
  /** Trading fees paid on this position since it opened (negative = rebates), collateral units. */
  fees: bigint;
  /** Funding since it opened: + received, − paid, collateral units. */
  funding: bigint;
  /** Collateral reserved for an isolated position (0 for cross). */
  margin: bigint;
  isolated: boolean;
  updatedAt: number;
}

/** What a trade did to a position; reused by the caller on the hot path. */
export interface TradeOutcome {
  /** Lots that reduced the old position. */
  closedLots: number;
  /** Lots that opened or added (after a flip, the new side's lots). */
  openedLots: number;
  /** Basis released by the closed lots (signed like the old position). */
  closedBasis: bigint;
  /** Cash brought in by the closed part minus `closedBasis`. */
  realizedPnl: bigint;
  /** Share of the position's `funding` attributed to the closed lots (moved out of `funding`). */
  realizedFunding: bigint;
  /** Notional of the opening part (unsigned). */
  openedNotional: bigint;
  /** The old quantity, before the trade. */
  before: number;
}

export function newTradeOutcome(): TradeOutcome {
  return { closedLots: 0, openedLots: 0, closedBasis: 0n, realizedPnl: 0n, realizedFunding: 0n, openedNotional: 0n, before: 0 };
}

/**
 * Applies a trade of `delta` signed lots (≠ 0) for `notional` (unsigned, collateral units) to `p`.
 * Updates quantity, basis and funding; the caller moves the money (`realizedPnl`) and margin.
 */
export function applyTrade(p: Position, delta: number, notional: bigint, out: TradeOutcome): TradeOutcome {
  const q = p.quantity;
  out.before = q;
  if (q === 0 || q > 0 === delta > 0) {
    p.basis += delta > 0 ? notional : -notional;
    p.quantity = q + delta;
    out.closedLots = 0;
    out.openedLots = Math.abs(delta);
    out.closedBasis = 0n;
    out.realizedPnl = 0n;
    out.realizedFunding = 0n;
    out.openedNotional = notional;
    return out;
  }
  const size = Math.abs(q);
  const traded = Math.abs(delta);
  const closed = Math.min(size, traded);
  // The closing part's notional: all of it unless the trade flips the position.
  const closeNotional = closed === traded ? notional : (notional * BigInt(closed)) / BigInt(traded);
  const cash = delta > 0 ? -closeNotional : closeNotional;
  const closedBasis = closed === size ? p.basis : ceilDiv(p.basis * BigInt(closed), BigInt(size));
  const closedFunding = closed === size ? p.funding : (p.funding * BigInt(closed)) / BigInt(size);
  p.basis -= closedBasis;
  p.funding -= closedFunding;
  out.closedLots = closed;
  out.closedBasis = closedBasis;
  out.realizedPnl = cash - closedBasis;
  out.realizedFunding = closedFunding;
  if (traded > size) {
    const openNotional = notional - closeNotional;
    p.quantity = delta > 0 ? traded - size : size - traded;
    p.basis = delta > 0 ? openNotional : -openNotional;
    p.fees = 0n;
    p.funding = 0n;
    out.openedLots = traded - size;
    out.openedNotional = openNotional;
  } else {
    p.quantity = q + delta;
    out.openedLots = 0;
    out.openedNotional = 0n;
  }
  return out;
}
