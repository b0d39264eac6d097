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
 * sends to the books (after `admitOrder(..., { liquidation: true })`), and the owners whose
 * orders it must cancel first: their liquidations are priced by `readyLiquidations` once those
 * orders have ended, so no fill of theirs settles after the price.
 * This class is the facade: it owns the records; the larger blocks are functions in their own
 * files, handed the records as a context each declares (holds R1, settlement R2, insolvency
 * liquidation/fund/ADL, funding-payments), moving money with moves.ts; the invariants below are
 * checked over its records by invariants.ts, and snapshot.ts reads and restores them.
 *
 * Invariants (checked by `validateInternalState`):
 *  - Σcollateral + Σisolated margin − Σbasis + insuranceFund + feesCollected
 *      = deposits + faucet − withdrawals, to the unit;
 *  - Σ quantity = 0 per market; `holders` lists exactly the owners with a position;
 *  - hold totals are the sum of the holds and the side holds, open lots that of the holds;
 *    holds are ≥ 0, a side hold only while its side has open orders;
 *  - an owner without cross positions and not being liquidated has collateral ≥ 0;
 *  - a liquidation waiting for its owner's orders to end (`cancelling`) is in `liquidating`,
 *    and the owners with one are exactly those `readyLiquidations` looks at.
 * Money rules: every move names its source (a `balance` reason, an `insurance` reason); no fee
 * is charged beyond what its payer can pay, so the insurance fund covers trading losses only
 * (`shortfall` events), never a fee; `checkConservation` is the law above, exactly.
 * May import: types/ids, config/market (types), engine/types (types), ledger/, numeric/state-hash.
 */
import type { MarketSpec } from '../config/market.ts';
import type { Side } from '../engine/types.ts';
import { AccountRegistry, isSubaccountIndex, normalizeAddress, type OwnerIdentity } from './accounts.ts';
import { LedgerCode } from './codes.ts';
import type { LedgerListener, LiquidationCancel, LiquidationOrder } from './events.ts';
import { DEFAULT_LIQUIDATION_FEE } from './fees.ts';
import { newFunding, nextBoundary, type FundingRecord } from './funding.ts';
import { settleFundingIfDue } from './funding-payments.ts';
import { admitOrder, releaseOrder, type AdmitExtras } from './holds.ts';
import { checkLiquidations, liquidatable, ordersOpenIn, readyLiquidations, unjustifiedDeficit } from './insolvency.ts';
import { fractionInBounds, initialMargin } from './margin.ts';
import { markBand, markOf, newPrices, samplePremium, type MarketPrices } from './mark-price.ts';
import { credit, emitPosition, moveInsurance, type Funds } from './moves.ts';
import { newTradeOutcome, type Position } from './position.ts';
import { newMakerShortfall, settleBookFill, settleSide, type SettlementContext } from './settlement.ts';
import { stateHashOf } from '../numeric/state-hash.ts';
import { restoreRecords, snapshotOf, type LedgerSnapshot } from './snapshot.ts';
import { newOwner, type Hold, type MarketState, type OwnerState } from './state.ts';
import { cashHeld, exposureOf, fractionOf, newExposure, notionalAtMark, orderHeadroom, statsOf, upnlOf, withdrawable, type AccountStats, type Exposure } from './stats.ts';
import { notional, notionalScale } from './units.ts';
import { checkConservation, moneyReport, netDeposits, validateLedger, type LedgerRecords, type MoneyFlows, type MoneyReport } from './invariants.ts';
import { NO_ACCOUNT, NO_OWNER, type MarketIndex, type OrderId, type OwnerIndex } from '../types/ids.ts';

export type { AdmitExtras } from './holds.ts';
export type { MoneyReport } from './invariants.ts';

export interface LedgerOptions {
  /** Whether `faucet` credits (testnet). Default false. */
  faucet?: boolean;
  /** Largest single faucet credit, collateral units. Default 10,000 USD. */
  faucetLimit?: bigint;
  /** Liquidation fee, RATE_SCALE fraction of the liquidated notional. Default 0.5 %. */
  liquidationFee?: bigint;
}

