/**
 * @module ledger/holds
 *
 * Pre-trade risk (R1): the margin hold an order reserves when it is admitted, the open lots it
 * counts, and their release when it leaves the book (settlement.ts releases them as it fills).
 * A liquidation order holds nothing; when it ends, its liquidation finishes (insolvency.ts).
 *
 * Invariants: an owner's `holdTotal` is the sum of its holds' amounts, its `openLots` the
 * remaining lots of its holds that are not reduce-only, its `reduceLots` those of its
 * reduce-only holds (liquidations apart); a hold is ≥ 0 and dropped at 0 lots.
 * Functions over a `HoldsContext` the `Ledger` hands them (its own records, shared).
 * May import: types/ids, engine/types, ledger/.
 */
import type { Side } from '../engine/types.ts';
import { LedgerCode } from './codes.ts';
import { tradingFee } from './fees.ts';
import { finishLiquidation, type InsolvencyContext } from './insolvency.ts';
import { initialMargin, maintenanceMargin } from './margin.ts';
import { openLoss } from './open-loss.ts';
import { addLots, countedReduceLots, removeLots, type Hold, type OwnerState } from './state.ts';
import { exposureOf, fractionOf, orderHeadroom, upnlOf } from './stats.ts';
import { notional, owed } from './units.ts';
import { NO_OWNER, type MarketIndex, type OrderId, type OwnerIndex } from '../types/ids.ts';

export interface AdmitExtras {
  /** Owner id paid the originator fee (NO_OWNER or absent = none). */
  originator?: OwnerIndex;
  /** Fraction of notional, RATE_SCALE (the order's `originatorFee`). */
  originatorFee?: bigint;
  /** This order is one of `checkLiquidations`' orders. */
  liquidation?: boolean;
}

/** What the holds need of the ledger beyond the insolvency block's (a liquidation order's end finishes it): the holds themselves. */
export interface HoldsContext extends InsolvencyContext {
  readonly holds: Map<number, Hold>;
}

/**
 * Admits an order if the owner's free collateral covers its hold: the initial margin by
 * which the worst-case position grows (all open orders on this side filled, this one too)
 * plus the taker fee and the originator fee on its notional. Buys are valued at their limit,
 * sells at max(limit, mark). In an isolated market the hold must also fit in the collateral
 * not already held (the margin its fill moves is cash, not unrealised profit). A reduce-only order holds its fees and open loss on the lots it can close
 * (min(quantity, |position| + the owner's open lots that would grow it: its book may have
 * filled them already)), checked against the headroom plus what closing the position's own
 * lots frees (their initial margin; an isolated position's equity): it opens nothing, but it
 * pays what it charges. Liquidation orders hold nothing.
 */
