/**
 * @module app/order-entry
 *
 * How an order enters the exchange — part of the `Exchange`'s deterministic machine, on the
 * sequencer thread. Signed submissions: a single order, a TP/SL pair, a TWAP or an iceberg —
 * their signatures admitted (nonces spent), the subaccount found or opened, an orderId per
 * order, the refusals that reject a whole submission (a clientId already live, an unknown
 * originator), then the R1 margin hold and the book for a limit order, the conditional book
 * for the rest. And the two ways an order enters without a signature: a conditional order
 * its book released, and a liquidation the ledger asked for. Every path to a book is R1 hold
 * → registry → router, in that order: in replay the router is an in-process book that reports
 * fills at once, so the registry must already hold the order.
 *
 * Owns: the per-market order counters (orderIds); the order registry's view of every order
 * it enters. No I/O, no clock.
 * May import: types/ids, types/address, engine/types, ledger/ (codes, events types, ledger types),
 * auth/admission, conditional/index, config/market, numeric/decimal, app/commands, app/codes,
 * app/order-registry, app/ports, app/account-limits, types/orders.
 * Invariant: a submission that spent its nonces returns `changed: true` (it is journaled),
 * whatever happened after.
 */
import { RATE_SCALE, type MarketSpec } from '../config/market.ts';
import { formatDecimal } from '../numeric/decimal.ts';
import type { Ledger } from '../ledger/ledger.ts';
import { LedgerCode } from '../ledger/codes.ts';
import type { LiquidationOrder } from '../ledger/events.ts';
import { admitSignedBatch, admitSignedWrite, type AuthState } from '../auth/admission.ts';
import { ZERO_ADDRESS, type Address } from '../types/address.ts';
import type { OrderStatus } from '../types/orders.ts';
import { OrderFlag, formatOrderId, orderIdOf, type PlaceOrder } from '../engine/types.ts';
import { ConditionalBook, ConditionalCode, TriggerKind, type OrderFields, type PlaceTrigger } from '../conditional/index.ts';
import type { BatchOrder, SubmitOrder, SubmitPair, SubmitSlices } from './commands.ts';
import type { OrderRegistry, OrderState } from './order-registry.ts';
import { ExchangeCode, notChanged, type ExecuteResult } from './codes.ts';
import type { MarketRouter } from './ports.ts';
import { openOrdersRefusal, type AccountLimits } from './account-limits.ts';
import { NO_ORDER, NO_OWNER, type AccountIndex, type MarketIndex, type OrderId, type OwnerIndex } from '../types/ids.ts';

/** What order entry works on: the exchange's stores (it is handed the exchange itself). */
export interface OrderEntryState extends AuthState {
  readonly markets: readonly MarketSpec[];
  readonly accountLimits: AccountLimits;
  readonly ledger: Ledger;
  readonly orders: OrderRegistry;
  readonly conditional: readonly ConditionalBook[];
}

/** What an order's registry state is made from: its terms, signed by a trader or, for a liquidation, by nobody. */
type OrderTerms = Omit<BatchOrder, 'signer' | 'signature'>;

/** The signed write behind an order: who signed for which subaccount, with which nonce. */
function signedOrder(o: BatchOrder) {
  return {
    action: 'order' as const,
    account: o.account,
    subaccountIndex: o.subaccountIndex,
    signer: o.signer,
    nonce: o.nonce,
    expiresAt: o.expiresAt === 0 ? Number.MAX_SAFE_INTEGER : o.expiresAt,
  };
}

const TRIGGER_KINDS: Readonly<Record<string, TriggerKind>> = {
  takeProfit: TriggerKind.TakeProfit,
  stopLoss: TriggerKind.StopLoss,
  trailingStop: TriggerKind.TrailingStop,
};

/** Registry statuses of an order a book holds (or is about to: `triggered` is on its way in). */
export const ON_BOOK: ReadonlySet<OrderStatus> = new Set(['new', 'partiallyFilled', 'triggered']);