const NO_LISTENER: LedgerListener = () => {};

export class Ledger {
  readonly registry = new AccountRegistry();
  private readonly owners: OwnerState[] = [newOwner(NO_OWNER, NO_ACCOUNT)];
  private readonly markets: MarketState[];
  private readonly holds = new Map<number, Hold>();
  private readonly emit: LedgerListener;
  private readonly faucetEnabled: boolean;
  private readonly faucetLimit: bigint;
  private readonly liquidationFee: bigint;
  private readonly funds: Funds = { insurance: 0n, feesCollected: 0n };
  /** The first deficit found unjustified after a fill or a liquidation's end (insolvency.ts), or null: a finding, not part of the state. */
  private unjustifiedDeficit: string | null = null;
  private readonly flows: MoneyFlows = { deposited: 0n, fauceted: 0n, withdrawn: 0n };
  /** The records the invariants read (ledger/invariants). */
  private readonly records: LedgerRecords;
  private readonly scratch: Exposure = newExposure();
  /** What the blocks in their own files (holds, settlement, insolvency, funding payments) are handed: these records, shared. */
  private readonly ctx: SettlementContext;

  constructor(markets: readonly MarketSpec[], options: LedgerOptions = {}, listener: LedgerListener = NO_LISTENER) {
    this.markets = [];
    this.changeMarkets(markets);
    this.emit = listener;
    this.faucetEnabled = options.faucet ?? false;
    this.faucetLimit = options.faucetLimit ?? 10_000_000_000n;
    this.liquidationFee = options.liquidationFee ?? DEFAULT_LIQUIDATION_FEE;
    const ctx: SettlementContext = {
      owners: this.owners,
      markets: this.markets,
      holds: this.holds,
      scratch: this.scratch,
      trade: newTradeOutcome(),
      makerShortfall: newMakerShortfall(),
      liquidationFee: this.liquidationFee,
      funds: this.funds,
      emit: this.emit,
      deficits: new Set(),
      waiting: new Set(),
      // settleSide with this context bound; its rest array costs nothing that matters: only insolvency calls it, rarely.
      settleSide: (...sideArgs) => settleSide(ctx, ...sideArgs),
    };
    this.ctx = ctx;
    this.records = { registry: this.registry, owners: this.owners, markets: this.markets, holds: this.holds, funds: this.funds, flows: this.flows, waiting: ctx.waiting };
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
  findOwner(address: string, subaccountIndex: number): OwnerIndex | undefined {
    return this.registry.findOwner(address, subaccountIndex);
  }

  identity(owner: OwnerIndex): OwnerIdentity | undefined {
    return this.registry.identity(owner);
  }

  // ── money in and out ────────────────────────────────────────────────────────────────────

  /** Operator credit (a bridge deposit). */
  deposit(address: string, subaccountIndex: number, amount: bigint, time: number): LedgerCode {
    if (amount <= 0n) return LedgerCode.InvalidAmount;
    const id = this.register(address, subaccountIndex);
    if (typeof id === 'number') return id;
    this.flows.deposited += amount;
    credit(this.emit, this.owners[id.owner], amount, 'deposit', time);
    return LedgerCode.Ok;
  }

  /** Testnet credit, at most `faucetLimit` per call. */
  faucet(address: string, subaccountIndex: number, amount: bigint, time: number): LedgerCode {
    if (!this.faucetEnabled) return LedgerCode.FaucetDisabled;
    if (amount <= 0n || amount > this.faucetLimit) return LedgerCode.InvalidAmount;
    const id = this.register(address, subaccountIndex);
    if (typeof id === 'number') return id;
    this.flows.fauceted += amount;
    credit(this.emit, this.owners[id.owner], amount, 'faucet', time);
    return LedgerCode.Ok;
  }

  /** Operator credit to the insurance fund (counts as a deposit). */
  fundInsurance(amount: bigint, time: number): LedgerCode {
    if (amount <= 0n) return LedgerCode.InvalidAmount;
    this.flows.deposited += amount;
    moveInsurance(this.emit, this.funds, amount, 'deposit', NO_OWNER, time);
    return LedgerCode.Ok;
  }

  /** Operator debit (a bridge withdrawal): at most `freeCollateral`. */
  withdraw(address: string, subaccountIndex: number, amount: bigint, time: number): LedgerCode {
    const o = this.ownerByAddress(address, subaccountIndex);
    if (o === undefined) return LedgerCode.AccountNotFound;
    if (amount <= 0n) return LedgerCode.InvalidAmount;
    if (amount > withdrawable(o, exposureOf(o, this.markets, this.scratch))) return LedgerCode.InsufficientBalance;
    this.flows.withdrawn += amount;
    credit(this.emit, o, -amount, 'withdraw', time);
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
    credit(this.emit, from, -amount, 'transfer', time);
    credit(this.emit, this.owners[to.owner], amount, 'transfer', time);
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
   * cross order filled as isolated would post less margin than its hold promised — and a higher
   * isolated fraction while the owner has orders open in the market (a fill would post more
   * margin than its hold reserved, out of collateral the cross positions need).
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
    // An isolated order's fill moves initial margin at the fraction of the moment out of the
    // cross collateral; its hold reserved it at the fraction it was admitted with. Raised
    // between the two, the fill took more than was held — all the cross collateral if need
    // be, leaving the cross positions it carried bankrupt for the fund to pay.
    if (isolated && fraction > fractionOf(o, m) && o.openLots.has(market)) return LedgerCode.OrdersOpenInMarket;
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
        // Cash, and not the cash the holds of the owner's isolated orders reserve (stats `cashHeld`).
        if (move > 0n && move > o.collateral - cashHeld(o)) return LedgerCode.InsufficientMargin;
      } else {
        if (p.isolated) move = -p.margin;
        headroom += (p.isolated ? p.margin : 0n) + upnl - initialMargin(m.spec, notionalNow, fraction);
      }
      // Refuse what makes the cross account shorter of initial margin than it already is.
      if (headroom < 0n && (isolated ? move > 0n : headroom < orderHeadroom(o, e))) return LedgerCode.InsufficientMargin;
      p.isolated = isolated;
      p.margin += move;
      p.updatedAt = time;
      if (move !== 0n) credit(this.emit, o, -move, 'margin', time);
      emitPosition(this.emit, o.owner, p);
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
    m.prices.mark = markOf(m.prices, markBand(m.spec));
    settleFundingIfDue(this.ctx, m, time);
    return LedgerCode.Ok;
  }