export function admitOrder(ctx: HoldsContext, orderId: OrderId, owner: OwnerIndex, market: MarketIndex, side: Side, price: number, quantity: number, reduceOnly: boolean, time: number, extras?: AdmitExtras): LedgerCode {
  const o = ctx.owners[owner];
  if (o === undefined || owner === 0) return LedgerCode.AccountNotFound;
  const m = ctx.markets[market];
  if (m === undefined) return LedgerCode.MarketNotFound;
  if (!Number.isSafeInteger(price) || price <= 0 || !Number.isSafeInteger(quantity) || quantity <= 0) return LedgerCode.InvalidOrder;
  if (ctx.holds.has(orderId)) return LedgerCode.OrderExists;
  const liquidation = extras?.liquidation === true;
  if (!liquidation && o.liquidating.size > 0) return LedgerCode.InLiquidation;
  let amount = 0n;
  const open = o.openLots.get(market);
  const counts = !reduceOnly && !liquidation;
  const q = o.positions.get(market)?.quantity ?? 0;
  // The owner's reduce-only orders in flight: the book may have filled them already, each
  // shrinking the position toward zero (the book caps them at it) before this ledger hears.
  const ro = o.reduceLots.get(market);
  if (counts) {
    const pending = open === undefined ? 0 : side > 0 ? open.buy : open.sell;
    // The position this order may meet at the book: a short its own side's reduce-only orders
    // have closed already is no short to reduce (bought back in flight, a buy that the ledger
    // took for a close opened a long with no initial margin held).
    const met = side > 0 ? (q < 0 ? Math.min(0, q + (ro?.buy ?? 0)) : q) : q > 0 ? Math.max(0, q - (ro?.sell ?? 0)) : q;
    const exposed = side > 0 ? met : -met;
    const worstBefore = Math.max(0, exposed + pending);
    const worstAfter = Math.max(0, exposed + pending + quantity);
    const at = side > 0 ? price : Math.max(price, m.prices.mark);
    const fraction = fractionOf(o, m);
    amount =
      initialMargin(m.spec, notional(m.scale, at, worstAfter), fraction) -
      initialMargin(m.spec, notional(m.scale, at, worstBefore), fraction) +
      tradingFee(notional(m.scale, at, quantity), m.spec.takerFee > 0n ? m.spec.takerFee : 0n) +
      owed(notional(m.scale, at, quantity), extras?.originatorFee ?? 0n) +
      openLoss(m, side, price, quantity);
    if (amount > orderHeadroom(o, exposureOf(o, ctx.markets, ctx.scratch))) return LedgerCode.InsufficientMargin;
    // In an isolated market the fill moves its margin out of the collateral: the hold must be
    // cash not already held, not the unrealised profit the headroom counts. Else the fill posts
    // what cash there is, the position opens below maintenance, and its losses beyond that
    // margin fall on the fund while the cross account keeps its profit.
    if ((o.positions.get(market)?.isolated ?? o.settings.get(market)?.isolated ?? false) && amount > o.collateral - o.holdTotal) return LedgerCode.InsufficientMargin;
    addLots(o.openLots, market, side, quantity);
  } else if (!liquidation) {
    const p = o.positions.get(market);
    // The book refuses what does not reduce; the fees and open loss are held on what can close.
    // The book caps the order at its own count of the owner's fills, which runs ahead of this
    // ledger by the fills still on their way back: the owner's open orders on the other side
    // may have grown (or flipped) the position there already. Held on the position alone, a
    // reduce-only sell placed right behind the buy that opens the position held nothing and
    // closed it all far below the mark into an accomplice's bid, the fund paying the loss.
    // So may its reduce-only orders on the other side, each closing a position opposite this
    // order's before the open ones build the one it closes (found by review: a reduce-only buy,
    // then a buy, then a reduce-only sell at 1, all in flight: the sell held nothing).
    const growing = open === undefined ? 0 : side > 0 ? open.sell : open.buy;
    const unwound = side > 0 ? Math.min(ro?.sell ?? 0, Math.max(0, q)) : Math.min(ro?.buy ?? 0, Math.max(0, -q));
    const closable = (side > 0 ? -q : q) + unwound + growing;
    const lots = closable > 0 ? Math.min(quantity, closable) : 0;
    const at = side > 0 ? price : Math.max(price, m.prices.mark);
    amount =
      tradingFee(notional(m.scale, at, lots), m.spec.takerFee > 0n ? m.spec.takerFee : 0n) +
      owed(notional(m.scale, at, lots), extras?.originatorFee ?? 0n) +
      openLoss(m, side, price, lots);
    if (amount > 0n) {
      const e = exposureOf(o, ctx.markets, ctx.scratch);
      let freed = 0n;
      // Only a position on the side the order closes frees anything (lots beyond it free the
      // holds of the orders that would grow it, which the headroom already counts as held).
      const closing = side > 0 ? q < 0 : q > 0;
      const size = Math.abs(q);
      const closed = Math.min(lots, size);
      if (p !== undefined && closing && p.isolated) {
        // The position's equity beyond what the lots left need (their maintenance margin at the
        // mark): all of it only for a whole close. Freeing all of it on a partial close let 2
        // lots of 140, bought far through the mark, lose the margin the other 138 stood on —
        // its owner's own order left the rest below maintenance (hostile simulator seed 710013).
        freed = p.margin + upnlOf(m, p) - maintenanceMargin(m.spec, notional(m.scale, m.prices.mark, size - closed));
      } else if (p !== undefined && closing) {
        const fraction = fractionOf(o, m);
        freed = initialMargin(m.spec, notional(m.scale, m.prices.mark, size), fraction) - initialMargin(m.spec, notional(m.scale, m.prices.mark, size - closed), fraction);
      }
      if (amount > orderHeadroom(o, e) + (freed > 0n ? freed : 0n)) return LedgerCode.InsufficientMargin;
    }
  }
  ctx.holds.set(orderId, {
    orderId,
    owner,
    market,
    side,
    remaining: quantity,
    amount,
    reduceOnly: !counts,
    liquidation,
    originator: extras?.originator ?? NO_OWNER,
    originatorFee: extras?.originatorFee ?? 0n,
  });
  o.holdTotal += amount;
  if (!counts && !liquidation) addLots(o.reduceLots, market, side, countedReduceLots(quantity));
  return LedgerCode.Ok;
}

/** The order left the book (cancelled, expired, rejected, IOC remainder): its hold is released. */
export function releaseOrder(ctx: HoldsContext, orderId: OrderId, time: number): LedgerCode {
  const h = ctx.holds.get(orderId);
  if (h === undefined) return LedgerCode.Ok;
  dropHold(ctx, h);
  if (h.liquidation) finishLiquidation(ctx, ctx.owners[h.owner], h.market, h.side, time);
  return LedgerCode.Ok;
}

function dropHold(ctx: HoldsContext, h: Hold): void {
  const o = ctx.owners[h.owner];
  o.holdTotal -= h.amount;
  reduceOpenLots(o, h, h.remaining);
  ctx.holds.delete(h.orderId);
}

/** `lots` of `h` filled or left the book: off its owner's open lots, or its reduce-only lots. */
export function reduceOpenLots(o: OwnerState, h: Hold, lots: number): void {
  if (!h.reduceOnly) removeLots(o.openLots, h.market, h.side, lots);
  else if (!h.liquidation) removeLots(o.reduceLots, h.market, h.side, countedReduceLots(h.remaining) - countedReduceLots(h.remaining - lots));
}
