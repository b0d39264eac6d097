/**
 * @module ledger/ledger
 *
 * The perpetuals ledger: one deterministic state machine for collateral, positions, margin,
 * pre-trade holds, fees, prices, funding, liquidation, the insurance fund and ADL.
 * Commands are methods; each takes its time (ms) as an argument and returns a `LedgerCode`
 * (or a value); what happened is told to the listener as `LedgerEvent`s (see events.ts).
 *
 * Pipeline: `admitOrder` (R1, before the market thread) reserves a hold; the book's events come
 * back as `settleFill` and `releaseOrder` (R2). `checkLiquidations` returns orders the application
 * sends to the books (after `admitOrder(..., { liquidation: true })`).
 *
 * Invariants (checked by `validateInternalState`):
 *  - Σcollateral + Σisolated margin − Σbasis + insuranceFund + feesCollected
 *      = deposits + faucet − withdrawals, to the unit;
 *  - Σ quantity = 0 per market; `holders` lists exactly the owners with a position;
 *  - hold totals and open lots equal the sum of the holds; holds are ≥ 0;
 *  - an owner without cross positions and not being liquidated has collateral ≥ 0.
 * Money rules: every move names its source (a `balance` reason, an `insurance` reason); no fee
 * is charged beyond what its payer can pay, so the insurance fund covers trading losses only
 * (`shortfall` events), never a fee; `checkConservation` is the law above, exactly.
 * May import: types/ids, config/, engine/types, ledger/, numeric/state-hash.
 */
import { RATE_ONE, type MarketSpec } from '../config/market.ts';
import type { Side } from '../engine/types.ts';
import { AccountRegistry, isSubaccountIndex, normalizeAddress, type OwnerIdentity } from './accounts.ts';
import { LedgerCode } from './codes.ts';
import type { BalanceReason, InsuranceReason, LedgerListener, LiquidationOrder } from './events.ts';
import { DEFAULT_LIQUIDATION_FEE, tradingFee } from './fees.ts';
import { fundingRate, newFunding, nextBoundary, type FundingRecord } from './funding.ts';
import { bankruptcyPrice, liquidationLimit, rankForDeleveraging, type DeleverageCandidate } from './liquidation.ts';
import { fractionInBounds, initialMargin, maintenanceMargin } from './margin.ts';
import { markOf, newPrices, samplePremium, type MarketPrices } from './mark-price.ts';
import { applyTrade, newTradeOutcome, type Position } from './position.ts';
import { stateHashOf } from '../numeric/state-hash.ts';
import type { LedgerSnapshot } from './snapshot.ts';
import { newOwner, type Hold, type MarketState, type OwnerState } from './state.ts';
import { crossEquity, exposureOf, fractionOf, newExposure, notionalAtMark, orderHeadroom, statsOf, upnlOf, withdrawable, type AccountStats, type Exposure } from './stats.ts';
import { abs, ceilDiv, floorDiv, notional, notionalScale, owed, ticksForValue, valueAt } from './units.ts';
import { NO_ORDER, type MarketIndex, type OrderId } from '../types/ids.ts';

export interface LedgerOptions {
  /** Whether `faucet` credits (testnet). Default false. */
  faucet?: boolean;
  /** Largest single faucet credit, collateral units. Default 10,000 USD. */
  faucetLimit?: bigint;
  /** Liquidation fee, RATE_SCALE fraction of the liquidated notional. Default 0.5 %. */
  liquidationFee?: bigint;
}

/** Where the money is (`moneyReport`): collateral units; `imbalance` is 0 when money is conserved. */
export interface MoneyReport {
  deposited: bigint;
  fauceted: bigint;
  withdrawn: bigint;
  collateral: bigint;
  isolatedMargin: bigint;
  /** Σ basis of open positions (the cash paid into them, signed). */
  openBasis: bigint;
  /** Negative = a deficit: shortfalls it covered beyond what it held (each one an `insurance` event with reason `shortfall`). */
  insuranceFund: bigint;
  feesCollected: bigint;
  /** held − (deposited + fauceted − withdrawn). */
  imbalance: bigint;
}

export interface AdmitExtras {
  /** Owner id paid the originator fee (0 or absent = none). */
  originator?: number;
  /** Fraction of notional, RATE_SCALE (the order's `originatorFee`). */
  originatorFee?: bigint;
  /** This order is one of `checkLiquidations`' orders. */
  liquidation?: boolean;
}

const NO_LISTENER: LedgerListener = () => {};

/**
 * What filling `lots` at `price` loses at once against the mark (0 when the mark is unknown):
 * a buy above it, a sell below it. A fill is never worse than its order's limit, so an order
 * that holds this cannot lose more than its owner has. Without it an order priced far through
 * the mark, filled by an accomplice's order there, bankrupts its owner on purpose: the insurance
 * fund and the winners' profit pay the loss, and the accomplice keeps it as profit.
 * Measured with the ledger's own valuations (the fill's notional rounds down, a position's value
 * toward −∞), so it is exactly the uPnL the fill opens with, or the PnL it realises beyond the mark.
 */
function openLoss(m: MarketState, side: Side, price: number, lots: number): bigint {
  return openLossOf(m, side, notional(m.scale, price, lots), lots);
}

/** The same for `lots` traded for `amount` (a fill's notional, or its opening part). */
function openLossOf(m: MarketState, side: Side, amount: bigint, lots: number): bigint {
  const mark = m.prices.mark;
  if (mark <= 0 || lots === 0) return 0n;
  const loss = side > 0 ? amount - valueAt(m.scale, mark, lots) : -valueAt(m.scale, mark, -lots) - amount;
  return loss > 0n ? loss : 0n;
}

export class Ledger {
  readonly registry = new AccountRegistry();
  private readonly owners: OwnerState[] = [newOwner(0, 0)];
  private readonly markets: MarketState[];
  private readonly holds = new Map<number, Hold>();
  private readonly emit: LedgerListener;
  private readonly faucetEnabled: boolean;
  private readonly faucetLimit: bigint;
  private readonly liquidationFee: bigint;
  private insurance = 0n;
  private fees = 0n;
  private deposited = 0n;
  private withdrawn = 0n;
  private fauceted = 0n;
  private readonly scratch: Exposure = newExposure();
  private readonly trade = newTradeOutcome();

