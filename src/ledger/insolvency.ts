/**
 * @module ledger/insolvency
 *
 * What the ledger does when an owner cannot carry its positions: liquidation (which positions
 * are below maintenance, the reduce-only IOC order each gets, what happens when it ends), the
 * insurance fund's payments, auto-deleveraging (ADL) at the bankruptcy price, and the loss
 * left over, paid by the fund and then by the winners' unrealised profit (`socialisedLoss`).
 * Prices and ranking are liquidation.ts's; this file moves the money.
 *
 * Invariants: a liquidation is priced only when its owner has no order open in its scope (the
 * fills of orders its books matched before their cancels are settled first: `cancelling`); the
 * fund never pays more than it holds except for a loss larger than every
 * unrealised profit on the exchange (then it goes below zero, visibly); a winner gives back
 * profit, never principal, and ADL never makes a counterparty bankrupt; every move is an
 * event (`liquidation`, `adl`, `insurance`, `socialisedLoss`, `balance`, `position`).
 * Functions over an `InsolvencyContext` the `Ledger` hands them (its own records, shared).
 * May import: types/ids, engine/types, ledger/.
 */
import type { Side } from '../engine/types.ts';
import type { LedgerListener, LiquidationCancel, LiquidationOrder } from './events.ts';
import { bankruptcyPrice, liquidationLimit, rankForDeleveraging, type DeleverageCandidate } from './liquidation.ts';
import { maintenanceMargin } from './margin.ts';
import { credit, emitPosition, moveInsurance, type Funds } from './moves.ts';
import type { Position } from './position.ts';
import type { MarketState, OwnerState } from './state.ts';
import { crossEquity, exposureOf, notionalAtMark, upnlOf, type Exposure } from './stats.ts';
import { ceilDiv, floorDiv, notional, ticksForValue } from './units.ts';
import { NO_ORDER, type MarketIndex, type OrderId, type OwnerIndex } from '../types/ids.ts';

/** What the insolvency block needs of the ledger: its records, the fund, the listener, and one side's settlement (an ADL trade). */
export interface InsolvencyContext {
  readonly owners: readonly OwnerState[];
  readonly markets: readonly MarketState[];
  /** Scratch space for `exposureOf` (overwritten by each call). */
  readonly scratch: Exposure;
  readonly funds: Funds;
  readonly emit: LedgerListener;
  /** Owners whose shortfall left the fund below zero, checked once the operation that paid it ends (`unjustifiedDeficit`). */
  readonly deficits: Set<OwnerIndex>;
  /** Owners with a liquidation in `cancelling` (derived from those sets, rebuilt by a restore): what `readyLiquidations` looks at. */
  readonly waiting: Set<OwnerIndex>;
  /** settlement.ts's `settleSide`, handed in (settlement calls into this file, so this file cannot import it). */
  settleSide(m: MarketState, ownerId: OwnerIndex, orderId: OrderId, side: Side, price: number, quantity: number, n: bigint, feeRate: bigint, maker: boolean, time: number): void;
}

/**
 * Finds cross accounts below maintenance (all their cross positions are liquidated) and
 * isolated positions below maintenance, and returns one reduce-only IOC order per position
 * at its liquidation limit (see liquidation.ts). The application sends each to its book after
 * `admitOrder(..., { liquidation: true })`; `releaseOrder` of it (or its complete fill)
 * finishes the liquidation: an unfilled rest is deleveraged, a shortfall covered.
 * Positions with a liquidation in flight are skipped.
 *
 * A liquidation whose owner has orders open in its scope (cross: any market; isolated: its
 * own) is not priced yet: it is listed in `cancels` for the application to take those orders
 * off their books, and its positions wait in `cancelling` until every one of them has ended
 * (`readyLiquidations`). A book may have matched one before its cancel arrived; priced before
 * that fill is settled, the order's bankruptcy price gave its buyer equity the fill then spent,
 * and the fund paid the order's open loss (test/ledger/isolated-draw-attacks
 * FILL_IN_FLIGHT_DURING_LIQUIDATION). Waiting cannot last: the owner places nothing meanwhile
 * (`liquidating`), every hold is of an order sent to its book, and the book answers the cancel.
 * Waiting liquidations whose orders have all ended are priced here too, in owner order.
 */
export function checkLiquidations(ctx: InsolvencyContext, time: number, cancels?: LiquidationCancel[]): LiquidationOrder[] {
  const orders: LiquidationOrder[] = [];
  for (let id = 1; id < ctx.owners.length; id++) liquidate(ctx, ctx.owners[id], time, orders, cancels);
  return orders;
}

