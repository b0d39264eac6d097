/**
 * @module runtime/exchange
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
 * Invariant: a ConditionalBook is only ever called inside `execute` or a book event, and a
 * command that reached one is journaled, so replay feeds it exactly the same inputs.
 *
 * May import: engine/, ledger/, auth/ (pure stores), conditional/, config/, numeric/, runtime/commands,
 * runtime/order-registry, runtime/depth-mirror, runtime/settlement (R2, the book events). No I/O, no clock.
 */
import { createHash } from 'node:crypto';
import { RATE_SCALE, type MarketSpec } from '../config/market.ts';
import { formatDecimal } from '../numeric/decimal.ts';
import { Ledger, type LedgerOptions } from '../ledger/ledger.ts';
import { LedgerCode } from '../ledger/codes.ts';
import type { LedgerEvent } from '../ledger/events.ts';
import { NonceStore } from '../auth/nonces.ts';
import { DelegationStore } from '../auth/delegation.ts';
import { admitDelegationChange, admitSignedBatch, admitSignedWrite } from '../auth/admission.ts';
import type { Address } from '../auth/address.ts';
import { Reason, REASON_TEXT } from '../engine/codes.ts';
import { OrderFlag, formatOrderId, orderIdOf, marketOfOrderId, parseOrderId, type BookListener, type PlaceOrder, type Side } from '../engine/types.ts';
import { CONDITIONAL_TEXT, ConditionalBook, ConditionalCode, ConditionalReason, TriggerKind, type ConditionalListener, type OrderFields, type PlaceTrigger } from '../conditional/index.ts';
import { CommandKind, type BatchOrder, type Command, type SubmitOrder, type SubmitPair, type SubmitSlices } from './commands.ts';
import { OrderRegistry, type OrderState, type OrderChangeListener } from './order-registry.ts';
import { DepthMirror } from './depth-mirror.ts';
import { settlementListener } from './settlement.ts';

/** Where book commands go: a market thread's ring live, an in-process book in replay. */
export interface MarketRouter {
  place(market: number, cmd: PlaceOrder): void;
  cancel(market: number, orderId: number, owner: number, time: number): void;
  cancelByClientId(market: number, account: number, clientId: string, time: number): void;
  cancelAll(market: number, owner: number, time: number, reason: number): void;
  expire(market: number, time: number): void;
}

/** A router that sends nowhere: an exchange that only replays or restores has no books yet. */
export const NO_ROUTER: MarketRouter = { place() {}, cancel() {}, cancelByClientId() {}, cancelAll() {}, expire() {} };

/** Codes of this stage (9100s): refusals that are neither auth, ledger nor engine rules. */
export const ExchangeCode = {
  OrderTypeNotSupported: 9101,
  DuplicateClientId: 9102,
  OrderNotFound: 9103,
  OriginatorNotFound: 9104,
} as const;

export interface ExecuteResult {
  /** 0 when accepted; otherwise a code of auth (1000s), ledger (2000s), engine (3000s) or this stage. */
  code: number;
  params?: Readonly<Record<string, string>>;
  /** False when the command was refused before it changed anything: it need not be journaled. */
  changed: boolean;
  /** The order a submit or cancel concerns (a batch: its first order). */
  orderId?: number;
  /** Every order of a batch (TP/SL pair, TWAP, iceberg), in request order. */
  orderIds?: number[];
  /** Markets a book command was routed to, once per command (the sequencer awaits their results). */
  routed: number[];
}

export interface ExchangeListeners {
  orderChanged?: OrderChangeListener;
  ledgerEvent?: (event: LedgerEvent) => void;
  /** A public trade: the book's fill, seen once. */
  trade?: (market: number, seq: number, time: number, price: number, quantity: number, takerSide: Side) => void;
}

export interface ExchangeOptions {
  ledger?: LedgerOptions;
}

const NO_ROUTES: readonly number[] = [];