  constructor(markets: readonly MarketSpec[], options: LedgerOptions = {}, listener: LedgerListener = NO_LISTENER) {
    this.markets = markets.map((spec, i) => {
      if (spec.index !== i) throw new Error(`ledger: market ${spec.symbol} has index ${spec.index}, expected ${i}`);
      return { spec, scale: notionalScale(spec), prices: newPrices(), funding: newFunding(), holders: new Set<number>() };
    });
    this.emit = listener;
    this.faucetEnabled = options.faucet ?? false;
    this.faucetLimit = options.faucetLimit ?? 10_000_000_000n;
    this.liquidationFee = options.liquidationFee ?? DEFAULT_LIQUIDATION_FEE;
  }

  // ── identity ────────────────────────────────────────────────────────────────────────────

  /** Interns (address, subaccountIndex) and returns its identity, or a code for bad input. */
  register(address: string, subaccountIndex: number): OwnerIdentity | LedgerCode {
    const normal = normalizeAddress(address);
    if (normal === undefined) return LedgerCode.InvalidAddress;
    if (!isSubaccountIndex(subaccountIndex)) return LedgerCode.InvalidSubaccount;
    const identity = this.registry.intern(normal, subaccountIndex);
    if (identity.owner === this.owners.length) this.owners.push(newOwner(identity.owner, identity.account));
    return identity;
  }

  /** The owner id of an existing (address, subaccountIndex), without creating it. */
  findOwner(address: string, subaccountIndex: number): number | undefined {
    return this.registry.findOwner(address, subaccountIndex);
  }

  identity(owner: number): OwnerIdentity | undefined {
    return this.registry.identity(owner);
  }

  // ── money in and out ────────────────────────────────────────────────────────────────────

  /** Operator credit (a bridge deposit). */
  deposit(address: string, subaccountIndex: number, amount: bigint, time: number): LedgerCode {
    if (amount <= 0n) return LedgerCode.InvalidAmount;
    const id = this.register(address, subaccountIndex);
    if (typeof id === 'number') return id;
    this.deposited += amount;
    this.credit(this.owners[id.owner], amount, 'deposit', time);
    return LedgerCode.Ok;
  }

  /** Testnet credit, at most `faucetLimit` per call. */
  faucet(address: string, subaccountIndex: number, amount: bigint, time: number): LedgerCode {
    if (!this.faucetEnabled) return LedgerCode.FaucetDisabled;
    if (amount <= 0n || amount > this.faucetLimit) return LedgerCode.InvalidAmount;
    const id = this.register(address, subaccountIndex);
    if (typeof id === 'number') return id;
    this.fauceted += amount;
    this.credit(this.owners[id.owner], amount, 'faucet', time);
    return LedgerCode.Ok;
  }

  /** Operator credit to the insurance fund (counts as a deposit). */
  fundInsurance(amount: bigint, time: number): LedgerCode {
    if (amount <= 0n) return LedgerCode.InvalidAmount;
    this.deposited += amount;
    this.moveInsurance(amount, 'deposit', 0, time);
    return LedgerCode.Ok;
  }

  /** Operator debit (a bridge withdrawal): at most `freeCollateral`. */
  withdraw(address: string, subaccountIndex: number, amount: bigint, time: number): LedgerCode {
    const o = this.ownerByAddress(address, subaccountIndex);
    if (o === undefined) return LedgerCode.AccountNotFound;
    if (amount <= 0n) return LedgerCode.InvalidAmount;
    if (amount > withdrawable(o, exposureOf(o, this.markets, this.scratch))) return LedgerCode.InsufficientBalance;
    this.withdrawn += amount;
    this.credit(o, -amount, 'withdraw', time);
    return LedgerCode.Ok;
  }

  /** Between subaccounts or users; positive amounts only, at most the sender's `freeCollateral`. */
  transfer(fromAddress: string, fromSubaccount: number, toAddress: string, toSubaccount: number, amount: bigint, time: number): LedgerCode {
    const from = this.ownerByAddress(fromAddress, fromSubaccount);
    if (from === undefined) return LedgerCode.AccountNotFound;
    if (amount <= 0n) return LedgerCode.InvalidAmount;
    const target = normalizeAddress(toAddress);
    if (target === undefined) return LedgerCode.InvalidAddress;
    if (!isSubaccountIndex(toSubaccount)) return LedgerCode.InvalidSubaccount;
    if (this.registry.findOwner(target, toSubaccount) === from.owner) return LedgerCode.SameAccount;
    if (amount > withdrawable(from, exposureOf(from, this.markets, this.scratch))) return LedgerCode.InsufficientBalance;
    const to = this.register(target, toSubaccount) as OwnerIdentity;
    this.credit(from, -amount, 'transfer', time);
    this.credit(this.owners[to.owner], amount, 'transfer', time);
    this.emit({ type: 'transfer', from: from.owner, to: to.owner, amount, time });
    return LedgerCode.Ok;
  }

  // ── margin settings ─────────────────────────────────────────────────────────────────────

