/**
 * @module ledger/liquidation
 *
 * Prices and ranking for liquidation and auto-deleveraging (ADL).
 *
 * Bankruptcy price: the price at which closing a position leaves its share of equity at zero.
 * A cross account's equity E is shared among its positions in proportion to their maintenance
 * margin (s_i = ⌊E·MM_i/ΣMM⌋, as dYdX does), so closing all of them at their bankruptcy prices
 * leaves ≈ 0; an isolated position's share is margin + upnl.
 *   long:  P_b = mark − ⌊s / (|q|·tickValue)⌋      short: P_b = mark + ⌊s / (|q|·tickValue)⌋
 * (rounded so that closing at P_b never leaves less than zero; never below 1 tick).
 * Liquidation orders are reduce-only IOC at P_b pushed further by what the insurance fund can
 * absorb, F: long sells at P_b − ⌊F / (|q|·tickValue)⌋, short buys at P_b + ⌊…⌋, but never
 * beyond the mark (a position bankrupt at the mark may fill at the mark; a solvent one at P_b).
 * With an empty fund the limit is P_b itself, so a fill never creates a loss nobody covers.
 *
 * ADL ranking of opposite positions, most profitable first: score = upnl/|basis| × notional/equity
 * (return × leverage, as Hyperliquid), positions with upnl ≤ 0 after those with profit, ties by
 * larger upnl, then lower owner id.
 * May import: types/ids (types), ledger/units, config/market.
 */
import { RATE_ONE } from '../config/market.ts';
import { ticksForValue, type NotionalScale } from './units.ts';
import type { OwnerIndex } from '../types/ids.ts';

/** Bankruptcy price in ticks of a position of `quantity` lots given its equity share. */
export function bankruptcyPrice(s: NotionalScale, mark: number, quantity: number, equityShare: bigint): number {
  const distance = Number(ticksForValue(s, equityShare, Math.abs(quantity)));
  const price = quantity > 0 ? mark - distance : mark + distance;
  return price >= 1 ? price : 1;
}

/**
 * The liquidation order's limit: the bankruptcy price, extended by the fund's coverage only as
 * far as the mark — a position already bankrupt at the mark (its bankruptcy price beyond it) may
 * fill at the mark, the fund paying the difference; none fills beyond the mark. Extended by the
 * whole fund, the order bought (or sold) at any price up to what the fund holds, and whoever
 * rested an order there — the holder of the other side of an accomplice's position — was paid
 * the fund for lots worth the mark.
 */
export function liquidationLimit(s: NotionalScale, bankruptcy: number, quantity: number, fund: bigint, mark: number): number {
  const extension = fund > 0n ? Number(ticksForValue(s, fund, Math.abs(quantity))) : 0;
  let price: number;
  if (quantity > 0) {
    const floor = Math.min(bankruptcy, mark);
    price = Math.max(bankruptcy - extension, floor);
  } else {
    const ceiling = Math.max(bankruptcy, mark);
    price = Math.min(bankruptcy + extension, ceiling);
  }
  return price >= 1 ? Math.min(price, Number.MAX_SAFE_INTEGER) : 1;
}

export interface DeleverageCandidate {
  owner: OwnerIndex;
  quantity: number;
  upnl: bigint;
  basis: bigint;
  notional: bigint;
  equity: bigint;
}

function score(c: DeleverageCandidate): bigint {
  if (c.upnl <= 0n) return -1n;
  const basis = c.basis < 0n ? -c.basis : c.basis;
  const pnlRatio = basis > 0n ? (c.upnl * RATE_ONE) / basis : c.upnl * RATE_ONE;
  return c.equity > 0n ? (pnlRatio * c.notional) / c.equity : pnlRatio * c.notional;
}

/** Sorts candidates in ADL order (most profitable, most leveraged first). */
export function rankForDeleveraging(candidates: DeleverageCandidate[]): DeleverageCandidate[] {
  const scored = candidates.map((c) => ({ c, s: score(c) }));
  scored.sort((a, b) => (a.s !== b.s ? (a.s > b.s ? -1 : 1) : a.c.upnl !== b.c.upnl ? (a.c.upnl > b.c.upnl ? -1 : 1) : a.c.owner - b.c.owner));
  return scored.map((x) => x.c);
}