/** `TriggerAlreadyCrossed` → `triggerAlreadyCrossed`: the `reason` of a conditional order refused at placement. */
const REFUSAL_TEXT: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(ConditionalCode).map(([name, code]) => [code, name.charAt(0).toLowerCase() + name.slice(1)]),
);


/** The orders of a batch once admitted: one owner, one market, numbered in request order. */
interface Entered {
  owner: OwnerIndex;
  account: AccountIndex;
  market: MarketIndex;
  orderIds: OrderId[];
  states: OrderState[];
}

export class OrderEntry {
  constructor(
    private readonly state: OrderEntryState,
    /** Where book commands go now (replay's in-process books, then the market threads). */
    private readonly router: () => MarketRouter,
    /** Orders numbered per market; the next orderId is orderIdOf(market, count + 1). Snapshotted by the exchange. */
    private readonly orderCounts: number[],
  ) {}

  submitOrder(cmd: SubmitOrder): ExecuteResult {
    const triggerKind = TRIGGER_KINDS[cmd.orderType];
    if (cmd.orderType !== 'limit' && triggerKind === undefined) return notChanged(ExchangeCode.OrderTypeNotSupported, { orderType: cmd.orderType });
    const admitted = admitSignedWrite(this.state, signedOrder(cmd), cmd.time);
    if (!admitted.ok) return notChanged(admitted.code, admitted.params);
    // From here the nonce is spent: every outcome is journaled.
    const entered = this.enter([cmd], cmd.time);
    if (!('states' in entered)) return entered;
    const { market } = entered;
    const [orderId] = entered.orderIds;
    const [order] = entered.states;
    if (triggerKind !== undefined) {
      const code = this.state.conditional[market].place(this.trigger(cmd, entered, 0, triggerKind, cmd.time));
      if (code !== ConditionalCode.Ok) {
        this.state.orders.refused(order, REFUSAL_TEXT[code]);
        return { code, changed: true, orderId, routed: [] };
      }
      this.state.orders.untriggered(order);
      return { code: 0, changed: true, orderId, routed: [] };
    }
    // What a placement adds, assigned onto the one object `fields` made (a spread copied it whole, per order).
    const placed: PlaceOrder = Object.assign(this.fields(cmd, entered, 0), { position: 0, time: cmd.time });
    const code = this.holdMargin(market, placed, cmd.originator, cmd.originatorFee);
    if (code !== LedgerCode.Ok) {
      this.state.orders.refused(order, 'insufficientMargin');
      return { code, changed: true, orderId, routed: [] };
    }
    this.state.orders.submitted(order);
    this.toBook(market, placed);
    return { code: 0, changed: true, orderId, routed: [market] };
  }

  /** A TP/SL pair: both legs admitted and placed, or neither. */
  submitPair(cmd: SubmitPair): ExecuteResult {
    const { takeProfit: tp, stopLoss: sl, time } = cmd;
    if (
      tp.orderType !== 'takeProfit' ||
      sl.orderType !== 'stopLoss' ||
      tp.account !== sl.account ||
      tp.subaccountIndex !== sl.subaccountIndex ||
      tp.market !== sl.market ||
      (tp.parentOrderId ?? NO_ORDER) !== (sl.parentOrderId ?? NO_ORDER)
    ) {
      return notChanged(ConditionalCode.InvalidPair);
    }
    const admitted = admitSignedBatch(this.state, [signedOrder(tp), signedOrder(sl)], time);
    if (!admitted.ok) return notChanged(admitted.code, admitted.params);
    const entered = this.enter([tp, sl], time);
    if (!('states' in entered)) return entered;
    const { owner, market, orderIds } = entered;
    const parentOrderId = tp.parentOrderId ?? NO_ORDER;
    const parent = parentOrderId === NO_ORDER ? undefined : this.state.orders.get(parentOrderId);
    const onBook = parent !== undefined && parent.market === market && ON_BOOK.has(parent.status);
    const code = this.state.conditional[market].placePair({
      ocoGroupId: orderIds[0],
      takeProfit: this.trigger(tp, entered, 0, TriggerKind.TakeProfit, time),
      stopLoss: this.trigger(sl, entered, 1, TriggerKind.StopLoss, time),
      parentOrderId,
      parent: onBook ? { orderId: parent.orderId, owner: parent.owner, side: parent.side, filled: parent.filled } : undefined,
      position: this.state.ledger.position(owner, market),
      time,
    });
    return this.held(code, entered, (s) => (s.ocoGroupId = formatOrderId(orderIds[0])));
  }