  /**
   * Sets cross/isolated and the desired margin fraction (1/leverage) of an owner in a market.
   * With a position open: cross → isolated moves max(IM, IM − upnl) from collateral into the
   * position's margin; isolated → cross returns the margin; a new isolated fraction tops the
   * margin up to, or releases it down to, IM − min(upnl, 0). Refused when the result would
   * leave the cross account short of its initial margin, and a switch between cross and
   * isolated while the owner has orders open in the market: each was admitted under the mode it
   * entered with (an isolated order holds cash, a cross one may lean on unrealised profit), and a
   * cross order filled as isolated would post less margin than its hold promised.
   */
  setMargin(address: string, subaccountIndex: number, market: MarketIndex, isolated: boolean, fraction: bigint, time: number): LedgerCode {
    const o = this.ownerByAddress(address, subaccountIndex);
    if (o === undefined) return LedgerCode.AccountNotFound;
    const m = this.markets[market];
    if (m === undefined) return LedgerCode.MarketNotFound;
    if (!fractionInBounds(m.spec, fraction)) return LedgerCode.MarginOutOfBounds;
    if (o.liquidating.has(market)) return LedgerCode.InLiquidation;
    const p = o.positions.get(market);
    const before = o.settings.get(market);
    if ((p?.isolated ?? before?.isolated ?? false) !== isolated && o.openLots.has(market)) return LedgerCode.OrdersOpenInMarket;
    if (p !== undefined) {
      const e = exposureOf(o, this.markets, this.scratch);
      const notionalNow = notionalAtMark(m, p);
      const upnl = upnlOf(m, p);
      const needed = initialMargin(m.spec, notionalNow, fraction) - (upnl < 0n ? upnl : 0n);
      // Headroom of the cross account without this position, then with the new arrangement.
      let headroom = orderHeadroom(o, e);
      if (!p.isolated) headroom -= upnl - initialMargin(m.spec, notionalNow, fractionOf(o, m));
      let move = 0n; // collateral → position margin
      if (isolated) {
        move = needed - (p.isolated ? p.margin : 0n);
        if (p.isolated && move < 0n && -move > p.margin) move = -p.margin;
        headroom -= move;
        if (move > 0n && move > o.collateral) return LedgerCode.InsufficientMargin;
      } else {
        if (p.isolated) move = -p.margin;
        headroom += (p.isolated ? p.margin : 0n) + upnl - initialMargin(m.spec, notionalNow, fraction);
      }
      // Refuse what makes the cross account shorter of initial margin than it already is.
      if (headroom < 0n && (isolated ? move > 0n : headroom < orderHeadroom(o, e))) return LedgerCode.InsufficientMargin;
      p.isolated = isolated;
      p.margin += move;
      p.updatedAt = time;
      if (move !== 0n) this.credit(o, -move, 'margin', time);
      this.emitPosition(o.owner, p);
    }
    if (before === undefined || before.isolated !== isolated || before.fraction !== fraction) o.settings.set(market, { isolated, fraction });
    this.emit({ type: 'margin', owner: o.owner, market, isolated, fraction, time });
    return LedgerCode.Ok;
  }

  // ── prices and funding ──────────────────────────────────────────────────────────────────

  /** Oracle update. */
  setIndexPrice(market: MarketIndex, ticks: number, time: number): LedgerCode {
    const m = this.markets[market];
    if (m === undefined) return LedgerCode.MarketNotFound;
    if (!Number.isSafeInteger(ticks) || ticks <= 0) return LedgerCode.InvalidAmount;
    m.prices.index = ticks;
    m.prices.mark = markOf(m.prices);
    this.settleFundingIfDue(m, time);
    return LedgerCode.Ok;
  }

  /**
   * Samples the premium from the book's best bid and ask (0 = side empty), updates the mark,
   * and settles funding when `time` has reached the interval's boundary.
   */
  sampleFunding(market: MarketIndex, bestBid: number, bestAsk: number, time: number): LedgerCode {
    const m = this.markets[market];
    if (m === undefined) return LedgerCode.MarketNotFound;
    this.settleFundingIfDue(m, time);
    const sample = samplePremium(m.prices, bestBid, bestAsk);
    if (m.funding.nextAt === 0) m.funding.nextAt = nextBoundary(m.spec, time);
    m.funding.premiumSum += sample;
    m.funding.samples += 1;
    return LedgerCode.Ok;
  }

  private settleFundingIfDue(m: MarketState, time: number): void {
    const f = m.funding;
    if (f.nextAt === 0 || time < f.nextAt) return;
    const rate = fundingRate(m.spec, f.premiumSum, f.samples);
    const at = f.nextAt;
    f.premiumSum = 0n;
    f.samples = 0;
    f.nextAt = nextBoundary(m.spec, time);
    f.history.push({ time: at, rate });
    this.emit({ type: 'fundingRate', market: m.spec.index, rate, time: at });
    if (rate === 0n) return;
    const price = m.prices.index > 0 ? m.prices.index : m.prices.mark;
    // Payers pay rounded up, receivers get rounded down; the exact sums are equal (positions
    // net to zero), so Σ paid − Σ received ≥ 0 is the dust that goes to the fund.
    let net = 0n;
    for (const ownerId of m.holders) {
      const o = this.owners[ownerId];
      const p = o.positions.get(m.spec.index) as Position;
      const due = notional(m.scale, price, Math.abs(p.quantity)) * (rate < 0n ? -rate : rate);
      const amount = p.quantity > 0 === rate > 0n ? -ceilDiv(due, RATE_ONE) : due / RATE_ONE;
      net += amount;
      p.funding += amount;
      p.updatedAt = time;
      if (p.isolated) p.margin += amount;
      else this.credit(o, amount, 'funding', time);
      this.emit({ type: 'fundingPayment', owner: ownerId, market: m.spec.index, amount, rate, time });
      this.emitPosition(ownerId, p);
    }
    this.moveInsurance(-net, 'fundingDust', 0, time);
  }

  // ── pre-trade risk (R1) ─────────────────────────────────────────────────────────────────