/**
 * The waiting liquidations (`checkLiquidations`) whose owner's orders in their scope have all
 * left the books, priced on the state as it is now: each is checked again, and one its owner's
 * last fills took back above maintenance (or closed) is over, priced nothing. In owner order,
 * so a replay and a restored replica send them alike. The application calls it after every
 * book event (an order's end or fill is what makes one ready); nothing to do when none waits.
 * The owner's other positions are checked with them, and one due with orders open in its
 * scope waits in turn, listed in `cancels` as `checkLiquidations` lists it (the application
 * sends those cancels too: no order is left to end on its own).
 */
export function readyLiquidations(ctx: InsolvencyContext, time: number, cancels?: LiquidationCancel[]): LiquidationOrder[] {
  const orders: LiquidationOrder[] = [];
  if (ctx.waiting.size === 0) return orders;
  // Only owners whose wait ended are checked (all their positions); everyone else waits for the next Tick.
  for (const id of [...ctx.waiting].sort((a, b) => a - b)) if (releaseCancelled(ctx, ctx.owners[id])) liquidate(ctx, ctx.owners[id], time, orders, cancels);
  return orders;
}

/**
 * `checkLiquidations` for one owner: the positions due and not yet in liquidation get their
 * order in `orders`, or, with orders of the owner open in the scope, wait in `cancelling`
 * (listed once per scope in `cancels`). Waiting positions whose scope has emptied are priced.
 */
function liquidate(ctx: InsolvencyContext, o: OwnerState, time: number, orders: LiquidationOrder[], cancels?: LiquidationCancel[]): void {
  if (o.cancelling.size > 0) releaseCancelled(ctx, o);
  if (o.positions.size === 0) return;
  const e = exposureOf(o, ctx.markets, ctx.scratch);
  const equity = crossEquity(o, e);
  let crossListed = false;
  for (const p of o.positions.values()) {
    if (o.liquidating.has(p.market)) continue;
    const m = ctx.markets[p.market];
    const share = dueShare(ctx, p, e, equity);
    if (share === null) continue;
    o.liquidating.add(p.market);
    if (p.isolated ? ordersOpenIn(o, p.market) : ordersOpen(o)) {
      o.cancelling.add(p.market);
      ctx.waiting.add(o.owner);
      if (p.isolated) cancels?.push({ owner: o.owner, market: p.market });
      else if (!crossListed) cancels?.push({ owner: o.owner, market: null });
      crossListed ||= !p.isolated;
      continue;
    }
    const bankrupt = bankruptcyPrice(m.scale, m.prices.mark, p.quantity, share);
    const order: LiquidationOrder = {
      owner: o.owner,
      account: o.account,
      market: p.market,
      side: p.quantity > 0 ? -1 : 1,
      price: liquidationLimit(m.scale, bankrupt, p.quantity, ctx.funds.insurance, m.prices.mark),
      quantity: Math.abs(p.quantity),
      bankruptcyPrice: bankrupt,
    };
    orders.push(order);
    ctx.emit({ type: 'liquidation', order, time });
  }
}

/**
 * Ends the wait of `o`'s positions in `cancelling` whose scope holds none of its orders any
 * more (or which are closed): out of `liquidating`, to be checked again on the state as it is.
 * True when any did.
 */
function releaseCancelled(ctx: InsolvencyContext, o: OwnerState): boolean {
  let released = false;
  for (const market of o.cancelling) {
    const p = o.positions.get(market);
    if (p !== undefined && (p.isolated ? ordersOpenIn(o, market) : ordersOpen(o))) continue;
    o.cancelling.delete(market);
    o.liquidating.delete(market);
    released = true;
  }
  if (o.cancelling.size === 0) ctx.waiting.delete(o.owner);
  return released;
}

/** Whether `o` has an order (not a liquidation's) admitted in `market` that has not ended: its hold is there. */
export function ordersOpenIn(o: OwnerState, market: MarketIndex): boolean {
  return o.openLots.has(market) || o.reduceLots.has(market);
}

/** Whether `o` has an order (not a liquidation's) admitted in any market that has not ended. */
function ordersOpen(o: OwnerState): boolean {
  return o.openLots.size > 0 || o.reduceLots.size > 0;
}

/**
 * The markets where `owner` is below maintenance with no liquidation in flight (no order, no wait for its orders to end): what
 * the next `checkLiquidations` would liquidate (a read, for checks and the simulator).
 */