/** The signed write behind an order: who signed for which subaccount, with which nonce. */
function signedOrder(o: BatchOrder) {
  return {
    action: 'order' as const,
    account: o.account as Address,
    subaccountIndex: o.subaccountIndex,
    signer: o.signer as Address,
    nonce: o.nonce,
    expiresAt: o.expiresAt === 0 ? Number.MAX_SAFE_INTEGER : o.expiresAt,
  };
}

const NOT_CHANGED = (code: number, params?: Readonly<Record<string, string>>): ExecuteResult => ({ code, params, changed: false, routed: [] });

const TRIGGER_KINDS: Readonly<Record<string, TriggerKind>> = {
  takeProfit: TriggerKind.TakeProfit,
  stopLoss: TriggerKind.StopLoss,
  trailingStop: TriggerKind.TrailingStop,
};

/** Registry statuses of an order a book holds (or is about to: `triggered` is on its way in). */
const ON_BOOK: ReadonlySet<string> = new Set(['new', 'partiallyFilled', 'triggered']);

/** `TriggerAlreadyCrossed` → `triggerAlreadyCrossed`: the `reason` of a conditional order refused at placement. */
const REFUSAL_TEXT: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(ConditionalCode).map(([name, code]) => [code, name.charAt(0).toLowerCase() + name.slice(1)]),
);

/** The exchange's state as plain data: what a snapshot stores beside the books. */
export interface ExchangeSnapshot {
  ledger: ReturnType<Ledger['snapshot']>;
  nonces: ReturnType<NonceStore['snapshot']>;
  delegations: ReturnType<DelegationStore['snapshot']>;
  orders: OrderState[];
  depth: ReturnType<DepthMirror['snapshot']>[];
  conditional: ReturnType<ConditionalBook['snapshot']>[];
  orderCounts: number[];
}

/** What a ConditionalBook asked for, applied after the command or event that caused it. */
type ConditionalOutput =
  | { kind: 'release'; market: number; order: PlaceOrder; triggerPrice: number }
  | { kind: 'ended'; orderId: number; reason: number; time: number };

/** The orders of a batch once admitted: one owner, one market, numbered in request order. */
interface Entered {
  owner: number;
  account: number;
  market: number;
  orderIds: number[];
  states: OrderState[];
}

export class Exchange {
  readonly ledger: Ledger;
  readonly nonces: NonceStore;
  readonly delegations: DelegationStore;
  readonly orders: OrderRegistry;
  readonly depth: DepthMirror[];
  /** Per market: its untriggered orders, TP/SL pairs, TWAPs and icebergs. */
  readonly conditional: ConditionalBook[];
  /** What the conditional books asked for during the current command or event. */
  private readonly outputs: ConditionalOutput[] = [];
  /** Markets routed to while handling book events, once per book command (no caller awaits them). */
  private unsolicited: number[] = [];
  /** Orders numbered per market; the next orderId is orderIdOf(market, count + 1). */
  private readonly orderCounts: number[];
  private readonly bookListeners: BookListener[];