  /**
   * Admits an order if the owner's free collateral covers its hold: the initial margin by
   * which the worst-case position grows (all open orders on this side filled, this one too)
   * plus the taker fee and the originator fee on its notional. Buys are valued at their limit,
   * sells at max(limit, mark). In an isolated market the hold must also fit in the collateral
   * not already held (the margin its fill moves is cash, not unrealised profit). A reduce-only order holds its fees on the lots it can close
   * (min(quantity, |position|)), checked against the headroom plus what closing those lots
   * frees (their initial margin; an isolated position's equity): it opens nothing, but it pays
   * what it charges. Liquidation orders hold nothing.
   */
  admitOrder(orderId: OrderId, owner: number, market: MarketIndex, side: Side, price: number, quantity: number, reduceOnly: boolean, time: number, extras?: AdmitExtras): LedgerCode {
    const o = this.owners[owner];
    if (o === undefined || owner === 0) return LedgerCode.AccountNotFound;
    const m = this.markets[market];
    if (m === undefined) return LedgerCode.MarketNotFound;
    if (!Number.isSafeInteger(price) || price <= 0 || !Number.isSafeInteger(quantity) || quantity <= 0) return LedgerCode.InvalidOrder;
    if (this.holds.has(orderId)) return LedgerCode.OrderExists;
    const liquidation = extras?.liquidation === true;
    if (!liquidation && o.liquidating.size > 0) return LedgerCode.InLiquidation;
    let amount = 0n;
    let open = o.openLots.get(market);
    const counts = !reduceOnly && !liquidation;
    if (counts) {
      const q = o.positions.get(market)?.quantity ?? 0;
      const pending = open === undefined ? 0 : side > 0 ? open.buy : open.sell;
      const exposed = side > 0 ? q : -q;
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
      if (amount > orderHeadroom(o, exposureOf(o, this.markets, this.scratch))) return LedgerCode.InsufficientMargin;
      // In an isolated market the fill moves its margin out of the collateral: the hold must be
      // cash not already held, not the unrealised profit the headroom counts. Else the fill posts
      // what cash there is, the position opens below maintenance, and its losses beyond that
      // margin fall on the fund while the cross account keeps its profit.
      if ((o.positions.get(market)?.isolated ?? o.settings.get(market)?.isolated ?? false) && amount > o.collateral - o.holdTotal) return LedgerCode.InsufficientMargin;
      if (open === undefined) o.openLots.set(market, (open = { buy: 0, sell: 0 }));
      if (side > 0) open.buy += quantity;
      else open.sell += quantity;
    } else if (!liquidation) {
      const p = o.positions.get(market);
      const q = p?.quantity ?? 0;
      // The book refuses what does not reduce; the fees are held on what can close.
      const lots = (side > 0 ? q < 0 : q > 0) ? Math.min(quantity, Math.abs(q)) : 0;
      const at = side > 0 ? price : Math.max(price, m.prices.mark);
      amount =
        tradingFee(notional(m.scale, at, lots), m.spec.takerFee > 0n ? m.spec.takerFee : 0n) +
        owed(notional(m.scale, at, lots), extras?.originatorFee ?? 0n) +
        openLoss(m, side, price, lots);
      if (amount > 0n) {
        const e = exposureOf(o, this.markets, this.scratch);
        let freed = 0n;
        if (p !== undefined && p.isolated) freed = p.margin + upnlOf(m, p);
        else if (p !== undefined) {
          const fraction = fractionOf(o, m);
          const size = Math.abs(q);
          freed = initialMargin(m.spec, notional(m.scale, m.prices.mark, size), fraction) - initialMargin(m.spec, notional(m.scale, m.prices.mark, size - lots), fraction);
        }
        if (amount > orderHeadroom(o, e) + (freed > 0n ? freed : 0n)) return LedgerCode.InsufficientMargin;
      }
    }
    this.holds.set(orderId, {
      orderId,
      owner,
      market,
      side,
      remaining: quantity,
      amount,
      reduceOnly: !counts,
      liquidation,
      originator: extras?.originator ?? 0,
      originatorFee: extras?.originatorFee ?? 0n,
    });
    o.holdTotal += amount;
    return LedgerCode.Ok;
  }

  /** The order left the book (cancelled, expired, rejected, IOC remainder): its hold is released. */
  releaseOrder(orderId: OrderId, time: number): LedgerCode {
    const h = this.holds.get(orderId);
    if (h === undefined) return LedgerCode.Ok;
    this.dropHold(h);
    if (h.liquidation) this.finishLiquidation(this.owners[h.owner], h.market, h.side, time);
    return LedgerCode.Ok;
  }

  private dropHold(h: Hold): void {
    const o = this.owners[h.owner];
    o.holdTotal -= h.amount;
    if (!h.reduceOnly) this.reduceOpenLots(o, h, h.remaining);
    this.holds.delete(h.orderId);
  }

  private reduceOpenLots(o: OwnerState, h: Hold, lots: number): void {
    const open = o.openLots.get(h.market) as { buy: number; sell: number };
    if (h.side > 0) open.buy -= lots;
    else open.sell -= lots;
    if (open.buy === 0 && open.sell === 0) o.openLots.delete(h.market);
  }

  // ── settlement (R2) ─────────────────────────────────────────────────────────────────────

  /**
   * Settles one fill of the book: both sides' positions, realized PnL, fees (maker may be a
   * rebate), originator and liquidation fees, isolated margin, holds. Emits per side a `fill`,
   * a `position` and a `balance` event. Unknown order ids (no hold) are settled without one.
   */
  settleFill(makerOrderId: OrderId, takerOrderId: OrderId, makerOwner: number, takerOwner: number, takerSide: Side, market: MarketIndex, price: number, quantity: number, time: number): LedgerCode {
    const m = this.markets[market];
    if (m === undefined) return LedgerCode.MarketNotFound;
    if (this.owners[makerOwner] === undefined || this.owners[takerOwner] === undefined || makerOwner === 0 || takerOwner === 0) return LedgerCode.AccountNotFound;
    if (!Number.isSafeInteger(price) || price <= 0 || !Number.isSafeInteger(quantity) || quantity <= 0) return LedgerCode.InvalidOrder;
    m.prices.last = price;
    m.prices.mark = markOf(m.prices);
    const n = notional(m.scale, price, quantity);
    this.settleSide(m, makerOwner, makerOrderId, (-takerSide) as Side, price, quantity, n, m.spec.makerFee, true, time);
    this.settleSide(m, takerOwner, takerOrderId, takerSide, price, quantity, n, m.spec.takerFee, false, time);
    return LedgerCode.Ok;
  }