export function liquidatable(ctx: InsolvencyContext, owner: OwnerIndex): number[] {
  const o = ctx.owners[owner];
  if (o === undefined || owner === 0 || o.positions.size === 0) return [];
  const e = exposureOf(o, ctx.markets, ctx.scratch);
  const equity = crossEquity(o, e);
  const due: number[] = [];
  for (const p of o.positions.values()) if (!o.liquidating.has(p.market) && dueShare(ctx, p, e, equity) !== null) due.push(p.market);
  return due;
}

/** The equity share backing `p` when it is below maintenance (isolated: its own; cross: the account's), else null. */
function dueShare(ctx: InsolvencyContext, p: Position, e: Exposure, equity: bigint): bigint | null {
  const m = ctx.markets[p.market];
  const mm = maintenanceMargin(m.spec, notionalAtMark(m, p));
  if (p.isolated) {
    const share = p.margin + upnlOf(m, p);
    return share < mm ? share : null;
  }
  return e.crossMM > 0n && equity < e.crossMM ? floorDiv(equity * mm, e.crossMM) : null;
}

/**
 * The liquidation order of `o` in `market` (on `side`) ended. A position still below
 * maintenance is deleveraged at its bankruptcy price; when its equity share is already below
 * zero, the insurance fund pays that loss first, up to what it holds, and the bankruptcy price
 * carries only the rest to the ADL counterparties. Then a cross shortfall left is paid.
 */
export function finishLiquidation(ctx: InsolvencyContext, o: OwnerState, market: MarketIndex, side: Side, time: number): void {
  o.liquidating.delete(market);
  const m = ctx.markets[market];
  const p = o.positions.get(market);
  if (p !== undefined) {
    const e = exposureOf(o, ctx.markets, ctx.scratch);
    const mm = maintenanceMargin(m.spec, notionalAtMark(m, p));
    let share = p.isolated ? p.margin + upnlOf(m, p) : e.crossMM > 0n ? floorDiv(crossEquity(o, e) * mm, e.crossMM) : 0n;
    const stillDue = p.isolated ? share < mm : crossEquity(o, e) < e.crossMM;
    if (stillDue) {
      const fromFund = share < 0n ? fundCanPay(ctx.funds, -share) : 0n;
      if (fromFund > 0n) {
        moveInsurance(ctx.emit, ctx.funds, -fromFund, 'shortfall', o.owner, time);
        if (p.isolated) {
          p.margin += fromFund;
          emitPosition(ctx.emit, o.owner, p);
        } else credit(ctx.emit, o, fromFund, 'shortfall', time);
        share += fromFund;
      }
      deleverage(ctx, o, m, p, bankruptcyPrice(m.scale, m.prices.mark, p.quantity, share), time);
    }
  }
  coverCrossShortfall(ctx, o, m, side, time);
}

/**
 * Closes `p` against the most profitable opposite positions at `price` (its bankruptcy
 * price), without fees. Owners with a liquidation of their own in flight come last: they are
 * not the winners a bankruptcy is socialised to. When `price` is beyond the mark (the
 * position's equity was below zero after the fund paid what it could), each counterparty pays
 * its share of that loss only as far as its equity above maintenance goes — closed at mark
 * moved by what it pays, never made bankrupt by another's bankruptcy; what is left unpaid
 * stays a shortfall of `o`, paid by the winners' profit (`payShortfall`).
 */