  constructor(
    readonly markets: readonly MarketSpec[],
    private router: MarketRouter,
    listeners: ExchangeListeners = {},
    options: ExchangeOptions = {},
    /** State to start from (a snapshot); a fresh exchange when absent. */
    from?: ExchangeSnapshot,
  ) {
    const ledgerListener = (e: LedgerEvent) => {
      listeners.ledgerEvent?.(e);
      if (e.type === 'position') this.conditional[e.market].onPosition(e.owner, e.quantity, e.updatedAt);
    };
    this.ledger = from ? Ledger.restore(markets, from.ledger, options.ledger, ledgerListener) : new Ledger(markets, options.ledger, ledgerListener);
    this.nonces = from ? NonceStore.restore(from.nonces) : new NonceStore();
    this.delegations = from ? DelegationStore.restore(from.delegations) : new DelegationStore();
    const orderChanged = (o: OrderState) => listeners.orderChanged?.(o);
    this.orders = from ? OrderRegistry.restore(from.orders, orderChanged) : new OrderRegistry(orderChanged);
    this.depth = markets.map((m) => (from ? DepthMirror.restore(from.depth[m.index]) : new DepthMirror()));
    this.conditional = markets.map((m) =>
      from ? ConditionalBook.restore(from.conditional[m.index], this.conditionalListenerFor(m.index)) : new ConditionalBook(m.index, this.conditionalListenerFor(m.index)),
    );
    this.orderCounts = from ? [...from.orderCounts] : markets.map(() => 0);
    this.bookListeners = markets.map((m) =>
      settlementListener({
        market: m.index,
        depth: this.depth[m.index],
        orders: this.orders,
        ledger: this.ledger,
        conditional: this.conditional[m.index],
        trade: listeners.trade,
        markMoved: (time) => this.markMoved(m.index, time),
        // What the event made the conditional book ask for is routed without a waiting caller.
        afterEvent: () => {
          if (this.outputs.length > 0) this.applyConditionalOutputs(this.unsolicited);
        },
      }),
    );
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
        return this.submitOrder(command);
      case CommandKind.SubmitPair:
        return this.submitPair(command);
      case CommandKind.SubmitSlices:
        return this.submitSlices(command);
      case CommandKind.CancelOrder: {
        const order = this.orders.get(command.orderId);
        if (order === undefined) return NOT_CHANGED(ExchangeCode.OrderNotFound);
        return this.cancelOrder(order, time);
      }
      case CommandKind.CancelByClientId: {
        const order = this.orders.byClient(command.account, command.clientId);
        if (order === undefined) return NOT_CHANGED(ExchangeCode.OrderNotFound);
        return this.cancelOrder(order, time);
      }
      case CommandKind.CancelAll: {
        const owner = this.ledger.findOwner(command.account, command.subaccountIndex);
        if (owner === undefined) return NOT_CHANGED(LedgerCode.AccountNotFound);
        let ended = 0;
        for (const m of this.markets) if (command.market === null || command.market === m.index) ended += this.conditional[m.index].cancelAll(owner, time, Reason.Cancelled);
        const onBook = this.orders.ofOwner(owner, command.market ?? undefined).filter((o) => o.status !== 'untriggered');
        const markets = new Set(onBook.map((o) => o.market));
        for (const market of markets) this.router.cancelAll(market, owner, time, Reason.Cancelled);
        return { code: 0, changed: markets.size > 0 || ended > 0, routed: [...markets] };
      }
      case CommandKind.Deposit:
        return this.money(this.ledger.deposit(command.account, command.subaccountIndex, command.amount, time));
      case CommandKind.Withdraw:
        return this.money(this.ledger.withdraw(command.account, command.subaccountIndex, command.amount, time));
      case CommandKind.Faucet:
        return this.money(this.ledger.faucet(command.account, command.subaccountIndex, command.amount, time));
      case CommandKind.Transfer: {
        const admitted = admitSignedWrite(
          this,
          {
            action: 'transfer',
            accountFrom: command.accountFrom as Address,
            subaccountIndexFrom: command.subaccountIndexFrom,
            subaccountIndexTo: command.subaccountIndexTo,
            target: command.target as Address,
            signer: command.signer as Address,
            nonce: command.nonce,
            expiresAt: command.expiresAt,
          },
          time,
        );
        if (!admitted.ok) return NOT_CHANGED(admitted.code, admitted.params);
        const code = this.ledger.transfer(command.accountFrom, command.subaccountIndexFrom, command.accountTo, command.subaccountIndexTo, command.amount, time);
        return { code, changed: true, routed: [] };
      }
      case CommandKind.SetMargin: {
        const admitted = admitSignedWrite(
          this,
          { action: 'marginUpdate', account: command.account as Address, subaccountIndex: command.subaccountIndex, signer: command.signer as Address, nonce: command.nonce, expiresAt: command.expiresAt },
          time,
        );
        if (!admitted.ok) return NOT_CHANGED(admitted.code, admitted.params);
        const code = this.ledger.setMargin(command.account, command.subaccountIndex, command.market, command.isolated, command.margin, time);
        return { code, changed: true, routed: [] };
      }
      case CommandKind.Delegation: {
        const admitted = admitDelegationChange(this, command, command.signer as Address, time);
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
    }
  }

