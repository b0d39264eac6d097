/**
 * @module engine/order-rules
 *
 * The stateless rules both books apply the same way: the shape checks of a placement, when a
 * limit crosses a price, how depth groups prices, and how a resting
 * order is shown (`OrderView`). What needs book state (duplicate ids, clientIds, the best
 * opposite price) stays in each book, so the naive reference keeps checking the fast one.
 *
 * May import: engine/. Nothing outside the engine.
 */
import { EngineCode } from './codes.ts';
import type { AccountIndex, OrderId, OrderView, OwnerIndex, PlaceOrder, Side } from './types.ts';

/** A lot count or a tick count: a positive integer a number holds exactly. */
function isPositiveUnits(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}

/** The first three placement checks, in the contract's order: quantity, price, minimum size. */
export function shapeRejection(cmd: PlaceOrder, minSizeLots: number): number {
  if (!isPositiveUnits(cmd.quantity)) return EngineCode.InvalidQuantity;
  if (!isPositiveUnits(cmd.price)) return EngineCode.InvalidPrice;
  if (cmd.quantity < minSizeLots) return EngineCode.BelowMinSize;
  return EngineCode.Ok;
}

/** Whether a limit of `side` at `limit` trades against a resting opposite order at `price`. */
export function crosses(side: Side, limit: number, price: number): boolean {
  return side === 1 ? price <= limit : price >= limit;
}

/**
 * The depth bucket of a price: bids round down, asks up, to a multiple of `tickMultiple`.
 * `%` is exact on integers, unlike `Math.floor(price / m) * m` near 2^53.
 */
export function depthBucket(side: Side, price: number, tickMultiple: number): number {
  const rest = price % tickMultiple;
  if (rest === 0) return price;
  return side === 1 ? price - rest : price - rest + tickMultiple;
}

/** `tickMultiple` as depth uses it: a positive integer (anything else groups by 1). */
export function depthMultiple(tickMultiple: number): number {
  return Number.isSafeInteger(tickMultiple) && tickMultiple > 0 ? tickMultiple : 1;
}

/** The fields a book keeps per resting order; `OrderView` adds the derived ones. */
export interface RestingFields {
  orderId: OrderId;
  owner: OwnerIndex;
  account: AccountIndex;
  side: Side;
  price: number;
  quantity: number;
  remaining: number;
  flags: number;
  expiresAt: number;
  clientId: string | null;
  createdAt: number;
  updatedAt: number;
  lastUpdateSequenceNumber: number;
}

/** A fresh `OrderView` of a resting order (filled and status derived from the counts). */
export function orderView(o: RestingFields): OrderView {
  return {
    orderId: o.orderId,
    owner: o.owner,
    account: o.account,
    side: o.side,
    price: o.price,
    quantity: o.quantity,
    remaining: o.remaining,
    filled: o.quantity - o.remaining,
    flags: o.flags,
    expiresAt: o.expiresAt,
    clientId: o.clientId,
    status: o.remaining === o.quantity ? 'new' : 'partiallyFilled',
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    lastUpdateSequenceNumber: o.lastUpdateSequenceNumber,
  };
}