function deleverage(ctx: InsolvencyContext, o: OwnerState, m: MarketState, p: Position, price: number, time: number): void {
  const healthy: DeleverageCandidate[] = [];
  const liquidating: DeleverageCandidate[] = [];
  for (const other of m.holders) {
    if (other === o.owner) continue;
    const ow = ctx.owners[other];
    const op = ow.positions.get(m.spec.index) as Position;
    if (op.quantity > 0 === p.quantity > 0) continue;
    const upnl = upnlOf(m, op);
    const equity = op.isolated ? op.margin + upnl : crossEquity(ow, exposureOf(ow, ctx.markets, ctx.scratch));
    (ow.liquidating.size > 0 ? liquidating : healthy).push({ owner: other, quantity: op.quantity, upnl, basis: op.basis, notional: notionalAtMark(m, op), equity });
  }
  const side: Side = p.quantity > 0 ? -1 : 1;
  const mark = m.prices.mark;
  let left = Math.abs(p.quantity);
  // The loss beyond the mark the counterparties are asked to carry (0 when `price` is no worse for them than the mark).
  let loss = side < 0 ? (price > mark ? notional(m.scale, price - mark, left) : 0n) : price < mark ? notional(m.scale, mark - price, left) : 0n;
  const beyondMark = loss > 0n;
  for (const c of [...rankForDeleveraging(healthy), ...rankForDeleveraging(liquidating)]) {
    if (left === 0) break;
    const lots = Math.min(left, Math.abs(c.quantity));
    let at = price;
    if (beyondMark) {
      // Its share of what is still owed (0 once those before it, rounding up to whole ticks, paid it all: it closes at the mark).
      // It pays as far as its equity above maintenance goes, or, when more, up to the profit it
      // holds on the lots closed (closed no worse than its own entry): a winner gives back
      // winnings, never principal, and the fund is not asked while winnings are left.
      const room = surplusOverMaintenance(ctx, ctx.owners[c.owner], m);
      const profit = c.upnl > 0n ? (c.upnl * BigInt(lots)) / BigInt(Math.abs(c.quantity)) : 0n;
      const cap = room > profit ? room : profit;
      const owed = loss > 0n ? ceilDiv(loss * BigInt(lots), BigInt(left)) : 0n;
      const pays = owed < cap ? owed : cap > 0n ? cap : 0n;
      let ticks = ticksForValue(m.scale, pays, lots);
      // Whole ticks round what it pays down; the unit or so below a tick would be left for a fund
      // that may hold nothing and winners that ADL just closed. It pays the tick while its cap allows.
      if (notional(m.scale, Number(ticks), lots) < pays && notional(m.scale, Number(ticks) + 1, lots) <= cap) ticks += 1n;
      const distance = Number(ticks);
      at = side < 0 ? mark + distance : Math.max(1, mark - distance);
      loss -= notional(m.scale, distance, lots); // what it could not pay stays for the counterparties after it
    }
    left -= lots;
    const n = notional(m.scale, at, lots);
    ctx.emit({ type: 'adl', owner: o.owner, counterparty: c.owner, market: m.spec.index, price: at, quantity: lots, time });
    ctx.settleSide(m, c.owner, NO_ORDER, (-side) as Side, at, lots, n, 0n, true, time);
    ctx.settleSide(m, o.owner, NO_ORDER, side, at, lots, n, 0n, false, time);
  }
  if (left !== 0) throw new Error(`ledger: ADL found no counterparty for ${left} lots in market ${m.spec.index}`);
}

/** What `o` can lose in `m` and stay at its maintenance margin: isolated, its position's; cross, the account's. */
function surplusOverMaintenance(ctx: InsolvencyContext, o: OwnerState, m: MarketState): bigint {
  const op = o.positions.get(m.spec.index) as Position;
  if (op.isolated) return op.margin + upnlOf(m, op) - maintenanceMargin(m.spec, notionalAtMark(m, op));
  const e = exposureOf(o, ctx.markets, ctx.scratch);
  return crossEquity(o, e) - e.crossMM;
}

/** An owner with no cross positions left and negative collateral: paid by the fund, then the winners of `market`'s `side`. */
export function coverCrossShortfall(ctx: InsolvencyContext, o: OwnerState, m: MarketState, side: Side, time: number): void {
  if (o.collateral >= 0n) return;
  for (const p of o.positions.values()) if (!p.isolated) return;
  const shortfall = -o.collateral;
  payShortfall(ctx, o.owner, m, side, shortfall, time);
  credit(ctx.emit, o, shortfall, 'shortfall', time);
}

/** What the insurance fund can pay of `amount`: never more than it holds. */
function fundCanPay(funds: Funds, amount: bigint): bigint {
  return funds.insurance <= 0n ? 0n : amount < funds.insurance ? amount : funds.insurance;
}

/**
 * Finds `amount` for a loss `owner` realised in `m` beyond its equity, by closing trades on
 * `side` (a bankrupt long sells: side −1); the caller credits it. The insurance fund pays
 * up to what it holds; the rest comes out of unrealised profit, in ADL order within each
 * group — first no more than keeps each winner above its maintenance margin, then up to all
 * of its profit: the positions on `side` in `m` (the winners opposite the loss) first, then
 * the winners of every other market (a cross account loses across markets, and its
 * liquidations end one market at a time), then the winners on the loser's side of `m`. Only a
 * loss larger than every unrealised profit on the exchange leaves the fund below zero
 * (visible: a `shortfall` event, the money report).
 */
