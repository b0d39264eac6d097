/**
 * @module app/exchange
 *
 * The exchange's application state on the sequencer thread, as one deterministic machine:
 * the ledger, the nonce windows, the delegations, the order registry and the depth mirrors.
 * It changes only through `execute(command)` (the journaled application commands) and the
 * book events it is handed (`listener(market)`), in journal order — live and in replay alike,
 * so replaying the journal rebuilds it exactly.
 *
 * The books are not here: commands for a book leave through the `MarketRouter` it is handed
 * (a market thread's ring live, an in-process book in replay), and their events come back
 * through `listener(market)`.
 *
 * Conditional orders are here: one `ConditionalBook` per market (docs/conditional-orders.md),
 * because a trigger needs the ledger — the mark, the position at trigger time and the R1 hold
 * of the released order. It is fed the mark after every IndexPrice, Tick and fill, the clock on
 * Tick, every fill and every order leaving a book, and every position change. What it asks for
 * is queued and applied once the current command or book event is done (never re-entrantly): a
 * release goes the way of a submitted limit order (ledger.admitOrder, registry, router.place)
 * under the conditional order's own orderId, which no book has seen. Releases made while
 * executing a command are in its `routed`; those made while handling a book event are
 * "unsolicited" (`takeUnsolicitedRoutes`): the sequencer expects a `Done` for them that no
 * caller awaits.
 *
 * Liquidations: a Tick asks the ledger for them; one whose owner has orders open is not priced
 * yet — their cancels are sent, and after every book event the ledger is asked for those whose
 * orders have all ended (`Ledger.readyLiquidations`), sent as unsolicited routes like a release.
 *
 * Invariant: a ConditionalBook is only ever called inside `execute` or a book event, and a
 * command that reached one is journaled, so replay feeds it exactly the same inputs; the same
 * holds for the ledger's waiting liquidations (priced at the book event that ended the last order).
 *
 * May import: types/ids, engine/ (codes, types), ledger/ (codes, events types, ledger),
 * auth/ (nonces, delegation, admission), conditional/index, config/market, config/market-changes,
 * numeric/state-hash, app/commands, app/codes, app/order-registry, app/depth-mirror,
 * app/order-entry (how orders enter a book), app/settlement (R2, the book events),
 * app/account-limits, app/faucet-day (the faucet's daily allowance), app/ports. No I/O, no clock:
 * auth's stores are the pure ones (journaled state).
 */