  /** What the book events of `market` drive: the ledger (R2), the registry and the depth mirror. */
  listener(market: number): BookListener {
    return this.bookListeners[market];
  }

  private money(code: number): ExecuteResult {
    return code === LedgerCode.Ok ? { code, changed: true, routed: [] } : NOT_CHANGED(code);
  }

  private submitOrder(cmd: SubmitOrder): ExecuteResult {
    const triggerKind = TRIGGER_KINDS[cmd.orderType];
    if (cmd.orderType !== 'limit' && triggerKind === undefined) return NOT_CHANGED(ExchangeCode.OrderTypeNotSupported, { orderType: cmd.orderType });
    const admitted = admitSignedWrite(this, signedOrder(cmd), cmd.time);
    if (!admitted.ok) return NOT_CHANGED(admitted.code, admitted.params);
    // From here the nonce is spent: every outcome is journaled.
    const entered = this.enter([cmd], cmd.time);
    if (!('states' in entered)) return entered;
    const { owner, market } = entered;
    const [orderId] = entered.orderIds;
    const [order] = entered.states;
    if (triggerKind !== undefined) {
      const code = this.conditional[market].place(this.trigger(cmd, entered, 0, triggerKind, cmd.time));
      if (code !== ConditionalCode.Ok) {
        this.orders.refused(order, REFUSAL_TEXT[code]);
        return { code, changed: true, orderId, routed: [] };
      }
      this.orders.untriggered(order);
      return { code: 0, changed: true, orderId, routed: [] };
    }
    const originator = cmd.originatorFee > 0 ? (this.ledger.findOwner(cmd.originator, 0) as number) : 0;
    const reduceOnly = (cmd.flags & OrderFlag.ReduceOnly) !== 0;
    const code = this.ledger.admitOrder(orderId, owner, market, cmd.side, cmd.price, cmd.quantity, reduceOnly, cmd.time, {
      originator,
      originatorFee: BigInt(cmd.originatorFee),
    });
    if (code !== LedgerCode.Ok) {
      this.orders.refused(order, 'insufficientMargin');
      return { code, changed: true, orderId, routed: [] };
    }
    this.orders.submitted(order);
    this.router.place(market, {
      orderId,
      owner,
      account: entered.account,
      side: cmd.side,
      price: cmd.price,
      quantity: cmd.quantity,
      flags: cmd.flags,
      expiresAt: cmd.expiresAt,
      clientId: cmd.clientId,
      position: this.ledger.position(owner, market),
      time: cmd.time,
    });
    return { code: 0, changed: true, orderId, routed: [market] };
  }

  /**
   * The step every submission shares once its nonces are spent: the subaccount, an orderId per
   * order (request order), and the checks that refuse the whole submission (a clientId already
   * live or repeated, an unknown originator) — reported as `rejected` and journaled.
   */
  private enter(orders: readonly BatchOrder[], time: number): Entered | ExecuteResult {
    const first = orders[0];
    const identity = this.ledger.register(first.account, first.subaccountIndex);
    if (typeof identity === 'number') return { code: identity, changed: true, routed: [] };
    const market = first.market;
    const orderIds = orders.map(() => orderIdOf(market, ++this.orderCounts[market]));
    const states = orders.map((o, i) => this.orderState({ ...o, kind: CommandKind.SubmitOrder, time }, orderIds[i], identity.owner));
    const refuse = (code: number, reason: string): ExecuteResult => {
      for (const s of states) this.orders.refused(s, reason);
      return { code, changed: true, orderId: orderIds[0], orderIds, routed: [] };
    };
    const clientIds = new Set<string>();
    for (const o of orders) {
      if (o.clientId === null) continue;
      if (clientIds.has(o.clientId) || this.orders.byClient(o.account, o.clientId) !== undefined) return refuse(ExchangeCode.DuplicateClientId, 'duplicateClientId');
      clientIds.add(o.clientId);
    }
    for (const o of orders) {
      if (o.originatorFee > 0 && this.ledger.findOwner(o.originator, 0) === undefined) return refuse(ExchangeCode.OriginatorNotFound, 'originatorNotFound');
    }
    return { owner: identity.owner, account: identity.account, market, orderIds, states };
  }

