/**
 * @module ledger/settlement
 *
 * Settlement of fills (R2): one side of one fill — the hold it releases, the position it
 * changes (realised PnL, fees, funding), the originator and liquidation fees, isolated margin
 * posted and released — and what a loss beyond the owner's equity leaves for insolvency.ts.
 * A book's fill settles as two sides (maker first, its shortfall paid after the taker's side:
 * `settleBookFill`); an ADL trade too, with order id 0.
 *
 * Invariants: no fee takes more than its payer can pay once the trade's PnL is in (a fee is
 * never a shortfall); an isolated position closed by its owner's own order leaves the rest at
 * its maintenance margin, paid from the cross collateral, not the fund; an isolated side of its
 * owner's own order takes the cash, or what its hold reserved out of the cross equity (above the
 * cross maintenance margin but for what keeps the position at its own) when the owner's own
 * fills have spent the cash; emits `fill` then
 * `position` per side, `balance` events for the money that moved.
 * Functions over a `SettlementContext` the `Ledger` hands them (its own records, shared).
 * May import: types/ids, engine/types, ledger/.
 */
import type { Side } from '../engine/types.ts';
import { tradingFee } from './fees.ts';
import { addSideHold, reduceOpenLots, trimSideHolds } from './holds.ts';
import { coverCrossShortfall, finishLiquidation, payShortfall, type InsolvencyContext } from './insolvency.ts';
import { initialMargin, maintenanceMargin } from './margin.ts';
import { credit, emitPosition, moveInsurance } from './moves.ts';
import { openLossOf } from './open-loss.ts';
import { applyTrade, type TradeOutcome } from './position.ts';
import type { Hold, MarketState, OwnerState } from './state.ts';
import { crossEquity, exposureOf, fractionOf, notionalAtMark, upnlOf } from './stats.ts';
import { abs, notional, owed } from './units.ts';
import type { OrderId, OwnerIndex } from '../types/ids.ts';

/** What settlement needs of the ledger beyond the insolvency block's: the holds, scratch for a trade's outcome, the liquidation fee. */
export interface SettlementContext extends InsolvencyContext {
  readonly holds: Map<number, Hold>;
  /** Scratch for `applyTrade` (overwritten by each call). */
  readonly trade: TradeOutcome;
  /** Scratch for `settleBookFill`: the maker side's loss beyond its equity, paid after the taker's side. */
  readonly makerShortfall: MakerShortfall;
  /** RATE_SCALE fraction of a liquidation fill's notional, to the insurance fund. */
  readonly liquidationFee: bigint;
}

/** A side's loss beyond its equity, left for later: an isolated position's (an amount), and whether its cross account is to be covered. */
export interface MakerShortfall {
  isolated: bigint;
  cross: boolean;
}

export const newMakerShortfall = (): MakerShortfall => ({ isolated: 0n, cross: false });

/**
 * Settles a book's fill: the maker's side, then the taker's, then what the maker's loss left
 * beyond its equity. The maker's shortfall waits for the taker's side because the taker may be
 * the one holding its profit — a buyer below the mark from a maker made bankrupt by its own
 * fill — and the winners who pay a shortfall are read from the positions as they stand
 * (insolvency.ts `payShortfall`): paid before the taker's side, that profit would not be there
 * yet and the fund would go below zero while the taker kept it.
 */
export function settleBookFill(ctx: SettlementContext, m: MarketState, makerOwner: OwnerIndex, makerOrderId: OrderId, takerOwner: OwnerIndex, takerOrderId: OrderId, takerSide: Side, price: number, quantity: number, n: bigint, time: number): void {
  const later = ctx.makerShortfall;
  later.isolated = 0n;
  later.cross = false;
  const makerSide = (-takerSide) as Side;
  settleSide(ctx, m, makerOwner, makerOrderId, makerSide, price, quantity, n, m.spec.makerFee, true, time, later);
  settleSide(ctx, m, takerOwner, takerOrderId, takerSide, price, quantity, n, m.spec.takerFee, false, time);
  if (later.isolated > 0n) payShortfall(ctx, makerOwner, m, makerSide, later.isolated, time);
  if (later.cross) coverCrossShortfall(ctx, ctx.owners[makerOwner], m, makerSide, time);
}

/**
 * Settles `quantity` lots of `ownerId` on `side` at `price` (notional `n`, fee rate `feeRate`)
 * against the hold of `orderId` (none: 0, an ADL trade, or an id the ledger never admitted).
 * A loss beyond the owner's equity is paid at once, or, given `later`, recorded there for the
 * caller to pay (`settleBookFill`).
 */