  private settleSide(m: MarketState, ownerId: number, orderId: OrderId, side: Side, price: number, quantity: number, n: bigint, feeRate: bigint, maker: boolean, time: number): void {
    const o = this.owners[ownerId];
    const market = m.spec.index;
    const h = orderId === 0 ? undefined : this.holds.get(orderId);
    let originatorFee = 0n;
    let liquidation = false;
    if (h !== undefined) {
      const lots = quantity < h.remaining ? quantity : h.remaining;
      const release = lots === h.remaining ? h.amount : (h.amount * BigInt(lots)) / BigInt(h.remaining);
      h.amount -= release;
      o.holdTotal -= release;
      if (!h.reduceOnly) this.reduceOpenLots(o, h, lots);
      h.remaining -= lots;
      if (h.originator !== 0) originatorFee = owed(n, h.originatorFee);
      liquidation = h.liquidation;
      if (h.remaining === 0) this.holds.delete(orderId);
    }
    let p = o.positions.get(market);
    if (p === undefined) {
      const setting = o.settings.get(market);
      p = { market, quantity: 0, basis: 0n, fees: 0n, funding: 0n, margin: 0n, isolated: setting?.isolated ?? false, updatedAt: time };
      o.positions.set(market, p);
      m.holders.add(ownerId);
    }
    const t = applyTrade(p, side * quantity, n, this.trade);
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
      // An isolated position's own order may draw on the cross collateral (see below); a liquidation may not.
      let payable = t.realizedPnl + (p.isolated ? p.margin + upnlOf(m, p) + (!liquidation && o.collateral > 0n ? o.collateral : 0n) : crossEquity(o, exposureOf(o, this.markets, this.scratch)));
      if (fee > payable) fee = payable > 0n ? payable : 0n;
      payable -= fee;
      if (originatorFee > payable) originatorFee = payable > 0n ? payable : 0n;
    }
    this.fees += fee;
    p.fees += fee + originatorFee;
    p.updatedAt = time;
    let cross = 0n; // change of cross collateral
    const pnlLessFees = t.realizedPnl - fee - originatorFee;
    if (p.isolated) p.margin += pnlLessFees;
    else cross += pnlLessFees;
    if (liquidation) {
      // The liquidation fee never takes more than the equity left in what is being liquidated.
      const equity = p.isolated ? p.margin + upnlOf(m, p) : crossEquity(o, exposureOf(o, this.markets, this.scratch)) + cross;
      let lf = owed(n, this.liquidationFee);
      if (lf > equity) lf = equity > 0n ? equity : 0n;
      if (lf > 0n) {
        if (p.isolated) p.margin -= lf;
        else cross -= lf;
        this.moveInsurance(lf, 'liquidationFee', ownerId, time);
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
          const available = o.collateral + cross;
          const move = short < available ? short : available > 0n ? available : 0n;
          p.margin += move;
          cross -= move;
        }
      }
      if (t.closedLots > 0) {
        const fullyClosed = t.closedLots === Math.abs(t.before);
        let release = fullyClosed || p.margin <= 0n ? (fullyClosed ? p.margin : 0n) : (p.margin * BigInt(t.closedLots)) / BigInt(Math.abs(t.before));
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
          this.payShortfall(o.owner, m, side, -release, time);
        } else {
          cross += release;
        }
      }
      if (t.openedLots > 0) {
        // Its initial margin, and what the opened lots are under water at the mark (bought above it, sold below).
        const wanted = initialMargin(m.spec, t.openedNotional, fractionOf(o, m)) + openLossOf(m, side, t.openedNotional, t.openedLots);
        const available = o.collateral + cross;
        const move = wanted < available ? wanted : available > 0n ? available : 0n;
        p.margin += move;
        cross -= move;
      }
    }
    if (cross !== 0n) this.credit(o, cross, 'fill', time);
    if (originatorFee > 0n && h !== undefined) this.credit(this.owners[h.originator], originatorFee, 'originatorFee', time);
    this.emit({
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
    this.emitPosition(ownerId, p);
    if (!o.liquidating.has(market)) this.coverCrossShortfall(o, m, side, time);
    if (h !== undefined && h.remaining === 0 && h.liquidation) this.finishLiquidation(o, market, h.side, time);
  }

  // ── liquidation, insurance fund, ADL ────────────────────────────────────────────────────

  /**
   * Finds cross accounts below maintenance (all their cross positions are liquidated) and
   * isolated positions below maintenance, and returns one reduce-only IOC order per position
   * at its liquidation limit (see liquidation.ts). The application sends each to its book after
   * `admitOrder(..., { liquidation: true })`; `releaseOrder` of it (or its complete fill)
   * finishes the liquidation: an unfilled rest is deleveraged, a shortfall covered.
   * Positions with a liquidation order in flight are skipped.
   */
  checkLiquidations(time: number): LiquidationOrder[] {
    const orders: LiquidationOrder[] = [];
    for (let id = 1; id < this.owners.length; id++) {
      const o = this.owners[id];
      if (o.positions.size === 0) continue;
      const e = exposureOf(o, this.markets, this.scratch);
      const equity = crossEquity(o, e);
      for (const p of o.positions.values()) {
        if (o.liquidating.has(p.market)) continue;
        const m = this.markets[p.market];
        const share = this.dueShare(p, e, equity);
        if (share === null) continue;
        const bankrupt = bankruptcyPrice(m.scale, m.prices.mark, p.quantity, share);
        const order: LiquidationOrder = {
          owner: id,
          account: o.account,
          market: p.market,
          side: p.quantity > 0 ? -1 : 1,
          price: liquidationLimit(m.scale, bankrupt, p.quantity, this.insurance),
          quantity: Math.abs(p.quantity),
          bankruptcyPrice: bankrupt,
        };
        o.liquidating.add(p.market);
        orders.push(order);
        this.emit({ type: 'liquidation', order, time });
      }
    }
    return orders;
  }

  /**
   * The markets where `owner` is below maintenance with no liquidation order in flight: what
   * the next `checkLiquidations` would liquidate (a read, for checks and the simulator).
   */
  liquidatable(owner: number): number[] {
    const o = this.owners[owner];
    if (o === undefined || owner === 0 || o.positions.size === 0) return [];
    const e = exposureOf(o, this.markets, this.scratch);
    const equity = crossEquity(o, e);
    const due: number[] = [];
    for (const p of o.positions.values()) if (!o.liquidating.has(p.market) && this.dueShare(p, e, equity) !== null) due.push(p.market);
    return due;
  }

  /** Markets where a liquidation order of `owner` is in flight. */
  liquidatingIn(owner: number): number[] {
    return [...(this.owners[owner]?.liquidating ?? [])];
  }

  /** The equity share backing `p` when it is below maintenance (isolated: its own; cross: the account's), else null. */
  private dueShare(p: Position, e: Exposure, equity: bigint): bigint | null {
    const m = this.markets[p.market];
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
  private finishLiquidation(o: OwnerState, market: MarketIndex, side: Side, time: number): void {
    o.liquidating.delete(market);
    const m = this.markets[market];
    const p = o.positions.get(market);
    if (p !== undefined) {
      const e = exposureOf(o, this.markets, this.scratch);
      const mm = maintenanceMargin(m.spec, notionalAtMark(m, p));
      let share = p.isolated ? p.margin + upnlOf(m, p) : e.crossMM > 0n ? floorDiv(crossEquity(o, e) * mm, e.crossMM) : 0n;
      const stillDue = p.isolated ? share < mm : crossEquity(o, e) < e.crossMM;
      if (stillDue) {
        const fromFund = share < 0n ? this.fundCanPay(-share) : 0n;
        if (fromFund > 0n) {
          this.moveInsurance(-fromFund, 'shortfall', o.owner, time);
          if (p.isolated) {
            p.margin += fromFund;
            this.emitPosition(o.owner, p);
          } else this.credit(o, fromFund, 'shortfall', time);
          share += fromFund;
        }
        this.deleverage(o, m, p, bankruptcyPrice(m.scale, m.prices.mark, p.quantity, share), time);
      }
    }
    this.coverCrossShortfall(o, m, side, time);
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
  private deleverage(o: OwnerState, m: MarketState, p: Position, price: number, time: number): void {
    const healthy: DeleverageCandidate[] = [];
    const liquidating: DeleverageCandidate[] = [];
    for (const other of m.holders) {
      if (other === o.owner) continue;
      const ow = this.owners[other];
      const op = ow.positions.get(m.spec.index) as Position;
      if (op.quantity > 0 === p.quantity > 0) continue;
      const upnl = upnlOf(m, op);
      const equity = op.isolated ? op.margin + upnl : crossEquity(ow, exposureOf(ow, this.markets, this.scratch));
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
        const room = this.surplusOverMaintenance(this.owners[c.owner], m);
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
      this.emit({ type: 'adl', owner: o.owner, counterparty: c.owner, market: m.spec.index, price: at, quantity: lots, time });
      this.settleSide(m, c.owner, NO_ORDER, (-side) as Side, at, lots, n, 0n, true, time);
      this.settleSide(m, o.owner, NO_ORDER, side, at, lots, n, 0n, false, time);
    }
    if (left !== 0) throw new Error(`ledger: ADL found no counterparty for ${left} lots in market ${m.spec.index}`);
  }

  /** What `o` can lose in `m` and stay at its maintenance margin: isolated, its position's; cross, the account's. */
  private surplusOverMaintenance(o: OwnerState, m: MarketState): bigint {
    const op = o.positions.get(m.spec.index) as Position;
    if (op.isolated) return op.margin + upnlOf(m, op) - maintenanceMargin(m.spec, notionalAtMark(m, op));
    const e = exposureOf(o, this.markets, this.scratch);
    return crossEquity(o, e) - e.crossMM;
  }

  /** An owner with no cross positions left and negative collateral: paid by the fund, then the winners of `market`'s `side`. */
  private coverCrossShortfall(o: OwnerState, m: MarketState, side: Side, time: number): void {
    if (o.collateral >= 0n) return;
    for (const p of o.positions.values()) if (!p.isolated) return;
    const shortfall = -o.collateral;
    this.payShortfall(o.owner, m, side, shortfall, time);
    this.credit(o, shortfall, 'shortfall', time);
  }

  /** What the insurance fund can pay of `amount`: never more than it holds. */
  private fundCanPay(amount: bigint): bigint {
    return this.insurance <= 0n ? 0n : amount < this.insurance ? amount : this.insurance;
  }

  /**
   * Finds `amount` for a loss `owner` realised in `m` beyond its equity, by closing trades on
   * `side` (a bankrupt long sells: side −1); the caller credits it. The insurance fund pays
   * up to what it holds; the rest comes out of unrealised profit, in ADL order within each
   * group — first no more than keeps each winner above its maintenance margin, then up to all
   * of its profit: the positions on `side` in `m` (the winners opposite the loss) first, then
   * the winners of every other market (a cross account loses across markets, and its
   * liquidations end one market at a time). Only a loss larger than every unrealised profit on
   * the exchange leaves the fund below zero (visible: a `shortfall` event, the money report).
   */
  private payShortfall(owner: number, m: MarketState, side: Side, amount: bigint, time: number): void {
    const fromFund = this.fundCanPay(amount);
    this.moveInsurance(-fromFund, 'shortfall', owner, time);
    let left = this.takeFromWinners(owner, m, side, amount - fromFund, time);
    for (const other of this.markets) if (other !== m && left > 0n) left = this.takeFromWinners(owner, other, 0, left, time);
    // Nobody holds that much profit: the fund owes the rest (a deficit the operator sees).
    this.moveInsurance(-left, 'shortfall', owner, time);
  }

  /** Takes up to `left` of `owner`'s loss from the unrealised profit of `m`'s positions on `side` (0: either side); returns what is still owed. */
  private takeFromWinners(owner: number, m: MarketState, side: Side | 0, left: bigint, time: number): bigint {
    if (left === 0n) return 0n;
    const candidates: DeleverageCandidate[] = [];
    for (const other of m.holders) {
      const op = this.owners[other].positions.get(m.spec.index) as Position;
      if (other === owner || (side !== 0 && op.quantity > 0 === side < 0)) continue;
      const upnl = upnlOf(m, op);
      if (upnl <= 0n) continue;
      const ow = this.owners[other];
      const e = exposureOf(ow, this.markets, this.scratch);
      const equity = op.isolated ? op.margin + upnl : crossEquity(ow, e);
      const surplus = op.isolated ? equity - maintenanceMargin(m.spec, notionalAtMark(m, op)) : equity - e.crossMM;
      candidates.push({ owner: other, quantity: op.quantity, upnl, basis: op.basis, notional: notionalAtMark(m, op), equity: surplus });
    }
    const ranked = rankForDeleveraging(candidates);
    const taken = new Map<number, bigint>();
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
        const op = this.owners[c.owner].positions.get(m.spec.index) as Position;
        // The entry cost moves against the winner by x: its profit, and the money it holds, fall by x.
        op.basis += x;
        op.updatedAt = time;
        this.emit({ type: 'socialisedLoss', owner, counterparty: c.owner, market: m.spec.index, amount: x, time });
        this.emitPosition(c.owner, op);
      }
    }
    return left;
  }

  private moveInsurance(delta: bigint, reason: InsuranceReason, owner: number, time: number): void {
    if (delta === 0n) return;
    this.insurance += delta;
    this.emit({ type: 'insurance', delta, fund: this.insurance, reason, owner, time });
  }

  // ── reads ───────────────────────────────────────────────────────────────────────────────

  /** Signed lots of `owner` in `market` (0 when flat): what the book's reduce-only check reads. */
  position(owner: number, market: MarketIndex): number {
    return this.owners[owner]?.positions.get(market)?.quantity ?? 0;
  }

  /**
   * What the book of `market` is told with an order of `owner` (`PlaceOrder.position`): the
   * position less the net lots of the owner's fills that book executed and the ledger settled —
   * the lots ADL moved. The book adds the fills it executed, so it knows the position as it is
   * at the book, fills still on their way here included.
   */
  positionOffBook(owner: number, market: MarketIndex): number {
    return this.owners[owner]?.offBook.get(market) ?? 0;
  }

  /** A copy of the position, or undefined when flat. */
  positionOf(owner: number, market: MarketIndex): Position | undefined {
    const p = this.owners[owner]?.positions.get(market);
    return p === undefined ? undefined : { ...p };
  }

  /** Copies of the owner's positions, by market index. */
  positionsOf(owner: number): Position[] {
    const o = this.owners[owner];
    if (o === undefined || owner === 0) return [];
    return [...o.positions.values()].sort((a, b) => a.market - b.market).map((p) => ({ ...p }));
  }

  collateral(owner: number): bigint {
    return this.owners[owner]?.collateral ?? 0n;
  }

  stats(owner: number): AccountStats | undefined {
    const o = this.owners[owner];
    return o === undefined || owner === 0 ? undefined : statsOf(o, this.markets);
  }

  marginSetting(owner: number, market: MarketIndex): { isolated: boolean; fraction: bigint } {
    const o = this.owners[owner];
    const m = this.markets[market];
    return { isolated: o?.settings.get(market)?.isolated ?? false, fraction: o === undefined ? m.spec.initialMarginFraction : fractionOf(o, m) };
  }

  /** The hold still reserved for an order (0 when none). */
  holdOf(orderId: OrderId): bigint {
    return this.holds.get(orderId)?.amount ?? 0n;
  }

  prices(market: MarketIndex): Readonly<MarketPrices> {
    return this.markets[market].prices;
  }

  fundingHistory(market: MarketIndex): readonly FundingRecord[] {
    return this.markets[market].funding.history;
  }

  /** Owners 1 … ownerCount exist. */
  get ownerCount(): number {
    return this.owners.length - 1;
  }

  get insuranceFund(): bigint {
    return this.insurance;
  }

  get feesCollected(): bigint {
    return this.fees;
  }

  /** Net money that entered: deposits + faucet − withdrawals. */
  get netDeposits(): bigint {
    return this.deposited + this.fauceted - this.withdrawn;
  }

  /** Open interest in lots: the sum of long positions (equal to the sum of shorts). */
  openInterest(market: MarketIndex): number {
    let lots = 0;
    for (const id of this.markets[market].holders) {
      const q = this.owners[id].positions.get(market)?.quantity ?? 0;
      if (q > 0) lots += q;
    }
    return lots;
  }

  // ── helpers ─────────────────────────────────────────────────────────────────────────────

  private ownerByAddress(address: string, subaccountIndex: number): OwnerState | undefined {
    const id = this.registry.findOwner(address, subaccountIndex);
    return id === undefined ? undefined : this.owners[id];
  }

  private credit(o: OwnerState, delta: bigint, reason: BalanceReason, time: number): void {
    o.collateral += delta;
    this.emit({ type: 'balance', owner: o.owner, delta, collateral: o.collateral, reason, time });
  }

  private emitPosition(owner: number, p: Position): void {
    this.emit({ type: 'position', owner, market: p.market, quantity: p.quantity, basis: p.basis, fees: p.fees, funding: p.funding, margin: p.margin, isolated: p.isolated, updatedAt: p.updatedAt });
  }

  // ── state: invariants, hash, snapshot ───────────────────────────────────────────────────

  /**
   * Where every unit of money is, summed: the conservation law
   *   Σcollateral + Σisolated margin − Σbasis + insuranceFund + feesCollected = deposits + faucet − withdrawals
   * (realised PnL and funding have moved into collateral and margin; −Σbasis is the cash paid
   * into open positions). O(owners + positions), no allocation beyond the result.
   */
  moneyReport(): MoneyReport {
    let collateral = 0n;
    let isolatedMargin = 0n;
    let openBasis = 0n;
    for (let id = 1; id < this.owners.length; id++) {
      const o = this.owners[id];
      collateral += o.collateral;
      for (const p of o.positions.values()) {
        isolatedMargin += p.margin;
        openBasis += p.basis;
      }
    }
    const held = collateral + isolatedMargin - openBasis + this.insurance + this.fees;
    return {
      deposited: this.deposited,
      fauceted: this.fauceted,
      withdrawn: this.withdrawn,
      collateral,
      isolatedMargin,
      openBasis,
      insuranceFund: this.insurance,
      feesCollected: this.fees,
      imbalance: held - this.netDeposits,
    };
  }

  /**
   * Throws unless money is conserved to the unit (no tolerance): the check a simulator or a
   * test calls after every command or book event (between the two sides of one fill it does
   * not hold, so never from inside a listener).
   */
  checkConservation(): void {
    const r = this.moneyReport();
    if (r.imbalance !== 0n) {
      throw new Error(`ledger: money not conserved by ${r.imbalance}: collateral ${r.collateral} + isolated margin ${r.isolatedMargin} − basis ${r.openBasis} + insurance ${r.insuranceFund} + fees ${r.feesCollected} ≠ deposits ${r.deposited} + faucet ${r.fauceted} − withdrawals ${r.withdrawn}`);
    }
  }

  /** Throws when an invariant is broken (see the module header). */
  validateInternalState(): void {
    this.registry.validate();
    if (this.owners.length !== this.registry.ownerCount + 1) throw new Error('ledger: owners and registry differ in size');
    this.checkConservation();
    const net = new Array<number>(this.markets.length).fill(0);
    const holdTotals = new Map<number, bigint>();
    const lots = new Map<string, { buy: number; sell: number }>();
    for (const h of this.holds.values()) {
      if (h.amount < 0n || h.remaining <= 0) throw new Error(`ledger: hold of order ${h.orderId} is ${h.amount} for ${h.remaining} lots`);
      holdTotals.set(h.owner, (holdTotals.get(h.owner) ?? 0n) + h.amount);
      if (!h.reduceOnly) {
        const key = `${h.owner}/${h.market}`;
        const l = lots.get(key) ?? { buy: 0, sell: 0 };
        if (h.side > 0) l.buy += h.remaining;
        else l.sell += h.remaining;
        lots.set(key, l);
      }
    }
    for (let id = 1; id < this.owners.length; id++) {
      const o = this.owners[id];
      if (o.holdTotal !== (holdTotals.get(id) ?? 0n)) throw new Error(`ledger: owner ${id} holdTotal ${o.holdTotal} ≠ Σ holds ${holdTotals.get(id) ?? 0n}`);
      for (const [market, l] of o.openLots) {
        const want = lots.get(`${id}/${market}`);
        if (want === undefined || want.buy !== l.buy || want.sell !== l.sell) throw new Error(`ledger: owner ${id} open lots in market ${market} inconsistent`);
        lots.delete(`${id}/${market}`);
      }
      let crossPositions = 0;
      for (const [market, p] of o.positions) {
        if (p.market !== market || p.quantity === 0 || !Number.isSafeInteger(p.quantity)) throw new Error(`ledger: owner ${id} has an empty or misfiled position in ${market}`);
        if ((p.quantity > 0 && p.basis < 0n) || (p.quantity < 0 && p.basis > 0n)) throw new Error(`ledger: owner ${id} position ${market} basis sign`);
        if (!this.markets[market].holders.has(id)) throw new Error(`ledger: owner ${id} missing from holders of ${market}`);
        if (!p.isolated && p.margin !== 0n) throw new Error(`ledger: cross position of ${id} in ${market} has margin`);
        net[market] += p.quantity;
        if (!p.isolated) crossPositions++;
      }
      if (crossPositions === 0 && o.liquidating.size === 0 && o.collateral < 0n) throw new Error(`ledger: owner ${id} has collateral ${o.collateral} and no cross position`);
    }
    if (lots.size > 0) throw new Error('ledger: open lots without an owner record');
    this.markets.forEach((m, i) => {
      if (net[i] !== 0) throw new Error(`ledger: positions in market ${i} net to ${net[i]}`);
      for (const id of m.holders) if (!this.owners[id].positions.has(m.spec.index)) throw new Error(`ledger: holder ${id} of ${i} has no position`);
    });
  }

  /** The whole state as plain data (bigints kept as bigint; owners and holds in id order). */
  snapshot(): LedgerSnapshot {
    return {
      version: 1,
      registry: this.registry.entries(),
      owners: this.owners.slice(1).map((o) => ({
        collateral: o.collateral,
        holdTotal: o.holdTotal,
        positions: [...o.positions.values()].sort((a, b) => a.market - b.market).map((p) => ({ ...p })),
        settings: [...o.settings.entries()].sort((a, b) => a[0] - b[0]).map(([market, s]) => ({ market, ...s })),
        openLots: [...o.openLots.entries()].sort((a, b) => a[0] - b[0]).map(([market, l]) => ({ market, ...l })),
        liquidating: [...o.liquidating].sort((a, b) => a - b),
        offBook: [...o.offBook.entries()].sort((a, b) => a[0] - b[0]).map(([market, lots]) => ({ market, lots })),
      })),
      holds: [...this.holds.values()].sort((a, b) => a.orderId - b.orderId).map((h) => ({ ...h })),
      markets: this.markets.map((m) => ({
        prices: { ...m.prices },
        funding: { nextAt: m.funding.nextAt, premiumSum: m.funding.premiumSum, samples: m.funding.samples, history: m.funding.history.map((r) => ({ ...r })) },
        holders: [...m.holders],
      })),
      insuranceFund: this.insurance,
      feesCollected: this.fees,
      deposited: this.deposited,
      withdrawn: this.withdrawn,
      fauceted: this.fauceted,
    };
  }

  /** A ledger equal to the one `snap` was taken from (same `stateHash`). */
  static restore(markets: readonly MarketSpec[], snap: LedgerSnapshot, options: LedgerOptions = {}, listener?: LedgerListener): Ledger {
    if (snap.version !== 1 || snap.markets.length !== markets.length) throw new Error('ledger: snapshot does not match these markets');
    const l = new Ledger(markets, options, listener);
    snap.registry.forEach(([address, sub]) => l.register(address, sub));
    snap.owners.forEach((s, i) => {
      const o = l.owners[i + 1];
      o.collateral = s.collateral;
      o.holdTotal = s.holdTotal;
      for (const p of s.positions) o.positions.set(p.market, { ...p });
      for (const st of s.settings) o.settings.set(st.market, { isolated: st.isolated, fraction: st.fraction });
      for (const ol of s.openLots) o.openLots.set(ol.market, { buy: ol.buy, sell: ol.sell });
      for (const mk of s.liquidating) o.liquidating.add(mk);
      // A snapshot from before offBook: the books restored with it count no fills yet, so
      // everything of the position is off the book (engine/reduce-only-positions `restore`).
      if (s.offBook === undefined) for (const p of s.positions) o.offBook.set(p.market, p.quantity);
      else for (const ob of s.offBook) o.offBook.set(ob.market, ob.lots);
    });
    for (const h of snap.holds) l.holds.set(h.orderId, { ...h });
    snap.markets.forEach((sm, i) => {
      const m = l.markets[i];
      Object.assign(m.prices, sm.prices);
      m.funding.nextAt = sm.funding.nextAt;
      m.funding.premiumSum = sm.funding.premiumSum;
      m.funding.samples = sm.funding.samples;
      m.funding.history = sm.funding.history.map((r) => ({ ...r }));
      for (const h of sm.holders) m.holders.add(h);
    });
    l.insurance = snap.insuranceFund;
    l.fees = snap.feesCollected;
    l.deposited = snap.deposited;
    l.withdrawn = snap.withdrawn;
    l.fauceted = snap.fauceted;
    return l;
  }

  /** FNV-1a 64 of the canonical snapshot: equal states give equal hashes. */
  stateHash(): string {
    return stateHashOf(this.snapshot());
  }
}