  /** Order `i` of an admitted submission as the conditional book takes it. */
  private fields(o: BatchOrder, entered: Entered, i: number): OrderFields {
    return {
      orderId: entered.orderIds[i],
      owner: entered.owner,
      account: entered.account,
      side: o.side,
      price: o.price,
      quantity: o.quantity,
      flags: o.flags,
      expiresAt: o.expiresAt,
      clientId: o.clientId,
    };
  }

  private trigger(o: BatchOrder, entered: Entered, i: number, kind: TriggerKind, time: number): PlaceTrigger {
    return { ...this.fields(o, entered, i), kind, triggerPrice: o.triggerPrice ?? 0, trailingPercent: o.trailingPercent ?? 0n, time };
  }

  /** A TP/SL pair: both legs admitted and placed, or neither. */
  private submitPair(cmd: SubmitPair): ExecuteResult {
    const { takeProfit: tp, stopLoss: sl, time } = cmd;
    if (
      tp.orderType !== 'takeProfit' ||
      sl.orderType !== 'stopLoss' ||
      tp.account !== sl.account ||
      tp.subaccountIndex !== sl.subaccountIndex ||
      tp.market !== sl.market ||
      (tp.parentOrderId ?? 0) !== (sl.parentOrderId ?? 0)
    ) {
      return NOT_CHANGED(ConditionalCode.InvalidPair);
    }
    const admitted = admitSignedBatch(this, [signedOrder(tp), signedOrder(sl)], time);
    if (!admitted.ok) return NOT_CHANGED(admitted.code, admitted.params);
    const entered = this.enter([tp, sl], time);
    if (!('states' in entered)) return entered;
    const { owner, market, orderIds, states } = entered;
    const parentOrderId = tp.parentOrderId ?? 0;
    const parent = parentOrderId === 0 ? undefined : this.orders.get(parentOrderId);
    const onBook = parent !== undefined && parent.market === market && ON_BOOK.has(parent.status);
    const code = this.conditional[market].placePair({
      ocoGroupId: orderIds[0],
      takeProfit: this.trigger(tp, entered, 0, TriggerKind.TakeProfit, time),
      stopLoss: this.trigger(sl, entered, 1, TriggerKind.StopLoss, time),
      parentOrderId,
      parent: onBook ? { orderId: parent.orderId, owner: parent.owner, side: parent.side, settled: parent.settled } : undefined,
      position: this.ledger.position(owner, market),
      time,
    });
    if (code !== ConditionalCode.Ok) {
      for (const s of states) this.orders.refused(s, REFUSAL_TEXT[code]);
      return { code, changed: true, orderId: orderIds[0], orderIds, routed: [] };
    }
    for (const s of states) {
      s.ocoGroupId = formatOrderId(orderIds[0]);
      this.orders.untriggered(s);
    }
    return { code: 0, changed: true, orderId: orderIds[0], orderIds, routed: [] };
  }