  /**
   * Samples the premium from the book's best bid and ask (0 = side empty), updates the mark,
   * and settles funding when `time` has reached the interval's boundary.
   */
  sampleFunding(market: MarketIndex, bestBid: number, bestAsk: number, time: number): LedgerCode {
    const m = this.markets[market];
    if (m === undefined) return LedgerCode.MarketNotFound;
    settleFundingIfDue(this.ctx, m, time);
    const sample = samplePremium(m.prices, bestBid, bestAsk, markBand(m.spec));
    if (m.funding.nextAt === 0) m.funding.nextAt = nextBoundary(m.spec, time);
    m.funding.premiumSum += sample;
    m.funding.samples += 1;
    return LedgerCode.Ok;
  }

  // ── pre-trade risk (R1) ─────────────────────────────────────────────────────────────────

  /** Admits an order when its owner's free collateral covers its hold (how it is measured: holds.ts `admitOrder`). */
  admitOrder(orderId: OrderId, owner: OwnerIndex, market: MarketIndex, side: Side, price: number, quantity: number, reduceOnly: boolean, time: number, extras?: AdmitExtras): LedgerCode {
    return admitOrder(this.ctx, orderId, owner, market, side, price, quantity, reduceOnly, time, extras);
  }

  /** The order left the book (cancelled, expired, rejected, IOC remainder): its hold is released. */
  releaseOrder(orderId: OrderId, time: number): LedgerCode {
    const code = releaseOrder(this.ctx, orderId, time);
    this.audit();
    return code;
  }