  /** A TWAP or an iceberg: every child admitted and held; the first enters its book now. */
  submitSlices(cmd: SubmitSlices): ExecuteResult {
    const { orders, time } = cmd;
    const first = orders[0];
    if (first === undefined || orders.some((o) => o.orderType !== cmd.orderType || o.account !== first.account || o.subaccountIndex !== first.subaccountIndex || o.market !== first.market)) {
      return notChanged(ConditionalCode.InvalidSlices);
    }
    const admitted = admitSignedBatch(this.state, orders.map(signedOrder), time);
    if (!admitted.ok) return notChanged(admitted.code, admitted.params);
    const entered = this.enter(orders, time);
    if (!('states' in entered)) return entered;
    const { owner, market, orderIds } = entered;
    const slices = { groupId: orderIds[0], owner, slices: orders.map((o, i) => this.fields(o, entered, i)), period: first.period ?? 0, time };
    const book = this.state.conditional[market];
    const code = cmd.orderType === 'twap' ? book.placeTwap(slices) : book.placeIceberg(slices);
    return this.held(code, entered, (s) => (s.groupId = formatOrderId(orderIds[0])));
  }

  /**
   * A conditional order its book released enters the book as a submitted limit order would,
   * under its own orderId. False when its margin cannot be held: it is rejected, and an
   * iceberg child that cannot enter ends its iceberg.
   */
  enterReleased(market: MarketIndex, order: PlaceOrder, triggerPrice: number): boolean {
    const state = this.state.orders.get(order.orderId);
    if (state === undefined) throw new Error(`exchange: released order ${order.orderId} is not in the registry`);
    if (this.holdMargin(market, order, state.originator, state.originatorFee) !== LedgerCode.Ok) {
      this.state.orders.closed(order.orderId, 'rejected', 'insufficientMargin', order.time);
      this.state.conditional[market].onOrderGone(order.orderId, order.time);
      return false;
    }
    this.state.orders.triggered(order.orderId, order.quantity, order.time, triggerPrice);
    this.toBook(market, order);
    return true;
  }

  /** A liquidation the ledger asked for: a reduce-only IOC at its price, in group `liquidation`. False when the ledger refuses it. */
  enterLiquidation(liq: LiquidationOrder, time: number): boolean {
    const { ledger, orders } = this.state;
    const orderId = orderIdOf(liq.market, ++this.orderCounts[liq.market]);
    if (ledger.admitOrder(orderId, liq.owner, liq.market, liq.side, liq.price, liq.quantity, true, time, { liquidation: true }) !== LedgerCode.Ok) return false;
    const identity = ledger.identity(liq.owner)!;
    const flags = OrderFlag.ImmediateOrCancel | OrderFlag.ReduceOnly;
    const terms: OrderTerms = {
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
      originator: ZERO_ADDRESS,
      originatorFee: 0,
      triggerPrice: null,
      parentOrderId: null,
      period: null,
      trailingPercent: null,
    };
    orders.submitted({ ...this.orderState(terms, orderId, liq.owner, time), groupId: 'liquidation' });
    const placed = { orderId, owner: liq.owner, account: liq.account, side: liq.side, price: liq.price, quantity: liq.quantity, flags, expiresAt: 0, clientId: null, position: 0, time };
    this.toBook(liq.market, placed);
    return true;
  }

  /** R1: holds the initial margin of an order about to enter its book (and its originator's fee); a LedgerCode. */
  private holdMargin(market: MarketIndex, order: PlaceOrder, originator: Address, originatorFee: number): number {
    const ledger = this.state.ledger;
    const originatorOwner = originatorFee > 0 ? (ledger.findOwner(originator, 0) ?? NO_OWNER) : NO_OWNER;
    const reduceOnly = (order.flags & OrderFlag.ReduceOnly) !== 0;
    return ledger.admitOrder(order.orderId, order.owner, market, order.side, order.price, order.quantity, reduceOnly, order.time, {
      originator: originatorOwner,
      originatorFee: BigInt(originatorFee),
    });
  }