export function settleSide(ctx: SettlementContext, m: MarketState, ownerId: OwnerIndex, orderId: OrderId, side: Side, price: number, quantity: number, n: bigint, feeRate: bigint, maker: boolean, time: number, later?: MakerShortfall): void {
  const o = ctx.owners[ownerId];
  const market = m.spec.index;
  const h = orderId === 0 ? undefined : ctx.holds.get(orderId);
  let originatorFee = 0n;
  let liquidation = false;
  /** What the hold of an open (not reduce-only) order released for its `heldLots` filled. */
  let released = 0n;
  let heldLots = 0;
  const heldBefore = o.holdTotal;
  if (h !== undefined) {
    const lots = quantity < h.remaining ? quantity : h.remaining;
    heldLots = lots;
    const release = lots === h.remaining ? h.amount : (h.amount * BigInt(lots)) / BigInt(h.remaining);
    if (!h.reduceOnly) released = release;
    h.amount -= release;
    o.holdTotal -= release;
    reduceOpenLots(o, h, lots);
    h.remaining -= lots;
    if (h.originator !== 0) originatorFee = owed(n, h.originatorFee);
    liquidation = h.liquidation;
    if (h.remaining === 0) ctx.holds.delete(orderId);
  }
  let p = o.positions.get(market);
  if (p === undefined) {
    const setting = o.settings.get(market);
    p = { market, quantity: 0, basis: 0n, fees: 0n, funding: 0n, margin: 0n, isolated: setting?.isolated ?? false, updatedAt: time };
    o.positions.set(market, p);
    m.holders.add(ownerId);
  }
  const t = applyTrade(p, side * quantity, n, ctx.trade);
  if (released > 0n && t.closedLots > 0) {
    // The lots of an open order that closed the position were held as opening it when the
    // position was counted for the side's earlier orders (ledger/holds: a side's worst case
    // counts the position as taken back by its first lots), and those earlier orders, left
    // on the book, now open it. So the hold of the closing lots stays held for them, as a
    // side hold, trimmed below to what the side's orders may still need: released as theirs
    // on the fill, with the initial margin the close frees, it let the owner withdraw what
    // the ask held as closing then opened a short with (test/app/long-closed-under-resting-asks).
    const closed = t.closedLots < heldLots ? t.closedLots : heldLots;
    addSideHold(o, market, side, (released * BigInt(closed)) / BigInt(heldLots));
  }
  // The side holds keep what the orders may still need of the position as it now stands.
  trimSideHolds(o, m);
  /**
   * What the fill of its owner's own order (not a liquidation's) freed of the owner's holds: its
   * hold's share for the lots filled, less what stays held for the orders of the side (the side
   * holds, trimmed). Cash its admission counted beyond every hold, which an isolated side may
   * draw out of the cross equity when the owner's own fills have spent the cash (`isolatedDraw`).
   */
  let reserved = h !== undefined && !h.liquidation ? heldBefore - o.holdTotal : 0n;
  // orderId 0: an ADL trade, which no book executed (see `positionOffBook`).
  if (orderId === 0) {
    const lots = (o.offBook.get(market) ?? 0) + side * quantity;
    if (lots === 0) o.offBook.delete(market);
    else o.offBook.set(market, lots);
  }
  let fee = tradingFee(n, feeRate);
  if (fee > 0n || originatorFee > 0n) {
    // No fee takes more than this side can pay once the trade's PnL is in: the trading fee
    // first, then the originator's. What it cannot pay is not charged — never left for the
    // insurance fund to cover as a shortfall.
    // An isolated position's own order may draw on the cross collateral, and on what its hold
    // reserved there (`isolatedDraw`, see below); a liquidation may not.
    let payable = t.realizedPnl + (p.isolated ? p.margin + upnlOf(m, p) + (liquidation ? 0n : isolatedDraw(ctx, o, o.collateral, reserved, false)) : crossEquity(o, exposureOf(o, ctx.markets, ctx.scratch)));
    if (fee > payable) fee = payable > 0n ? payable : 0n;
    payable -= fee;
    if (originatorFee > payable) originatorFee = payable > 0n ? payable : 0n;
  }
  ctx.funds.feesCollected += fee;
  p.fees += fee + originatorFee;
  p.updatedAt = time;
  let cross = 0n; // change of cross collateral
  const pnlLessFees = t.realizedPnl - fee - originatorFee;
  if (p.isolated) p.margin += pnlLessFees;
  else cross += pnlLessFees;
  if (liquidation) {
    // The liquidation fee never takes more than the equity left in what is being liquidated.
    const equity = p.isolated ? p.margin + upnlOf(m, p) : crossEquity(o, exposureOf(o, ctx.markets, ctx.scratch)) + cross;
    let lf = owed(n, ctx.liquidationFee);
    if (lf > equity) lf = equity > 0n ? equity : 0n;
    if (lf > 0n) {
      if (p.isolated) p.margin -= lf;
      else cross -= lf;
      moveInsurance(ctx.emit, ctx.funds, lf, 'liquidationFee', ownerId, time);
    }
  }
  if (p.isolated) {
    if (t.closedLots > 0 && !liquidation && orderId !== 0) {
      // Its owner's own order (admitted with its open loss held against the cross account)
      // left what remains of the position below its maintenance margin, or under water: the
      // cross collateral pays the difference, not the insurance fund. Isolated margin bounds
      // what a liquidation takes, not what the owner's own trades lose — else a close far
      // through the mark into an accomplice's order hands the fund's money to the accomplice
      // while the cross account keeps its own, and a trade alone puts the rest in
      // liquidation. (A flip's new lots get their margin below.)
      const rest = t.openedLots > 0 || p.quantity === 0;
      const short = (rest ? 0n : maintenanceMargin(m.spec, notionalAtMark(m, p)) - upnlOf(m, p)) - p.margin;
      if (short > 0n) {
        const cash = o.collateral + cross;
        const available = isolatedDraw(ctx, o, cash, reserved, false);
        const move = short < available ? short : available > 0n ? available : 0n;
        // What it took beyond the cash came out of the reservation; the rest is left for its opened lots.
        if (move > (cash > 0n ? cash : 0n)) reserved -= move - (cash > 0n ? cash : 0n);
        p.margin += move;
        cross -= move;
      }
    }
    if (t.closedLots > 0) {
      const fullyClosed = t.closedLots === Math.abs(t.before);
      let release = fullyClosed || p.margin <= 0n ? (fullyClosed ? p.margin : 0n) : (p.margin * BigInt(t.closedLots)) / BigInt(Math.abs(t.before));
      // A liquidation's fills and ADL trades release nothing before the close: the rest is closed
      // at the bankruptcy price, beyond the mark, and the margin pays for all of it. Measured at
      // the mark (below), a tiered market's smaller rest needed less than its share, the first
      // ADL trade returned the difference to the cross account, and the last closed the rest
      // below zero for the fund to pay (test/ledger/isolated-adl-keeps-margin).
      if (!fullyClosed && (liquidation || orderId === 0)) release = 0n;
      if (!fullyClosed && release > 0n) {
        // What the rest of the position needs stays: its loss at the mark and its maintenance
        // margin. Else a partial close of a position under water (a partial liquidation) hands
        // the cross account margin the rest then lacks, and the fund pays for its bankruptcy.
        const spare = p.margin + upnlOf(m, p) - maintenanceMargin(m.spec, notionalAtMark(m, p));
        if (release > spare) release = spare > 0n ? spare : 0n;
      }
      p.margin -= release;
      if (release < 0n) {
        // A closed isolated position owes more than its margin (zeroed above): the fund, then the winners, pay it.
        if (later !== undefined) later.isolated += -release;
        else payShortfall(ctx, o.owner, m, side, -release, time);
      } else {
        cross += release;
      }
    }
    if (t.openedLots > 0) {
      // Its initial margin, and what the opened lots are under water at the mark (bought above it, sold below).
      // A sell's margin is of the lots valued at the mark: its hold valued them at
      // max(limit, mark), and a bid above both may fill it — margin of the fill's notional took
      // the cross account's collateral beyond what was held and left it below maintenance by its
      // owner's own order; and a short sold below the mark is worth the mark, where its
      // maintenance margin is measured — margin of the fill's notional opened it below
      // maintenance, liquidated at once for the fund to pay. (A buy fills at or below the limit
      // its hold used; one below the mark opens with that much profit.)
      const valued = side < 0 && m.prices.mark > 0 ? notional(m.scale, m.prices.mark, t.openedLots) : t.openedNotional;
      const wanted = initialMargin(m.spec, valued, fractionOf(o, m)) + openLossOf(m, side, t.openedNotional, t.openedLots);
      const cash = o.collateral + cross;
      // Not at the cost of the cross account's maintenance margin, beyond what keeps the
      // position itself at its own: the hold reserved the margin at the mark of the order's
      // admission, and the mark may cross its band while the order rests (the index still),
      // so an ask fills below the mark and wants its open loss and the margin of the higher
      // valuation besides. Taken whole, it left the cross positions below maintenance by the
      // owner's own order, liquidated at once for the fund to pay, while the position stood on
      // far more than its maintenance margin (test/ledger/isolated-fill-keeps-cross).
      // Beyond the cash, what its hold reserved, out of the cross equity above that maintenance
      // margin, when the owner's own fills have spent the cash (`isolatedDraw`).
      // And what keeps the position itself at its own maintenance margin, out of the cash or,
      // up to the reservation, out of the cross equity down to zero (not only above the cross
      // maintenance margin): with the mark moved across its band, the equity above it fell short
      // of the open loss, and the fund paid the rest (test/ledger/isolated-draw-attacks).
      const room = isolatedDraw(ctx, o, cash, reserved, true);
      const reach = isolatedDraw(ctx, o, cash, reserved, false);
      const floor = maintenanceMargin(m.spec, notionalAtMark(m, p)) - upnlOf(m, p) - p.margin;
      const own = floor < reach ? floor : reach;
      const least = own > room ? own : room;
      const move = wanted < least ? wanted : least > 0n ? least : 0n;
      p.margin += move;
      cross -= move;
    }
  }
  if (cross !== 0n) credit(ctx.emit, o, cross, 'fill', time);
  if (originatorFee > 0n && h !== undefined) credit(ctx.emit, ctx.owners[h.originator], originatorFee, 'originatorFee', time);
  ctx.emit({
    type: 'fill',
    owner: ownerId,
    market,
    orderId,
    side,
    price,
    quantity,
    notional: n,
    fee,
    realizedPnl: t.realizedPnl,
    realizedFunding: t.realizedFunding,
    realizedExposure: abs(t.closedBasis),
    realizedPoints: n,
    maker,
    liquidation,
    time,
  });
  if (p.quantity === 0) {
    o.positions.delete(market);
    m.holders.delete(ownerId);
  }
  // The position and the open lots moved: the side holds keep what the orders may still need.
  trimSideHolds(o, m);
  emitPosition(ctx.emit, ownerId, p);
  // With the liquidation's order in flight here, its end covers what is left; one still waiting
  // for this owner's orders to end has no order that would (a fill of one of them is this).
  if (!o.liquidating.has(market) || o.cancelling.has(market)) {
    if (later !== undefined) later.cross = true;
    else coverCrossShortfall(ctx, o, m, side, time);
  }
  if (h !== undefined && h.remaining === 0 && h.liquidation) finishLiquidation(ctx, o, market, h.side, time);
}

