/**
 * @module ledger/stats
 *
 * Valuation of an owner at the mark, and the account statistics of the API (all bigints;
 * money in collateral units, ratios RATE_SCALE). For each position at mark M:
 *   value = q·M (rounded toward −∞), upnl = value − basis, notional = |q·M|,
 *   IM = initialMargin(notional, fraction), MM = maintenanceMargin(notional)
 * Then, summing cross positions only unless said otherwise:
 *   upnl                     = Σ upnl over all positions
 *   crossEquity              = collateral + Σ cross upnl
 *   accountValue             = crossEquity + Σ isolated (margin + upnl)
 *   initialMarginRequirement = Σ cross IM + open-order holds
 *   maintMargin              = Σ MM over all positions
 *   freeCollateralCross      = max(0, crossEquity − initialMarginRequirement)     (orders)
 *   freeCollateral           = max(0, min(collateral − cashHeld, crossEquity − IMR)) (withdraw, transfer;
 *                              cashHeld = holds while an order is open in an isolated market)
 *   crossMarginRatio         = Σ cross MM / crossEquity (1 when equity ≤ 0 and MM > 0)
 *   crossMarginUsage         = IMR / crossEquity        (1 when equity ≤ 0 and IMR > 0)
 *   crossLeverage            = Σ cross notional / crossEquity (0 when equity ≤ 0)
 * A cross account is liquidatable when Σ cross MM > 0 and crossEquity < Σ cross MM; an
 * isolated position when margin + upnl < its MM.
 * Complexity: O(positions of the owner).
 * May import: config/market, types/ids, ledger/.
 */
import { RATE_ONE } from '../config/market.ts';
import { initialMargin, maintenanceMargin } from './margin.ts';
import type { Position } from './position.ts';
import type { MarketState, OwnerState } from './state.ts';
import type { MarketIndex } from '../types/ids.ts';
import { abs, ratio, valueAt } from './units.ts';

export interface Exposure {
  crossUpnl: bigint;
  crossIM: bigint;
  crossMM: bigint;
  crossNotional: bigint;
  isolatedEquity: bigint;
  isolatedMM: bigint;
  upnl: bigint;
}

export function newExposure(): Exposure {
  return { crossUpnl: 0n, crossIM: 0n, crossMM: 0n, crossNotional: 0n, isolatedEquity: 0n, isolatedMM: 0n, upnl: 0n };
}

export function fractionOf(o: OwnerState, m: MarketState): bigint {
  return o.settings.get(m.spec.index)?.fraction ?? m.spec.initialMarginFraction;
}

/** Unrealized PnL of a position at the market's mark. */
export function upnlOf(m: MarketState, p: Position): bigint {
  return valueAt(m.scale, m.prices.mark, p.quantity) - p.basis;
}

export function notionalAtMark(m: MarketState, p: Position): bigint {
  return abs(valueAt(m.scale, m.prices.mark, p.quantity));
}

/** Fills `out` with the owner's exposure at the marks. */
export function exposureOf(o: OwnerState, markets: readonly MarketState[], out: Exposure): Exposure {
  out.crossUpnl = out.crossIM = out.crossMM = out.crossNotional = out.isolatedEquity = out.isolatedMM = out.upnl = 0n;
  for (const p of o.positions.values()) {
    const m = markets[p.market];
    const value = valueAt(m.scale, m.prices.mark, p.quantity);
    const upnl = value - p.basis;
    const notional = abs(value);
    const mm = maintenanceMargin(m.spec, notional);
    out.upnl += upnl;
    if (p.isolated) {
      out.isolatedEquity += p.margin + upnl;
      out.isolatedMM += mm;
    } else {
      out.crossUpnl += upnl;
      out.crossNotional += notional;
      out.crossIM += initialMargin(m.spec, notional, fractionOf(o, m));
      out.crossMM += mm;
    }
  }
  return out;
}

export function crossEquity(o: OwnerState, e: Exposure): bigint {
  return o.collateral + e.crossUpnl;
}

/** What a new order may reserve: crossEquity − IM − holds (may be negative). */
export function orderHeadroom(o: OwnerState, e: Exposure): bigint {
  return o.collateral + e.crossUpnl - e.crossIM - o.holdTotal;
}

/**
 * The cash the owner's holds reserve: all of them (`holdTotal`) while it has an order open in a
 * market where it is isolated, else none. An isolated order is admitted only on collateral
 * beyond every hold (holds.ts `admitOrder`: its fill moves its margin, fees and open loss out of
 * the cash, never out of unrealised profit), and that cash must still be there when it fills.
 * Without it, a cross account in profit withdrew the cash its isolated ask held (its headroom
 * stood on the profit), the ask filled with no cash to post, and the fund paid the loss its
 * close left (the in-flight generator, seed 991279; test/ledger/isolated-hold-cash).
 * O(markets with orders of the owner).
 */
export function cashHeld(o: OwnerState): bigint {
  if (o.holdTotal <= 0n) return 0n;
  for (const market of o.openLots.keys()) if (isolatedIn(o, market)) return o.holdTotal;
  for (const market of o.reduceLots.keys()) if (isolatedIn(o, market)) return o.holdTotal;
  return 0n;
}

function isolatedIn(o: OwnerState, market: MarketIndex): boolean {
  return o.positions.get(market)?.isolated ?? o.settings.get(market)?.isolated ?? false;
}

/**
 * What may leave the account (withdraw, transfer): never more than the collateral itself, nor
 * the cash the holds reserve while an isolated order is open (`cashHeld`).
 */
export function withdrawable(o: OwnerState, e: Exposure): bigint {
  const headroom = orderHeadroom(o, e);
  const cash = o.collateral - cashHeld(o);
  const free = headroom < cash ? headroom : cash;
  return free > 0n ? free : 0n;
}

export interface AccountStats {
  accountValue: bigint;
  crossEquity: bigint;
  /** RATE_SCALE. */
  crossLeverage: bigint;
  /** RATE_SCALE. */
  crossMarginRatio: bigint;
  /** RATE_SCALE. */
  crossMarginUsage: bigint;
  freeCollateral: bigint;
  freeCollateralCross: bigint;
  initialMarginRequirement: bigint;
  maintMargin: bigint;
  upnl: bigint;
}

function share(part: bigint, whole: bigint): bigint {
  if (whole > 0n) return ratio(part, whole);
  return part > 0n ? RATE_ONE : 0n;
}

export function statsOf(o: OwnerState, markets: readonly MarketState[]): AccountStats {
  const e = exposureOf(o, markets, newExposure());
  const equity = crossEquity(o, e);
  const imr = e.crossIM + o.holdTotal;
  const headroom = equity - imr;
  return {
    accountValue: equity + e.isolatedEquity,
    crossEquity: equity,
    crossLeverage: equity > 0n ? ratio(e.crossNotional, equity) : 0n,
    crossMarginRatio: share(e.crossMM, equity),
    crossMarginUsage: share(imr, equity),
    freeCollateral: withdrawable(o, e),
    freeCollateralCross: headroom > 0n ? headroom : 0n,
    initialMarginRequirement: imr,
    maintMargin: e.crossMM + e.isolatedMM,
    upnl: e.upnl,
  };
}