export function payShortfall(ctx: InsolvencyContext, owner: OwnerIndex, m: MarketState, side: Side, amount: bigint, time: number): void {
  const fromFund = fundCanPay(ctx.funds, amount);
  moveInsurance(ctx.emit, ctx.funds, -fromFund, 'shortfall', owner, time);
  let left = takeFromWinners(ctx, owner, m, side, amount - fromFund, time);
  for (const other of ctx.markets) if (other !== m && left > 0n) left = takeFromWinners(ctx, owner, other, 0, left, time);
  // Last, the winners on the loser's own side of `m` (a buyer of its liquidation below the mark
  // holds profit on the same side): the opposite ones gave all theirs above, so only those are left.
  left = takeFromWinners(ctx, owner, m, 0, left, time);
  // Nobody holds that much profit: the fund owes the rest (a deficit the operator sees).
  moveInsurance(ctx.emit, ctx.funds, -left, 'shortfall', owner, time);
  if (left > 0n) ctx.deficits.add(owner);
}

/**
 * The most unrealised profit a drained winner can show again without holding any: a position
 * that an ADL trade later in the same operation closes in part keeps a basis rounded down and
 * is valued at a notional rounded down, one unit each (test/ledger/properties found a 1).
 */
export const ROUNDING_PROFIT = 1n;

/**
 * Checked after an operation that paid a shortfall beyond the fund (a fill, a liquidation's
 * end): the fund may go below zero only when nobody but the losers holds profit, every winner
 * having paid (`payShortfall`). A winner left holding profit — a shortfall paid before its
 * position stood — is a broken invariant: its description, or null. Forgets the losers.
 */
export function unjustifiedDeficit(ctx: InsolvencyContext): string | null {
  const losers = ctx.deficits;
  if (losers.size === 0) return null;
  let found: string | null = null;
  for (let id = 1; id < ctx.owners.length && found === null; id++) {
    if (losers.has(id as OwnerIndex)) continue;
    for (const p of ctx.owners[id].positions.values()) {
      const upnl = upnlOf(ctx.markets[p.market], p);
      if (upnl <= ROUNDING_PROFIT) continue;
      found = `the insurance fund went below zero (${ctx.funds.insurance}) for owner ${[...losers].join(', ')}'s shortfall while owner ${id} held ${upnl} of unrealised profit in market ${p.market}`;
      break;
    }
  }
  losers.clear();
  return found;
}

/** Takes up to `left` of `owner`'s loss from the unrealised profit of `m`'s positions on `side` (0: either side); returns what is still owed. */
function takeFromWinners(ctx: InsolvencyContext, owner: OwnerIndex, m: MarketState, side: Side | 0, left: bigint, time: number): bigint {
  if (left === 0n) return 0n;
  const candidates: DeleverageCandidate[] = [];
  for (const other of m.holders) {
    const op = ctx.owners[other].positions.get(m.spec.index) as Position;
    if (other === owner || (side !== 0 && op.quantity > 0 === side < 0)) continue;
    const upnl = upnlOf(m, op);
    if (upnl <= 0n) continue;
    const ow = ctx.owners[other];
    const e = exposureOf(ow, ctx.markets, ctx.scratch);
    const equity = op.isolated ? op.margin + upnl : crossEquity(ow, e);
    const surplus = op.isolated ? equity - maintenanceMargin(m.spec, notionalAtMark(m, op)) : equity - e.crossMM;
    candidates.push({ owner: other, quantity: op.quantity, upnl, basis: op.basis, notional: notionalAtMark(m, op), equity: surplus });
  }
  const ranked = rankForDeleveraging(candidates);
  const taken = new Map<OwnerIndex, bigint>();
  for (const keepMaintenance of [true, false]) {
    for (const c of ranked) {
      if (left === 0n) break;
      const already = taken.get(c.owner) ?? 0n;
      let cap = c.upnl - already;
      if (keepMaintenance && c.equity - already < cap) cap = c.equity - already;
      if (cap <= 0n) continue;
      const x = cap < left ? cap : left;
      left -= x;
      taken.set(c.owner, already + x);
      const op = ctx.owners[c.owner].positions.get(m.spec.index) as Position;
      // The entry cost moves against the winner by x: its profit, and the money it holds, fall by x.
      op.basis += x;
      op.updatedAt = time;
      ctx.emit({ type: 'socialisedLoss', owner, counterparty: c.owner, market: m.spec.index, amount: x, time });
      emitPosition(ctx.emit, c.owner, op);
    }
  }
  return left;
}