  /** A TWAP or an iceberg: every child admitted and held; the first enters its book now. */
  private submitSlices(cmd: SubmitSlices): ExecuteResult {
    const { orders, time } = cmd;
    const first = orders[0];
    if (first === undefined || orders.some((o) => o.orderType !== cmd.orderType || o.account !== first.account || o.subaccountIndex !== first.subaccountIndex || o.market !== first.market)) {
      return NOT_CHANGED(ConditionalCode.InvalidSlices);
    }
    const admitted = admitSignedBatch(this, orders.map(signedOrder), time);
    if (!admitted.ok) return NOT_CHANGED(admitted.code, admitted.params);
    const entered = this.enter(orders, time);
    if (!('states' in entered)) return entered;
    const { owner, market, orderIds, states } = entered;
    const slices = { groupId: orderIds[0], owner, slices: orders.map((o, i) => this.fields(o, entered, i)), period: first.period ?? 0, time };
    const book = this.conditional[market];
    const code = cmd.orderType === 'twap' ? book.placeTwap(slices) : book.placeIceberg(slices);
    if (code !== ConditionalCode.Ok) {
      for (const s of states) this.orders.refused(s, REFUSAL_TEXT[code]);
      return { code, changed: true, orderId: orderIds[0], orderIds, routed: [] };
    }
    for (const s of states) {
      s.groupId = formatOrderId(orderIds[0]);
      this.orders.untriggered(s);
    }
    return { code: 0, changed: true, orderId: orderIds[0], orderIds, routed: [] };
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
  private markMoved(market: number, time: number): void {
    const mark = this.ledger.prices(market).mark;
    if (mark > 0) this.conditional[market].onMark(mark, time);
  }

  /** The ConditionalBook's listener for `market`: it only queues (it must not call back into a book). */
  private conditionalListenerFor(market: number): ConditionalListener {
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
      if (out.kind === 'release') this.release(out.market, out.order, out.triggerPrice, routed);
      else {
        const status = out.reason === ConditionalReason.ExpiresAtReached ? 'expired' : 'cancelled';
        // Reasons only conditional orders have are 4500+; the others are the engine's.
        const text = (out.reason >= ConditionalReason.OcoTriggered ? CONDITIONAL_TEXT : REASON_TEXT)[out.reason] ?? String(out.reason);
        this.orders.closed(out.orderId, status, text, out.time);
      }
    }
    outputs.length = 0;
  }

  /** A released conditional order enters its book as a submitted limit order would: R1 hold, registry, book. */
  private release(market: number, order: PlaceOrder, triggerPrice: number, routed: number[]): void {
    const state = this.orders.get(order.orderId);
    if (state === undefined) throw new Error(`exchange: released order ${order.orderId} is not in the registry`);
    const originator = state.originatorFee > 0 ? (this.ledger.findOwner(state.originator, 0) ?? 0) : 0;
    const reduceOnly = (order.flags & OrderFlag.ReduceOnly) !== 0;
    const code = this.ledger.admitOrder(order.orderId, order.owner, market, order.side, order.price, order.quantity, reduceOnly, order.time, {
      originator,
      originatorFee: BigInt(state.originatorFee),
    });
    if (code !== LedgerCode.Ok) {
      this.orders.closed(order.orderId, 'rejected', 'insufficientMargin', order.time);
      // An iceberg child that cannot enter ends its iceberg.
      this.conditional[market].onOrderGone(order.orderId, order.time);
      return;
    }
    this.orders.triggered(order.orderId, order.quantity, order.time, triggerPrice);
    order.position = this.ledger.position(order.owner, market);
    this.router.place(market, order);
    routed.push(market);
  }