/**
 * What an isolated side of `o`'s own order may take out of the cross account toward its margin
 * (or its fees, or the loss its close leaves beyond the position's equity), with `cash` the
 * collateral as this fill has left it so far: the cash, and, up to `reserved` (what the fill
 * freed of its owner's holds: the cash its admission counted beyond every hold), the cross
 * equity, even where the owner's own fills have spent the cash since — down to zero (its fees,
 * its close; the opening takes that much for what keeps the position at its own maintenance
 * margin), or, for an opening's margin (`keep`), only above the cross positions' maintenance
 * margin (`Σ cross MM − cross upnl`), the cash too. The collateral then goes below zero, carried
 * by the cross positions' profit, as a cross fill's loss may take it. The cross orders admitted
 * meanwhile left that equity there: the headroom they were admitted on counted the isolated
 * hold. Before, only the cash counted: a cross long closed at a loss at the mark spent the cash
 * an isolated bid held, the bid filled with no margin posted, and the fund paid the loss its
 * open loss had been held for while the cross account kept its profit
 * (test/ledger/isolated-hold-loss); then only the equity above the cross maintenance margin, and
 * with the mark moved across its band that fell short of the open loss, the fund paying the rest
 * (test/ledger/isolated-draw-attacks).
 */
function isolatedDraw(ctx: SettlementContext, o: OwnerState, cash: bigint, reserved: bigint, keep: boolean): bigint {
  const positive = cash > 0n ? cash : 0n;
  if (!keep && reserved <= positive) return positive;
  const e = exposureOf(o, ctx.markets, ctx.scratch);
  const equity = cash + e.crossUpnl;
  const surplus = equity - e.crossMM;
  const base = keep ? (cash < surplus ? cash : surplus) : positive;
  const limit = keep ? surplus : equity;
  const beyond = reserved < limit ? reserved : limit;
  return beyond > base ? beyond : base;
}