  /** Sends an order whose margin is held to its book, with what moved its owner's position outside that book (`Ledger.positionOffBook`). */
  private toBook(market: MarketIndex, order: PlaceOrder): void {
    order.position = this.state.ledger.positionOffBook(order.owner, market);
    this.router().place(market, order);
  }

  /** The end of a pair or slices submission: every order held by its conditional book, or every one refused. */
  private held(code: number, entered: Entered, mark: (s: OrderState) => void): ExecuteResult {
    const { orderIds, states } = entered;
    if (code !== ConditionalCode.Ok) {
      for (const s of states) this.state.orders.refused(s, REFUSAL_TEXT[code]);
      return { code, changed: true, orderId: orderIds[0], orderIds, routed: [] };
    }
    for (const s of states) {
      mark(s);
      this.state.orders.untriggered(s);
    }
    return { code: 0, changed: true, orderId: orderIds[0], orderIds, routed: [] };
  }

  /**
   * The step every submission shares once its nonces are spent: the subaccount, an orderId per
   * order (request order), and the checks that refuse the whole submission (a clientId already
   * live or repeated, an unknown originator) — reported as `rejected` and journaled.
   */
  private enter(orders: readonly BatchOrder[], time: number): Entered | ExecuteResult {
    const { ledger } = this.state;
    const first = orders[0];
    const identity = ledger.register(first.account, first.subaccountIndex);
    if (typeof identity === 'number') return { code: identity, changed: true, routed: [] };
    const market = first.market;
    const orderIds = orders.map(() => orderIdOf(market, ++this.orderCounts[market]));
    const states = orders.map((o, i) => this.orderState(o, orderIds[i], identity.owner, time));
    const entered: Entered = { owner: identity.owner, account: identity.account, market, orderIds, states };
    const bounded = openOrdersRefusal(this.state.accountLimits, this.state.orders.openCount(identity.owner), orders.length);
    if (bounded !== undefined) return this.refuse(entered, bounded.code, 'tooManyOpenOrders', bounded.params);
    // A single order cannot repeat its own clientId: the set is for batches.
    const clientIds = orders.length > 1 ? new Set<string>() : undefined;
    for (const o of orders) {
      if (o.clientId === null) continue;
      if (clientIds?.has(o.clientId) || this.state.orders.byClient(o.account, o.clientId) !== undefined) return this.refuse(entered, ExchangeCode.DuplicateClientId, 'duplicateClientId');
      clientIds?.add(o.clientId);
    }
    for (const o of orders) {
      // The gateway refuses these before the signature; a journaled order is held to it too.
      if (o.originatorFee > this.state.markets[market].maxOriginatorFee) return this.refuse(entered, ExchangeCode.OriginatorFeeTooHigh, 'originatorFeeTooHigh');
      if (o.originatorFee > 0 && ledger.findOwner(o.originator, 0) === undefined) return this.refuse(entered, ExchangeCode.OriginatorNotFound, 'originatorNotFound');
    }
    return entered;
  }

  /** `enter`'s refusal of a whole submission: every order rejected for `reason`, journaled. */
  private refuse(entered: Entered, code: number, reason: string, params?: Readonly<Record<string, string>>): ExecuteResult {
    const { orderIds, states } = entered;
    for (const s of states) this.state.orders.refused(s, reason);
    return { code, params, changed: true, orderId: orderIds[0], orderIds, routed: [] };
  }

  /** Order `i` of an admitted submission as the books take it. */
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

  private orderState(cmd: OrderTerms, orderId: OrderId, owner: OwnerIndex, time: number): OrderState {
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
      filled: 0,
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
      createdAt: time,
      updatedAt: time,
      lastUpdateSequenceNumber: 0,
    };
  }
}