  private orderState(cmd: SubmitOrder, orderId: number, owner: number): OrderState {
    return {
      orderId,
      market: cmd.market,
      owner,
      account: cmd.account,
      subaccountIndex: cmd.subaccountIndex,
      orderType: cmd.orderType,
      side: cmd.side,
      price: cmd.price,
      quantity: cmd.quantity,
      remaining: cmd.quantity,
      settled: 0,
      flags: cmd.flags,
      expiresAt: cmd.expiresAt,
      nonce: cmd.nonce,
      clientId: cmd.clientId,
      originator: cmd.originator,
      originatorFee: cmd.originatorFee,
      triggerPrice: cmd.triggerPrice,
      parentOrderId: cmd.parentOrderId,
      period: cmd.period,
      // As the user wrote it: a fraction ("0.05"), not RATE_SCALE units.
      trailingPercent: cmd.trailingPercent === null ? null : formatDecimal(cmd.trailingPercent, RATE_SCALE),
      groupId: null,
      ocoGroupId: null,
      status: 'new',
      reason: null,
      createdAt: cmd.time,
      updatedAt: cmd.time,
      lastUpdateSequenceNumber: 0,
    };
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
    for (const liq of this.ledger.checkLiquidations(time)) {
      const orderId = orderIdOf(liq.market, ++this.orderCounts[liq.market]);
      if (this.ledger.admitOrder(orderId, liq.owner, liq.market, liq.side, liq.price, liq.quantity, true, time, { liquidation: true }) !== LedgerCode.Ok) continue;
      const identity = this.ledger.identity(liq.owner)!;
      const flags = OrderFlag.ImmediateOrCancel | OrderFlag.ReduceOnly;
      this.orders.submitted({
        ...this.orderState(
          {
            kind: CommandKind.SubmitOrder,
            time,
            account: identity.address,
            subaccountIndex: identity.subaccountIndex,
            market: liq.market,
            orderType: 'limit',
            side: liq.side,
            price: liq.price,
            quantity: liq.quantity,
            flags,
            expiresAt: 0,
            nonce: 0,
            clientId: null,
            originator: '0x0000000000000000000000000000000000000000',
            originatorFee: 0,
            triggerPrice: null,
            parentOrderId: null,
            period: null,
            trailingPercent: null,
            signer: '',
            signature: '',
          },
          orderId,
          liq.owner,
        ),
        groupId: 'liquidation',
      });
      this.router.place(liq.market, {
        orderId,
        owner: liq.owner,
        account: liq.account,
        side: liq.side,
        price: liq.price,
        quantity: liq.quantity,
        flags,
        expiresAt: 0,
        clientId: null,
        position: this.ledger.position(liq.owner, liq.market),
        time,
      });
      routed.push(liq.market);
    }
    return { code: 0, changed: true, routed };
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

  /** The market an orderId belongs to, when it names one of ours. */
  marketOf(orderId: number): number | undefined {
    const market = marketOfOrderId(orderId);
    return market < this.markets.length ? market : undefined;
  }

  /** A hash over everything this machine holds (books are hashed by their own threads). */
  stateHash(): string {
    const hash = createHash('sha256');
    for (const part of Object.values(this.stateHashes())) hash.update(part);
    return hash.digest('hex');
  }

  /** The hash of each part, so a mismatch can name the part that differs. */
  stateHashes(): Record<string, string> {
    const digest = (text: string) => createHash('sha256').update(text).digest('hex');
    return {
      ledger: this.ledger.stateHash(),
      nonces: this.nonces.stateHash(),
      delegations: this.delegations.stateHash(),
      orderCounts: digest(JSON.stringify(this.orderCounts)),
      orders: digest(JSON.stringify(this.orders.snapshot())),
      depth: digest(JSON.stringify(this.depth.map((d) => d.snapshot()))),
      conditional: digest(this.conditional.map((c) => c.stateHash()).join()),
    };
  }

  validateInternalState(): void {
    this.ledger.validateInternalState();
    for (const c of this.conditional) c.validateInternalState();
    if (this.outputs.length > 0) throw new Error('exchange: conditional outputs left unapplied');
    let untriggered = 0;
    for (const o of this.orders.snapshot()) {
      if (o.remaining <= 0 || o.remaining > o.quantity) throw new Error(`exchange: open order ${o.orderId} has remaining ${o.remaining} of ${o.quantity}`);
      if (o.status !== 'untriggered') continue;
      untriggered++;
      const book = this.conditional[o.market];
      const held = o.groupId === null ? book.order(o.orderId) !== undefined : book.group(parseOrderId(o.groupId) as number) !== undefined;
      if (!held) throw new Error(`exchange: untriggered order ${o.orderId} is not in its conditional book`);
    }
    const triggers = this.conditional.reduce((n, c) => n + c.size, 0);
    if (triggers > untriggered) throw new Error(`exchange: ${triggers} untriggered orders in the conditional books, ${untriggered} in the registry`);
  }
}

