/**
 * @module app/order-registry
 *
 * The main thread's read model of orders: what each order is (the signed request's fields)
 * and where it stands (status, remaining, lots filled, times, sequence number), kept up to date
 * from the book's events. It answers GET /account/order for live orders without asking a
 * market thread, keeps clientIds unique among an account's open orders across markets, and
 * hands every change to a listener (the history projection, the feeds).
 *
 * Conditional orders (takeProfit, stopLoss, trailingStop, pair legs, pending TWAP / iceberg
 * children) are held here from placement as `untriggered`; when released they become
 * `triggered` under the same orderId and the book's events drive them from there (`new`,
 * `partiallyFilled`, …). Ending untriggered (cancel, expiry, the other OCO leg firing) is
 * `closed` with the conditional reason.
 *
 * Deterministic: it changes only through `submitted`, the conditional book's outputs and the
 * book events, so replaying the journal rebuilds it exactly. Terminal orders leave the open
 * orders once reported; the newest 8,192 of them stay readable (`lastKnown`) for a write's
 * outcome and reads soon after.
 */
import type { Side } from '../engine/types.ts';
import type { OrderStatus, OrderType } from '../types/orders.ts';
import { REASON_TEXT } from '../engine/codes.ts';
import type { MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';
import type { Address } from '../types/address.ts';

export interface OrderState {
  orderId: OrderId;
  market: MarketIndex;
  owner: OwnerIndex;
  account: Address;
  subaccountIndex: number;
  orderType: OrderType;
  side: Side;
  price: number;
  /** Lots accepted (after a reduce-only cap); the requested size until the book accepts it. */
  quantity: number;
  remaining: number;
  /** Lots filled so far (the API's Order field `settled`, and the name it is stored under: `StoredOrder`). */
  filled: number;
  flags: number;
  expiresAt: number;
  nonce: number;
  clientId: string | null;
  originator: Address;
  originatorFee: number;
  triggerPrice: number | null;
  parentOrderId: OrderId | null;
  period: number | null;
  trailingPercent: string | null;
  groupId: string | null;
  ocoGroupId: string | null;
  status: OrderStatus;
  reason: string | null;
  createdAt: number;
  updatedAt: number;
  lastUpdateSequenceNumber: number;
}

export type OrderChangeListener = (order: OrderState) => void;

/**
 * An order as snapshots and history (history.orders, the subaccount event log) store it, and as
 * the state hash reads it: `filled` under the name these were first written with, `settled`
 * (the API's word). Keeping the stored name keeps every data directory written before readable
 * as it is — no snapshot skipped, no history rebuilt — and the state hash unchanged; the two
 * functions below are the only places the two names meet.
 */
export type StoredOrder = Omit<OrderState, 'filled'> & { settled: number };

/**
 * `o` as stored: a copy, every field in its place — the state hash is taken over its JSON text,
 * so the order of the fields is OrderState's (the one place an order is made, app/order-entry,
 * writes them in it). Spelled out: a copy per order change on the projection thread and per open
 * order in a state hash: 1.8 µs each through Object.entries, under 25 ns spelled out.
 */
export function storedOrder(o: Readonly<OrderState>): StoredOrder {
  return {
    orderId: o.orderId,
    market: o.market,
    owner: o.owner,
    account: o.account,
    subaccountIndex: o.subaccountIndex,
    orderType: o.orderType,
    side: o.side,
    price: o.price,
    quantity: o.quantity,
    remaining: o.remaining,
    settled: o.filled,
    flags: o.flags,
    expiresAt: o.expiresAt,
    nonce: o.nonce,
    clientId: o.clientId,
    originator: o.originator,
    originatorFee: o.originatorFee,
    triggerPrice: o.triggerPrice,
    parentOrderId: o.parentOrderId,
    period: o.period,
    trailingPercent: o.trailingPercent,
    groupId: o.groupId,
    ocoGroupId: o.ocoGroupId,
    status: o.status,
    reason: o.reason,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    lastUpdateSequenceNumber: o.lastUpdateSequenceNumber,
  };
}

/** A stored order as the registry holds it: a copy, fields in their places. */
export function orderOfStored(o: Readonly<StoredOrder>): OrderState {
  return {
    orderId: o.orderId,
    market: o.market,
    owner: o.owner,
    account: o.account,
    subaccountIndex: o.subaccountIndex,
    orderType: o.orderType,
    side: o.side,
    price: o.price,
    quantity: o.quantity,
    remaining: o.remaining,
    filled: o.settled,
    flags: o.flags,
    expiresAt: o.expiresAt,
    nonce: o.nonce,
    clientId: o.clientId,
    originator: o.originator,
    originatorFee: o.originatorFee,
    triggerPrice: o.triggerPrice,
    parentOrderId: o.parentOrderId,
    period: o.period,
    trailingPercent: o.trailingPercent,
    groupId: o.groupId,
    ocoGroupId: o.ocoGroupId,
    status: o.status,
    reason: o.reason,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    lastUpdateSequenceNumber: o.lastUpdateSequenceNumber,
  };
}

/**
 * Finished orders kept in memory, the newest ones: a write's outcome reports the orders as its
 * command left it, which may be finished by then (an IOC filled at once), and reads soon after
 * need no history lookup. 8,192 is far more than can finish between a command's own events and
 * its completion in practice (a command's events and its Done are published together); a reply
 * that misses one reads it from history, written by then (http/routes/order-common `reported`).
 */
const RECENTLY_FINISHED = 8192;

const TERMINAL: ReadonlySet<OrderStatus> = new Set(['filled', 'cancelled', 'expired', 'rejected']);

export function isTerminal(status: OrderStatus): boolean {
  return TERMINAL.has(status);
}

function clientKey(account: Address, clientId: string): string {
  return `${account}\u0000${clientId}`;
}

export class OrderRegistry {
  private readonly open = new Map<number, OrderState>();
  private readonly byClientId = new Map<string, number>();
  /**
   * Open orders per owner, each in the order it was submitted (no empty entries): the open-order
   * bound (app/account-limits), a subaccount's cancel-all, its reduce-only check after a fill and
   * its open-order listing read one owner's orders, never all of the exchange's.
   */
  private readonly perOwner = new Map<OwnerIndex, Map<number, OrderState>>();
  /** The last `RECENTLY_FINISHED` finished orders by id, and their ids in the order they finished (a ring). */
  private readonly finished = new Map<number, OrderState>();
  private readonly finishedIds = new Float64Array(RECENTLY_FINISHED);
  private finishedNext = 0;

  constructor(private readonly onChange: OrderChangeListener = () => {}) {}

  get size(): number {
    return this.open.size;
  }

  /** The order if open, or if among the last 8,192 to finish (then in its final state). */
  lastKnown(orderId: OrderId): OrderState | undefined {
    return this.open.get(orderId) ?? this.finished.get(orderId);
  }

  get(orderId: OrderId): OrderState | undefined {
    return this.open.get(orderId);
  }

  /** The open order of `account` with this clientId, if any (any subaccount, any market). */
  byClient(account: Address, clientId: string): OrderState | undefined {
    const id = this.byClientId.get(clientKey(account, clientId));
    return id === undefined ? undefined : this.open.get(id);
  }

  /** How many orders `owner` has open (resting, untriggered, on their way to a book). */
  openCount(owner: OwnerIndex): number {
    return this.perOwner.get(owner)?.size ?? 0;
  }

  /** Open orders of one subaccount (optionally one market), oldest first. O(its open orders). */
  ofOwner(owner: OwnerIndex, market?: MarketIndex): OrderState[] {
    const out: OrderState[] = [];
    const own = this.perOwner.get(owner);
    if (own !== undefined) for (const o of own.values()) if (market === undefined || o.market === market) out.push(o);
    return out;
  }

  /** A new order entered the pipeline (status `new` until the book says otherwise). */
  submitted(order: OrderState): void {
    let own = this.perOwner.get(order.owner);
    if (own === undefined) this.perOwner.set(order.owner, (own = new Map()));
    own.set(order.orderId, order);
    this.open.set(order.orderId, order);
    if (order.clientId !== null) this.byClientId.set(clientKey(order.account, order.clientId), order.orderId);
  }

  /** A conditional order (or a pending TWAP / iceberg child) placed: held and reported as `untriggered`. */
  untriggered(order: OrderState): void {
    order.status = 'untriggered';
    this.submitted(order);
    this.onChange(order);
  }

  /**
   * A conditional order released to its book with `quantity` lots: `triggered` until the book
   * answers. A trailing stop keeps the trigger it fired at (`triggerPrice`, ticks; 0 for a slice).
   */
  triggered(orderId: OrderId, quantity: number, time: number, triggerPrice: number): void {
    const o = this.open.get(orderId);
    if (o === undefined) return;
    o.status = 'triggered';
    if (o.triggerPrice === null && triggerPrice > 0) o.triggerPrice = triggerPrice;
    o.quantity = quantity;
    o.remaining = quantity;
    o.updatedAt = time;
    this.onChange(o);
  }

  /** An order that never reached a book ended (an untriggered order cancelled or expired, a release refused by R1). */
  closed(orderId: OrderId, status: 'cancelled' | 'expired' | 'rejected', reason: string, time: number): void {
    const o = this.open.get(orderId);
    if (o === undefined) return;
    o.status = status;
    o.reason = reason;
    if (status === 'rejected') o.remaining = 0;
    o.updatedAt = time;
    this.finish(o);
  }

  /** A submission refused before it reached a book: reported once as `rejected`, never held. */
  refused(order: OrderState, reason: string): void {
    order.status = 'rejected';
    order.reason = reason;
    order.remaining = 0;
    this.rememberFinished(order);
    this.onChange(order);
  }

  accepted(orderId: OrderId, quantity: number, seq: number, time: number): void {
    const o = this.open.get(orderId);
    if (o === undefined) return;
    // A released conditional order is an ordinary book order from here.
    if (o.status === 'triggered') o.status = 'new';
    o.quantity = quantity;
    o.remaining = quantity;
    this.touch(o, seq, time);
  }

  rested(orderId: OrderId, seq: number, time: number): void {
    const o = this.open.get(orderId);
    if (o === undefined) return;
    this.touch(o, seq, time);
    this.onChange(o);
  }

  filled(orderId: OrderId, quantity: number, remaining: number, seq: number, time: number): void {
    const o = this.open.get(orderId);
    if (o === undefined) return;
    o.filled += quantity;
    o.remaining = remaining;
    o.status = remaining === 0 ? 'filled' : 'partiallyFilled';
    this.touch(o, seq, time);
    if (remaining === 0) this.finish(o);
    else this.onChange(o);
  }

  ended(orderId: OrderId, status: 'cancelled' | 'expired' | 'rejected', reasonCode: number, seq: number, time: number): void {
    const o = this.open.get(orderId);
    if (o === undefined) return;
    o.status = status;
    o.reason = REASON_TEXT[reasonCode] ?? String(reasonCode);
    if (status === 'rejected') o.remaining = 0;
    this.touch(o, seq, time);
    this.finish(o);
  }

  private touch(o: OrderState, seq: number, time: number): void {
    o.lastUpdateSequenceNumber = seq;
    o.updatedAt = time;
  }

  private finish(o: OrderState): void {
    if (this.open.delete(o.orderId)) {
      const own = this.perOwner.get(o.owner)!;
      own.delete(o.orderId);
      if (own.size === 0) this.perOwner.delete(o.owner);
    }
    if (o.clientId !== null && this.byClientId.get(clientKey(o.account, o.clientId)) === o.orderId) {
      this.byClientId.delete(clientKey(o.account, o.clientId));
    }
    this.rememberFinished(o);
    this.onChange(o);
  }

  private rememberFinished(o: OrderState): void {
    if (this.finished.has(o.orderId)) {
      this.finished.set(o.orderId, o);
      return;
    }
    // The slot the new order takes holds the oldest one kept: forget that one.
    const slot = this.finishedNext;
    if (this.finished.size >= RECENTLY_FINISHED) this.finished.delete(this.finishedIds[slot]);
    this.finishedIds[slot] = o.orderId;
    this.finishedNext = (slot + 1) % RECENTLY_FINISHED;
    this.finished.set(o.orderId, o);
  }

  /** The open orders as they are held, in no particular order and not copied: for checks that read every one (the exchange's invariants, after every command in the simulator). */
  openOrders(): IterableIterator<Readonly<OrderState>> {
    return this.open.values();
  }

  /** Open orders in id order, as stored: the registry's part of a snapshot and of the state hash. */
  snapshot(): StoredOrder[] {
    return [...this.open.values()].sort((a, b) => a.orderId - b.orderId).map(storedOrder);
  }

  static restore(orders: readonly StoredOrder[], onChange?: OrderChangeListener): OrderRegistry {
    const registry = new OrderRegistry(onChange);
    for (const o of orders) registry.submitted(orderOfStored(o));
    return registry;
  }
}
