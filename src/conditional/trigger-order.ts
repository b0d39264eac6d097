/**
 * @module conditional/trigger-order
 *
 * One untriggered takeProfit, stopLoss or trailingStop: the fields it will enter the book
 * with, its trigger, its OCO pair if any, and the intrusive links of the structures that index
 * it (heap slots, trailing bucket, pairing-heap links) so that no index allocates per order
 * beyond this record.
 * May import: types/ids, conditional/, engine/types (types).
 */
import type { PlaceOrder, Side } from '../engine/types.ts';
import type { OcoPair } from './oco-pair.ts';
import type { Bucket } from './trailing-bucket.ts';
import { senseOf, trailingTrigger } from './trigger-math.ts';
import { TriggerKind } from './types.ts';
import type { PlaceTrigger, TriggerView } from './types.ts';
import { NO_ORDER, type AccountIndex, type OrderId, type OwnerIndex } from '../types/ids.ts';

export class TriggerOrder {
  readonly orderId: OrderId;
  readonly owner: OwnerIndex;
  readonly account: AccountIndex;
  readonly side: Side;
  readonly kind: TriggerKind;
  readonly price: number;
  readonly quantity: number;
  readonly flags: number;
  readonly expiresAt: number;
  readonly clientId: string | null;
  /** Ticks; 0 for a trailing stop (its trigger follows its anchor). */
  readonly triggerPrice: number;
  /** RATE_SCALE units as a number (exact: below 10^8); 0 unless trailing. */
  readonly percent: number;
  readonly createdAt: number;
  /** +1: fires when the mark falls to the trigger; −1: when it rises to it. */
  readonly sense: 1 | -1;
  /** Fixed triggers: sense × triggerPrice, the key the index orders by. */
  readonly key: number;

  /** The TP/SL pair it belongs to, or null. */
  pair: OcoPair<TriggerOrder> | null = null;
  /** Lots it enters the book with (a parent-attached leg: what the parent has filled, capped). */
  armedQuantity: number;
  /** In the trigger index, so a mark can fire it (a parent-attached leg waits for the parent's first fill). */
  armed = false;
  /** The trigger price (ticks) the mark crossed, set by the index that fires it (0 before). */
  firedTrigger = 0;

  /** Position in the index's heap or list (−1 when in none). */
  slot = -1;
  /** Position in the expiry heap (−1 when in none). */
  expirySlot = -1;
  /** Trailing stops in the fast index: the bucket joined (follow `Bucket.into` to the live one). */
  bucket: Bucket<TriggerOrder> | null = null;
  /** Pairing-heap links inside a trailing bucket: first child, next sibling, previous (parent if first child). */
  child: TriggerOrder | null = null;
  next: TriggerOrder | null = null;
  prev: TriggerOrder | null = null;

  constructor(cmd: PlaceTrigger, percent: number) {
    this.orderId = cmd.orderId;
    this.owner = cmd.owner;
    this.account = cmd.account;
    this.side = cmd.side;
    this.kind = cmd.kind;
    this.price = cmd.price;
    this.quantity = cmd.quantity;
    this.flags = cmd.flags;
    this.expiresAt = cmd.expiresAt;
    this.clientId = cmd.clientId;
    this.triggerPrice = cmd.triggerPrice;
    this.percent = percent;
    this.createdAt = cmd.time;
    this.sense = senseOf(cmd.kind, cmd.side);
    this.key = this.sense * cmd.triggerPrice;
    this.armedQuantity = cmd.quantity;
  }

  get trailing(): boolean {
    return this.kind === TriggerKind.TrailingStop;
  }
}

/** What the order shows while untriggered; `anchor` is a trailing stop's (0 for the others). */
export function triggerView(o: TriggerOrder, anchor: number): TriggerView {
  return {
    orderId: o.orderId,
    owner: o.owner,
    account: o.account,
    side: o.side,
    kind: o.kind,
    price: o.price,
    quantity: o.quantity,
    flags: o.flags,
    expiresAt: o.expiresAt,
    clientId: o.clientId,
    triggerPrice: o.trailing ? trailingTrigger(anchor, o.percent, o.sense) : o.triggerPrice,
    trailingPercent: BigInt(o.percent),
    anchor,
    ocoGroupId: o.pair === null ? NO_ORDER : o.pair.ocoGroupId,
    parentOrderId: o.pair === null ? NO_ORDER : o.pair.parentOrderId,
    armedQuantity: o.armedQuantity,
    createdAt: o.createdAt,
  };
}

/** The book order a fired trigger enters as: its armed lots, at `time`. */
export function toPlaceOrder(o: TriggerOrder, time: number): PlaceOrder {
  return {
    orderId: o.orderId,
    owner: o.owner,
    account: o.account,
    side: o.side,
    price: o.price,
    quantity: o.armedQuantity,
    flags: o.flags,
    expiresAt: o.expiresAt,
    clientId: o.clientId,
    position: 0,
    time,
  };
}