import { stateHashOf } from '../numeric/state-hash.ts';
import { parseMarkets, type MarketSpec } from '../config/market.ts';
import { diffMarkets } from '../config/market-changes.ts';
import { Ledger, type LedgerOptions } from '../ledger/ledger.ts';
import { LedgerCode } from '../ledger/codes.ts';
import type { LedgerEvent, LiquidationCancel, LiquidationOrder } from '../ledger/events.ts';
import { NonceStore } from '../auth/nonces.ts';
import { DelegationStore } from '../auth/delegation.ts';
import { admitDelegationChange, admitSignedWrite } from '../auth/admission.ts';
import { Reason, REASON_TEXT } from '../engine/codes.ts';
import { OrderFlag, marketOfOrderId, parseOrderId, type BookListener, type PlaceOrder } from '../engine/types.ts';
import { CONDITIONAL_TEXT, ConditionalBook, ConditionalCode, ConditionalReason, type ConditionalListener } from '../conditional/index.ts';
import { CommandKind, type Command } from './commands.ts';
import { OrderRegistry, type OrderState, type StoredOrder } from './order-registry.ts';
import { DepthMirror } from './depth-mirror.ts';
import { settlementListener } from './settlement.ts';
import { ON_BOOK, OrderEntry } from './order-entry.ts';
import { ExchangeCode, notChanged, type ExecuteResult } from './codes.ts';
import type { ExchangeListeners, MarketRouter } from './ports.ts';
import { DEFAULT_ACCOUNT_LIMITS, newSubaccountRefusal, transferRefusal, type AccountLimits } from './account-limits.ts';
import { FaucetDay, type FaucetDaySnapshot } from './faucet-day.ts';
import type { MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';

export interface ExchangeOptions {
  ledger?: LedgerOptions;
  /** Minimum transfer and subaccounts per address; default 1 USD and 32. */
  /** Defaults: DEFAULT_ACCOUNT_LIMITS, field by field. */
  accountLimits?: Partial<AccountLimits>;
}

const NO_ROUTES: readonly number[] = [];

/** The exchange's state as plain data: what a snapshot stores beside the books. */
export interface ExchangeSnapshot {
  ledger: ReturnType<Ledger['snapshot']>;
  nonces: ReturnType<NonceStore['snapshot']>;
  delegations: ReturnType<DelegationStore['snapshot']>;
  orders: StoredOrder[];
  depth: ReturnType<DepthMirror['snapshot']>[];
  conditional: ReturnType<ConditionalBook['snapshot']>[];
  orderCounts: number[];
  /** Absent in snapshots written before the faucet had a daily allowance. */
  faucetDay?: FaucetDaySnapshot;
}

/** What a ConditionalBook (or an ADL trade) asked for, applied after the command or event that caused it. */
type ConditionalOutput =
  | { kind: 'release'; market: MarketIndex; order: PlaceOrder; triggerPrice: number }
  | { kind: 'ended'; orderId: OrderId; reason: number; time: number }
  | { kind: 'reduceOnlyStale'; market: MarketIndex; owner: OwnerIndex; time: number };

export class Exchange {
  readonly ledger: Ledger;
  readonly nonces: NonceStore;
  readonly delegations: DelegationStore;
  readonly orders: OrderRegistry;
  /** What the faucet credited each address today (its daily allowance, app/faucet-day.ts). */
  readonly faucetDay: FaucetDay;
  readonly depth: DepthMirror[];
  /** Per market: its untriggered orders, TP/SL pairs, TWAPs and icebergs. */
  readonly conditional: ConditionalBook[];
  /** What the conditional books asked for during the current command or event. */
  private readonly outputs: ConditionalOutput[] = [];
  /** Markets routed to while handling book events, once per book command (no caller awaits them). */
  private unsolicited: number[] = [];
  /** Orders numbered per market; the next orderId is orderIdOf(market, count + 1). */
  private readonly orderCounts: number[];
  /** Submissions, released conditional orders and liquidations on their way to a book. */
  private readonly entry: OrderEntry;
  private readonly bookListeners: BookListener[];
  readonly accountLimits: AccountLimits;

  /** The markets as the journal has them at this point: the constructor's, changed by each markets record (`changeMarkets`). */
  private readonly specs: MarketSpec[] = [];
  private readonly listeners: ExchangeListeners;

  constructor(
    markets: readonly MarketSpec[],
    private router: MarketRouter,
    listeners: ExchangeListeners = {},
    options: ExchangeOptions = {},
    /** State to start from (a snapshot); a fresh exchange when absent. */
    from?: ExchangeSnapshot,
  ) {
    const ledgerListener = (e: LedgerEvent) => {
      listeners.ledgerEvent?.(e);
      if (e.type === 'position') this.conditional[e.market].onPosition(e.owner, e.quantity, e.updatedAt);
      // ADL moved both positions outside the book, which counts positions only from its own
      // fills and what each order told it: their resting reduce-only orders leave the book
      // (a new one carries the new position). Applied after the event, like a conditional output.
      else if (e.type === 'adl') {
        this.outputs.push({ kind: 'reduceOnlyStale', market: e.market, owner: e.owner, time: e.time });
        this.outputs.push({ kind: 'reduceOnlyStale', market: e.market, owner: e.counterparty, time: e.time });
      }
    };
    this.accountLimits = { ...DEFAULT_ACCOUNT_LIMITS, ...options.accountLimits };
    this.ledger = from ? Ledger.restore(markets, from.ledger, options.ledger, ledgerListener) : new Ledger(markets, options.ledger, ledgerListener);
    this.nonces = from ? NonceStore.restore(from.nonces) : new NonceStore();
    this.delegations = from ? DelegationStore.restore(from.delegations) : new DelegationStore();
    const orderChanged = (o: OrderState) => listeners.orderChanged?.(o);
    this.orders = from ? OrderRegistry.restore(from.orders, orderChanged) : new OrderRegistry(orderChanged);
    this.faucetDay = FaucetDay.restore(from?.faucetDay);
    this.listeners = listeners;
    this.depth = [];
    this.conditional = [];
    this.orderCounts = [];
    this.bookListeners = [];
    this.entry = new OrderEntry(this, () => this.router, this.orderCounts);
    for (const m of markets) this.addMarket(m, from);
  }

  /** The markets as the journal has them at this point (the markets file's at the end of a replay). */
  get markets(): readonly MarketSpec[] {
    return this.specs;
  }

  /** Market `m`'s state: from `from`, or empty (a market beyond the snapshot's, appended since). */
  private addMarket(m: MarketSpec, from?: ExchangeSnapshot): void {
    this.specs.push(m);
    this.depth.push(from?.depth[m.index] !== undefined ? DepthMirror.restore(from.depth[m.index]) : new DepthMirror());
    this.conditional.push(
      from?.conditional[m.index] !== undefined ? ConditionalBook.restore(from.conditional[m.index], this.conditionalListenerFor(m.index)) : new ConditionalBook(m.index, this.conditionalListenerFor(m.index)),
    );
    this.orderCounts.push(from?.orderCounts[m.index] ?? 0);
    this.bookListeners.push(
      settlementListener({
        market: m.index,
        depth: this.depth[m.index],
        orders: this.orders,
        ledger: this.ledger,
        conditional: this.conditional[m.index],
        trade: this.listeners.trade,
        markMoved: (time) => this.markMoved(m.index, time),
        // What the event made ready or the conditional book ask for is routed without a waiting caller.
        afterEvent: (time) => {
          if (this.ledger.liquidationsWaiting) this.liquidateReady(time);
          if (this.outputs.length > 0) this.applyConditionalOutputs(this.unsolicited);
        },
      }),
    );
  }

  /**
   * The markets' parameters from this point on (a markets record): the same markets in their
   * places and units (anything else is a journal this state cannot follow: thrown), each with its
   * new values; markets beyond them are added, empty. What the books check (minSize) is the
   * caller's to pass on to them (sequencer/recovery's books; market threads start with it).
   */
  private changeMarkets(markets: readonly MarketSpec[]): void {
    const refusal = diffMarkets(this.specs, markets).refusal;
    if (refusal !== null) throw new Error(`exchange: a markets record does not follow the markets before it: ${refusal}`);
    this.ledger.changeMarkets(markets);
    this.specs.forEach((_, i) => (this.specs[i] = markets[i]));
    for (const m of markets.slice(this.specs.length)) this.addMarket(m);
  }

  /** Everything this machine holds, as plain data (bigints included) for a snapshot. */
  snapshot(): ExchangeSnapshot {
    return {
      ledger: this.ledger.snapshot(),
      nonces: this.nonces.snapshot(),
      delegations: this.delegations.snapshot(),
      orders: this.orders.snapshot(),
      depth: this.depth.map((d) => d.snapshot()),
      conditional: this.conditional.map((c) => c.snapshot()),
      orderCounts: [...this.orderCounts],
      faucetDay: this.faucetDay.snapshot(),
    };
  }

  /** Sends book commands elsewhere from now on (replay's in-process books, then market threads). */
  routeTo(router: MarketRouter): void {
    this.router = router;
    // Whatever was routed before went to the previous router (replay's books), not to threads.
    this.unsolicited = [];
  }

  /** Markets routed to while handling book events since the last call, once per book command. */
  takeUnsolicitedRoutes(): readonly number[] {
    if (this.unsolicited.length === 0) return NO_ROUTES;
    const routes = this.unsolicited;
    this.unsolicited = [];
    return routes;
  }

  /** Runs one application command at its own time, then what it made the conditional books ask for. */
  execute(command: Command): ExecuteResult {
    const result = this.run(command);
    if (this.outputs.length > 0) {
      this.applyConditionalOutputs(result.routed);
      // A conditional book moved (a timer, a trigger): the command must be replayed.
      result.changed = true;
    }
    return result;
  }

  private run(command: Command): ExecuteResult {
    const time = command.time;
    switch (command.kind) {
      case CommandKind.SubmitOrder:
        return this.entry.submitOrder(command);
      case CommandKind.SubmitPair:
        return this.entry.submitPair(command);
      case CommandKind.SubmitSlices:
        return this.entry.submitSlices(command);
      case CommandKind.CancelOrder: {
        const order = this.orders.get(command.orderId);
        if (order === undefined) return notChanged(ExchangeCode.OrderNotFound);
        return this.cancelOrder(order, time);
      }
      case CommandKind.CancelAll: {
        const owner = this.ledger.findOwner(command.account, command.subaccountIndex);
        if (owner === undefined) return notChanged(LedgerCode.AccountNotFound);
        // The orders it ends, named in its result so the reply reports them as this command left them.
        const open = this.orders.ofOwner(owner, command.market ?? undefined);
        let ended = 0;
        for (const m of this.markets) if (command.market === null || command.market === m.index) ended += this.conditional[m.index].cancelAll(owner, time, Reason.Cancelled);
        const markets = new Set(open.filter((o) => o.status !== 'untriggered').map((o) => o.market));
        for (const market of markets) this.router.cancelAll(market, owner, time, Reason.Cancelled);
        return { code: 0, changed: markets.size > 0 || ended > 0, orderIds: open.map((o) => o.orderId), routed: [...markets] };
      }
      case CommandKind.Deposit:
        return this.money(this.ledger.deposit(command.account, command.subaccountIndex, command.amount, time));
      case CommandKind.Withdraw:
        return this.money(this.ledger.withdraw(command.account, command.subaccountIndex, command.amount, time));
      case CommandKind.Faucet: {
        if (command.allowance !== undefined && !this.faucetDay.allows(command.account, command.amount, command.allowance, time)) return notChanged(ExchangeCode.FaucetAllowanceUsed);
        const refused = newSubaccountRefusal(this.accountLimits, this.ledger, command.account, command.subaccountIndex);
        if (refused !== undefined) return refused;
        const credited = this.money(this.ledger.faucet(command.account, command.subaccountIndex, command.amount, time));
        if (credited.code === LedgerCode.Ok) this.faucetDay.record(command.account, command.amount, time);
        return credited;
      }
      case CommandKind.Transfer: {
        const limited = transferRefusal(this.accountLimits, this.ledger, command.amount, command.accountTo, command.subaccountIndexTo);
        if (limited !== undefined) return limited;
        const admitted = admitSignedWrite(
          this,
          {
            action: 'transfer',
            accountFrom: command.accountFrom,
            subaccountIndexFrom: command.subaccountIndexFrom,
            subaccountIndexTo: command.subaccountIndexTo,
            target: command.target,
            signer: command.signer,
            nonce: command.nonce,
            expiresAt: command.expiresAt,
          },
          time,
        );
        if (!admitted.ok) return notChanged(admitted.code, admitted.params);
        const code = this.ledger.transfer(command.accountFrom, command.subaccountIndexFrom, command.accountTo, command.subaccountIndexTo, command.amount, time);
        return { code, changed: true, routed: [] };
      }
      case CommandKind.SetMargin: {
        const admitted = admitSignedWrite(
          this,
          { action: 'marginUpdate', account: command.account, subaccountIndex: command.subaccountIndex, signer: command.signer, nonce: command.nonce, expiresAt: command.expiresAt },
          time,
        );
        if (!admitted.ok) return notChanged(admitted.code, admitted.params);
        const code = this.ledger.setMargin(command.account, command.subaccountIndex, command.market, command.isolated, command.margin, time);
        return { code, changed: true, routed: [] };
      }
      case CommandKind.Delegation: {
        const admitted = admitDelegationChange(this, command, command.signer, time);
        if (!admitted.ok) return { code: admitted.code, params: admitted.params, changed: false, routed: [] };
        return { code: 0, changed: true, routed: [] };
      }
      case CommandKind.IndexPrice: {
        const code = this.ledger.setIndexPrice(command.market, command.price, time);
        if (code === LedgerCode.Ok) this.markMoved(command.market, time);
        return { code, changed: true, routed: [] };
      }
      case CommandKind.Tick:
        return this.tick(time);
      case CommandKind.Release:
        if (this.conditional[command.market] === undefined) return notChanged(LedgerCode.MarketNotFound);
        this.conditional[command.market].onTime(time);
        return { code: 0, changed: true, routed: [] };
      case CommandKind.Markets:
        this.changeMarkets(parseMarkets({ markets: command.markets }, 'recorded'));
        return { code: 0, changed: true, routed: [] };
    }
  }

  /** What the book events of `market` drive: the ledger (R2), the registry and the depth mirror. */
  listener(market: MarketIndex): BookListener {
    return this.bookListeners[market];
  }

  private money(code: number): ExecuteResult {
    return code === LedgerCode.Ok ? { code, changed: true, routed: [] } : notChanged(code);
  }

  /**
   * Cancels one live order. Untriggered (a conditional order or a pending TWAP / iceberg child)
   * → its ConditionalBook, no book command — except an iceberg's child on the book, cancelled
   * with the rest. On a book → the book; an iceberg's child on the book first ends its iceberg.
   */
  private cancelOrder(order: OrderState, time: number): ExecuteResult {
    const { market, orderId, owner } = order;
    const book = this.conditional[market];
    const groupId = order.groupId === null ? undefined : parseOrderId(order.groupId);
    const liveChild = groupId === undefined ? 0 : (book.group(groupId)?.liveSliceId ?? 0);
    if (order.status === 'untriggered') {
      const code = book.cancel(orderId, owner, time);
      if (code !== ConditionalCode.Ok || liveChild === 0) return { code, changed: true, orderId, routed: [] };
      this.router.cancel(market, liveChild, owner, time);
      return { code, changed: true, orderId, routed: [market] };
    }
    if (groupId !== undefined && liveChild === orderId) book.cancelGroup(groupId, owner, time);
    this.router.cancel(market, orderId, owner, time);
    return { code: 0, changed: true, orderId, routed: [market] };
  }

  /** The mark of `market` may have moved: triggers it crossed fire (applied after the command or event). */
  private markMoved(market: MarketIndex, time: number): void {
    const mark = this.ledger.prices(market).mark;
    if (mark > 0) this.conditional[market].onMark(mark, time);
  }

  /** The ConditionalBook's listener for `market`: it only queues (it must not call back into a book). */
  private conditionalListenerFor(market: MarketIndex): ConditionalListener {
    const outputs = this.outputs;
    return {
      onRelease(order, _why, _groupId, _time, triggerPrice) {
        outputs.push({ kind: 'release', market, order, triggerPrice });
      },
      // The armed quantity shows once the leg is released (its quantity on the book).
      onArmed() {},
      onCancelled(orderId, _owner, reason, time) {
        outputs.push({ kind: 'ended', orderId, reason, time });
      },
      // Every child of a TWAP / iceberg is released or ended on its own (onRelease / onCancelled).
      onGroupEnded() {},
    };
  }

  /** Applies what the conditional books asked for, in order (applying may ask for more); routes go to `routed`. */
  private applyConditionalOutputs(routed: number[]): void {
    const outputs = this.outputs;
    for (let i = 0; i < outputs.length; i++) {
      const out = outputs[i];
      if (out.kind === 'release') {
        if (this.entry.enterReleased(out.market, out.order, out.triggerPrice)) routed.push(out.market);
      } else if (out.kind === 'reduceOnlyStale') {
        for (const o of this.orders.ofOwner(out.owner, out.market)) {
          if ((o.flags & OrderFlag.ReduceOnly) === 0 || !ON_BOOK.has(o.status)) continue;
          this.router.cancel(out.market, o.orderId, out.owner, out.time);
          routed.push(out.market);
        }
      } else {
        const status = out.reason === ConditionalReason.ExpiresAtReached ? 'expired' : 'cancelled';
        // Reasons only conditional orders have are 4500+; the others are the engine's.
        const text = (out.reason >= ConditionalReason.OcoTriggered ? CONDITIONAL_TEXT : REASON_TEXT)[out.reason] ?? String(out.reason);
        this.orders.closed(out.orderId, status, text, out.time);
      }
    }
    outputs.length = 0;
  }

  /** The clock: books expire what is due, funding is sampled, under-margined accounts are liquidated. */
  private tick(time: number): ExecuteResult {
    const routed: number[] = [];
    for (const m of this.markets) {
      this.router.expire(m.index, time);
      routed.push(m.index);
      const depth = this.depth[m.index];
      this.ledger.sampleFunding(m.index, depth.bestBid(), depth.bestAsk(), time);
      this.conditional[m.index].onTime(time);
      this.markMoved(m.index, time);
    }
    const cancels: LiquidationCancel[] = [];
    this.liquidate(this.ledger.checkLiquidations(time, cancels), cancels, time, routed);
    return { code: 0, changed: true, routed };
  }

  /**
   * Sends the liquidation orders the ledger priced, and the cancels of the liquidations that
   * wait for their owner's orders: a liquidation spends the collateral those orders were
   * admitted on, so they leave the books first — a cross liquidation's from every market, an
   * isolated one's from its own. Left there, a bid of a maker wiped out by ADL filled on nothing
   * and the winners paid its loss (hostile simulator seed 620008,
   * test/app/liquidation-cancels-orders); a stale reduce-only sell opened a short after ADL had
   * closed the long it reduced (test/app/reduce-only-after-adl). The ledger prices such a
   * liquidation only once every one of them has ended (`readyLiquidations`, after each book
   * event): a book may have matched one before the cancel arrived, and its fill, settled after
   * the price, spent what the price gave the liquidation's buyer, the fund paying
   * (test/app/liquidation-waits-for-fills-in-flight).
   */
  private liquidate(orders: readonly LiquidationOrder[], cancels: readonly LiquidationCancel[], time: number, routed: number[]): void {
    for (const c of cancels) {
      for (const m of this.markets) if (c.market === null || c.market === m.index) this.cancelForLiquidation(m.index, c.owner, time, routed);
    }
    for (const liq of orders) if (this.entry.enterLiquidation(liq, time)) routed.push(liq.market);
  }

  /**
   * After a book event: the waiting liquidations whose owner's orders have all ended are priced
   * and sent (routes without a caller) — to any market, not only the event's: whoever applies
   * book events must apply those the routes cause in every market (sequencer/recovery `finish`).
   */
  private liquidateReady(time: number): void {
    const cancels: LiquidationCancel[] = [];
    this.liquidate(this.ledger.readyLiquidations(time, cancels), cancels, time, this.unsolicited);
  }

  /** Takes every order `owner` has on `market`'s book off it, as the exchange's cancel (`exchangeCancelled`), where the ledger holds one. */
  private cancelForLiquidation(market: MarketIndex, owner: OwnerIndex, time: number, routed: number[]): void {
    if (!this.ledger.ordersOpenIn(owner, market)) return;
    this.router.cancelAll(market, owner, time, Reason.ExchangeCancelled);
    routed.push(market);
  }

  /**
   * An order as it stands now, open or recently finished, as the API presents it: a copy, so
   * later commands do not change what a caller holds (the sequencer's `Outcome.orders`).
   */
  orderAsLeft(orderId: OrderId): OrderState | undefined {
    const o = this.orders.lastKnown(orderId);
    return o === undefined ? undefined : { ...this.presented(o) };
  }

  /**
   * An open order as its owner sees it: an untriggered trailing stop shows the trigger price
   * it would fire at now (its anchor moves with the mark, so the registry does not hold it).
   */
  presented(o: OrderState): OrderState {
    if (o.orderType !== 'trailingStop' || o.status !== 'untriggered') return o;
    const live = this.conditional[o.market].order(o.orderId);
    return live === undefined ? o : { ...o, triggerPrice: live.triggerPrice };
  }

  /** When `market`'s conditional timer next has work (ms; 0 = nothing due): see `Release`. */
  nextDueAt(market: MarketIndex): number {
    return this.conditional[market].nextDueAt();
  }

  /** The market an orderId belongs to, when it names one of ours. */
  marketOf(orderId: OrderId): number | undefined {
    const market = marketOfOrderId(orderId);
    return market < this.markets.length ? market : undefined;
  }

  /** A hash over everything this machine holds (books are hashed by their own threads); `parts` when the caller has them already. */
  stateHash(parts: Record<string, string> = this.stateHashes()): string {
    return stateHashOf(parts);
  }

  /** The hash of each part, so a mismatch can name the part that differs. */
  stateHashes(): Record<string, string> {
    return {
      ledger: this.ledger.stateHash(),
      nonces: this.nonces.stateHash(),
      delegations: this.delegations.stateHash(),
      orderCounts: stateHashOf(this.orderCounts),
      orders: stateHashOf(this.orders.snapshot()),
      depth: stateHashOf(this.depth.map((d) => d.snapshot())),
      conditional: stateHashOf(this.conditional.map((c) => c.stateHash())),
      faucetDay: this.faucetDay.stateHash(),
    };
  }

  validateInternalState(): void {
    this.ledger.validateInternalState();
    for (const c of this.conditional) c.validateInternalState();
    if (this.outputs.length > 0) throw new Error('exchange: conditional outputs left unapplied');
    let untriggered = 0;
    for (const o of this.orders.openOrders()) {
      if (o.remaining <= 0 || o.remaining > o.quantity) throw new Error(`exchange: open order ${o.orderId} has remaining ${o.remaining} of ${o.quantity}`);
      if (o.status !== 'untriggered') continue;
      untriggered++;
      const book = this.conditional[o.market];
      const held = o.groupId === null ? book.order(o.orderId) !== undefined : book.group(parseOrderId(o.groupId)!) !== undefined;
      if (!held) throw new Error(`exchange: untriggered order ${o.orderId} is not in its conditional book`);
    }
    const triggers = this.conditional.reduce((n, c) => n + c.size, 0);
    if (triggers > untriggered) throw new Error(`exchange: ${triggers} untriggered orders in the conditional books, ${untriggered} in the registry`);
  }
}

