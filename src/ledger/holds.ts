/**
 * @module ledger/holds
 *
 * Pre-trade risk (R1): the margin hold an order reserves when it is admitted, the open lots it
 * counts, and their release when it leaves the book (settlement.ts releases them as it fills).
 * A liquidation order holds nothing; when it ends, its liquidation finishes (insolvency.ts).
 *
 * Invariants: an owner's `holdTotal` is the sum of its holds' amounts and its side holds (no
 * more than a side's open orders may yet need: `sideNeed`), its `openLots` the
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
import { addLots, countedReduceLots, removeLots, type Hold, type MarketState, type OwnerState } from './state.ts';
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
 * lots frees (their initial margin; an isolated position's equity beyond the maintenance
 * margin of the lots left): it opens nothing, but it
 * pays what it charges — and, as a side hold, the initial margin the open orders of its side
 * need once the position they were held as closing is gone (`sideNeed`). Liquidation orders
 * hold nothing.
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
  /** A reduce-only order's side hold: the margin its close takes from the open orders of its side. */
  let uncovered = 0n;
  const open = o.openLots.get(market);
  const counts = !reduceOnly && !liquidation;
  const q = o.positions.get(market)?.quantity ?? 0;
  // The owner's reduce-only orders in flight: the book may have filled them already, each
  // shrinking the position toward zero (the book caps them at it) before this ledger hears.
  const ro = o.reduceLots.get(market);
  if (counts) {
    const pending = open === undefined ? 0 : side > 0 ? open.buy : open.sell;
    const exposed = exposedAlong(q, ro, side);
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
    // The lots it closes are lots the open orders of its side were held as closing: their holds
    // counted the position as taken back first, free of initial margin. Closed by this order,
    // the position is not there for them, and they open that many lots more: the initial
    // margin closing it frees is theirs, not free (a long closed reduce-only under the owner's
    // resting asks freed its margin for withdrawal, and the asks opened a short with none:
    // the in-flight generator, seed 930080; test/app/long-closed-under-resting-asks).
    // Held as a side hold, not in this order's hold, which its fills release.
    // (What the side holds already counts: the two together never hold more than the side needs.)
    const needed = sideNeed(o, m, side, countedReduceLots(quantity));
    const raised = needed - sideNeed(o, m, side);
    const room = needed - sideHeld(o, market, side);
    uncovered = raised < room ? raised : room;
    if (uncovered < 0n) uncovered = 0n;
    if (amount + uncovered > 0n) {
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
      if (amount + uncovered > orderHeadroom(o, e) + (freed > 0n ? freed : 0n)) return LedgerCode.InsufficientMargin;
      // In an isolated market what its close loses beyond the position's equity is paid in cash,
      // out of the cross collateral (settlement.ts), never out of unrealised profit, which cannot
      // be moved: the hold must be cash not already held, or the position's equity. Against the
      // headroom alone, a reduce-only buy far above the mark closed an isolated short whose owner
      // had 1.41 USD of cash beside a cross position 300 USD in profit, and the fund paid the
      // 6.35 USD the cash lacked (the in-flight generator, seed 960011; test/ledger/isolated-reduce-only-cash).
      if ((p?.isolated ?? o.settings.get(market)?.isolated ?? false) && amount + uncovered > o.collateral - o.holdTotal + (freed > 0n ? freed : 0n)) return LedgerCode.InsufficientMargin;
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
  if (uncovered > 0n) addSideHold(o, market, side, uncovered);
  return LedgerCode.Ok;
}

/**
 * The position (`q` lots) an order of `side` may meet at the book, in lots along `side`
 * (negative: lots of the position it closes first), with the owner's reduce-only lots in
 * flight `ro` and `moreReduce` more of them on that side. A position its own side's reduce-only orders have closed
 * already is none to close (bought back in flight, a buy that the ledger took for a close
 * opened a long with no initial margin held).
 */
function exposedAlong(q: number, ro: { buy: number; sell: number } | undefined, side: Side, moreReduce = 0): number {
  const met = side > 0 ? (q < 0 ? Math.min(0, q + (ro?.buy ?? 0) + moreReduce) : q) : q > 0 ? Math.max(0, q - (ro?.sell ?? 0) - moreReduce) : q;
  return side > 0 ? met : -met;
}

/**
 * The initial margin the open orders of `side` add to the position they may meet if all of
 * them fill (at the mark, where the position's margin is measured), with `moreReduce` more
 * reduce-only lots of that side in flight: what their holds and the side hold cover together.
 */
export function sideNeed(o: OwnerState, m: MarketState, side: Side, moreReduce = 0): bigint {
  const open = o.openLots.get(m.spec.index);
  const pending = open === undefined ? 0 : side > 0 ? open.buy : open.sell;
  if (pending === 0) return 0n;
  const exposed = exposedAlong(o.positions.get(m.spec.index)?.quantity ?? 0, o.reduceLots.get(m.spec.index), side, moreReduce);
  const fraction = fractionOf(o, m);
  const mark = m.prices.mark;
  return initialMargin(m.spec, notional(m.scale, mark, Math.max(0, exposed + pending)), fraction) - initialMargin(m.spec, notional(m.scale, mark, Math.max(0, exposed)), fraction);
}

function sideHeld(o: OwnerState, market: MarketIndex, side: Side): bigint {
  const s = o.sideHolds.get(market);
  return s === undefined ? 0n : side > 0 ? s.buy : s.sell;
}

/** Holds `amount` more for the open orders of `side` in `market` (part of `holdTotal`). */
export function addSideHold(o: OwnerState, market: MarketIndex, side: Side, amount: bigint): void {
  let s = o.sideHolds.get(market);
  if (s === undefined) o.sideHolds.set(market, (s = { buy: 0n, sell: 0n }));
  if (side > 0) s.buy += amount;
  else s.sell += amount;
  o.holdTotal += amount;
}

/**
 * Releases what the side holds of `m` keep beyond what the open orders of their side may still
 * need (`sideNeed`): all of it once the side has none; as its orders fill (the position they
 * open carries its own margin) or leave; as a reduce-only order of the side ends (the position
 * is there again to close); as the position grows away from the side. Never raises one. With
 * no mark yet, the need is unknown: kept while the side has orders.
 */
export function trimSideHolds(o: OwnerState, m: MarketState): void {
  const s = o.sideHolds.get(m.spec.index);
  if (s === undefined) return;
  for (const side of [1, -1] as const) {
    const held = side > 0 ? s.buy : s.sell;
    if (held === 0n) continue;
    const open = o.openLots.get(m.spec.index);
    const pending = open === undefined ? 0 : side > 0 ? open.buy : open.sell;
    if (pending > 0 && m.prices.mark <= 0) continue;
    const need = sideNeed(o, m, side);
    if (held <= need) continue;
    o.holdTotal -= held - need;
    if (side > 0) s.buy = need;
    else s.sell = need;
  }
  if (s.buy === 0n && s.sell === 0n) o.sideHolds.delete(m.spec.index);
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
  trimSideHolds(o, ctx.markets[h.market]);
}

/** `lots` of `h` filled or left the book: off its owner's open lots, or its reduce-only lots. */
export function reduceOpenLots(o: OwnerState, h: Hold, lots: number): void {
  if (!h.reduceOnly) removeLots(o.openLots, h.market, h.side, lots);
  else if (!h.liquidation) removeLots(o.reduceLots, h.market, h.side, countedReduceLots(h.remaining) - countedReduceLots(h.remaining - lots));
}