  /** After a fill or a liquidation's end: keeps the first deficit found unjustified (insolvency.ts `unjustifiedDeficit`). */
  private audit(): void {
    const found = unjustifiedDeficit(this.ctx);
    this.unjustifiedDeficit ??= found;
  }

  // ── settlement (R2) ─────────────────────────────────────────────────────────────────────

  /**
   * Settles one fill of the book: both sides' positions, realized PnL, fees (maker may be a
   * rebate), originator and liquidation fees, isolated margin, holds. Emits per side a `fill`,
   * a `position` and a `balance` event. Unknown order ids (no hold) are settled without one.
   */
  settleFill(makerOrderId: OrderId, takerOrderId: OrderId, makerOwner: OwnerIndex, takerOwner: OwnerIndex, takerSide: Side, market: MarketIndex, price: number, quantity: number, time: number): LedgerCode {
    const m = this.markets[market];
    if (m === undefined) return LedgerCode.MarketNotFound;
    if (this.owners[makerOwner] === undefined || this.owners[takerOwner] === undefined || makerOwner === 0 || takerOwner === 0) return LedgerCode.AccountNotFound;
    if (!Number.isSafeInteger(price) || price <= 0 || !Number.isSafeInteger(quantity) || quantity <= 0) return LedgerCode.InvalidOrder;
    m.prices.last = price;
    m.prices.mark = markOf(m.prices, markBand(m.spec));
    settleBookFill(this.ctx, m, makerOwner, makerOrderId, takerOwner, takerOrderId, takerSide, price, quantity, notional(m.scale, price, quantity), time);
    this.audit();
    return LedgerCode.Ok;
  }

  // ── liquidation, insurance fund, ADL ────────────────────────────────────────────────────

  /**
   * One reduce-only IOC order per position below maintenance, for the application to admit and
   * send; a liquidation whose owner has orders open in its scope is listed in `cancels` instead,
   * for the application to take them off the books, and priced by `readyLiquidations` once
   * they have all ended (insolvency.ts `checkLiquidations`).
   */
  checkLiquidations(time: number, cancels?: LiquidationCancel[]): LiquidationOrder[] {
    return checkLiquidations(this.ctx, time, cancels);
  }

  /**
   * The liquidations listed in `cancels` whose owner's orders have all ended since, priced on
   * the state as it is now (insolvency.ts `readyLiquidations`): called after every book event.
   */
  readyLiquidations(time: number, cancels?: LiquidationCancel[]): LiquidationOrder[] {
    return readyLiquidations(this.ctx, time, cancels);
  }

  /** Whether a liquidation waits for its owner's orders to leave the books (`readyLiquidations` has work). */
  get liquidationsWaiting(): boolean {
    return this.ctx.waiting.size > 0;
  }

  /** Whether `owner` has an order (not a liquidation's) in `market` that has not ended: what a waiting liquidation cancels. */
  ordersOpenIn(owner: OwnerIndex, market: MarketIndex): boolean {
    const o = this.owners[owner];
    return o !== undefined && ordersOpenIn(o, market);
  }

  /**
   * The markets where `owner` is below maintenance with no liquidation in flight (no order, no wait for its orders to end): what
   * the next `checkLiquidations` would liquidate (a read, for checks and the simulator).
   */
  liquidatable(owner: OwnerIndex): number[] {
    return liquidatable(this.ctx, owner);
  }

  /** Markets where a liquidation of `owner` is in flight: its order, or its wait for the owner's orders to leave the books. */
  liquidatingIn(owner: OwnerIndex): number[] {
    return [...(this.owners[owner]?.liquidating ?? [])];
  }


  // ── reads ───────────────────────────────────────────────────────────────────────────────

  /** Signed lots of `owner` in `market` (0 when flat): what the book's reduce-only check reads. */
  position(owner: OwnerIndex, market: MarketIndex): number {
    return this.owners[owner]?.positions.get(market)?.quantity ?? 0;
  }

  /**
   * What the book of `market` is told with an order of `owner` (`PlaceOrder.position`): the
   * position less the net lots of the owner's fills that book executed and the ledger settled —
   * the lots ADL moved. The book adds the fills it executed, so it knows the position as it is
   * at the book, fills still on their way here included.
   */
  positionOffBook(owner: OwnerIndex, market: MarketIndex): number {
    return this.owners[owner]?.offBook.get(market) ?? 0;
  }

  /** A copy of the position, or undefined when flat. */
  positionOf(owner: OwnerIndex, market: MarketIndex): Position | undefined {
    const p = this.owners[owner]?.positions.get(market);
    return p === undefined ? undefined : { ...p };
  }

  /** Copies of the owner's positions, by market index. */
  positionsOf(owner: OwnerIndex): Position[] {
    const o = this.owners[owner];
    if (o === undefined || owner === 0) return [];
    return [...o.positions.values()].sort((a, b) => a.market - b.market).map((p) => ({ ...p }));
  }

  collateral(owner: OwnerIndex): bigint {
    return this.owners[owner]?.collateral ?? 0n;
  }

  stats(owner: OwnerIndex): AccountStats | undefined {
    const o = this.owners[owner];
    return o === undefined || owner === 0 ? undefined : statsOf(o, this.markets);
  }

  marginSetting(owner: OwnerIndex, market: MarketIndex): { isolated: boolean; fraction: bigint } {
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
    return this.funds.insurance;
  }

  get feesCollected(): bigint {
    return this.funds.feesCollected;
  }

  /** Net money that entered: deposits + faucet − withdrawals. */
  get netDeposits(): bigint {
    return netDeposits(this.flows);
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

  // ── state: invariants, hash, snapshot ───────────────────────────────────────────────────

  /** Where every unit of money is, summed: the conservation law (ledger/invariants). */
  moneyReport(): MoneyReport {
    return moneyReport(this.records);
  }

  /** Throws unless money is conserved to the unit (ledger/invariants): after a command or a book event, never from inside a listener. */
  checkConservation(): void {
    checkConservation(this.records);
  }

  /** Throws when an invariant is broken (see the module header; ledger/invariants). */
  validateInternalState(): void {
    if (this.unjustifiedDeficit !== null) throw new Error(`ledger: ${this.unjustifiedDeficit}`);
    validateLedger(this.records);
  }

  /** The whole state as plain data (bigints kept as bigint; owners and holds in id order): ledger/snapshot. */
  snapshot(): LedgerSnapshot {
    return snapshotOf(this.records);
  }

  /**
   * A ledger equal to the one `snap` was taken from (same `stateHash`); markets beyond the
   * snapshot's (appended to the markets file since) start with nothing in them.
   */
  static restore(markets: readonly MarketSpec[], snap: LedgerSnapshot, options: LedgerOptions = {}, listener?: LedgerListener): Ledger {
    if (snap.version !== 1 || snap.markets.length > markets.length) throw new Error('ledger: snapshot does not match these markets');
    const l = new Ledger(markets, options, listener);
    // Owners are created by registering them, in id order, as they were first registered.
    snap.registry.forEach(([address, sub]) => l.register(address, sub));
    restoreRecords({ owners: l.owners, markets: l.markets, holds: l.holds, funds: l.funds, flows: l.flows, waiting: l.ctx.waiting }, snap);
    return l;
  }

  /**
   * The markets' parameters from now on (a journaled markets record): each market already here
   * takes its new spec (the caller has checked it is the same market, in the same units), each one
   * beyond them starts empty. Fees, margins and funding are read from the spec where they apply,
   * so what happened before keeps what it was charged.
   */
  changeMarkets(markets: readonly MarketSpec[]): void {
    markets.forEach((spec, i) => {
      if (spec.index !== i) throw new Error(`ledger: market ${spec.symbol} has index ${spec.index}, expected ${i}`);
      if (i < this.markets.length) this.markets[i].spec = spec;
      else this.markets.push({ spec, scale: notionalScale(spec), prices: newPrices(), funding: newFunding(), holders: new Set<OwnerIndex>() });
    });
  }

  /** The one state-hash recipe (numeric/state-hash) over the canonical snapshot: equal states give equal hashes. */
  stateHash(): string {
    return stateHashOf(this.snapshot());
  }
}
