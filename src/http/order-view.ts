/**
 * @module http/order-view
 *
 * An order as the API shows it (the spec's Order), from the registry's or history's record:
 * prices and quantities become decimal strings, the orderId hex, the quantity signed.
 */
import { lotsToQuantity, ticksToPrice, type MarketSpec } from '../config/market.ts';
import { OrderFlag, SELF_TRADE_EXPIRE_MAKER, formatOrderId } from '../engine/types.ts';
import type { OrderState } from '../app/order-registry.ts';

export type OrderLike = Pick<
  OrderState,
  | 'orderId'
  | 'market'
  | 'account'
  | 'subaccountIndex'
  | 'orderType'
  | 'side'
  | 'price'
  | 'quantity'
  | 'remaining'
  | 'filled'
  | 'flags'
  | 'expiresAt'
  | 'nonce'
  | 'clientId'
  | 'originator'
  | 'originatorFee'
  | 'triggerPrice'
  | 'parentOrderId'
  | 'period'
  | 'trailingPercent'
  | 'groupId'
  | 'ocoGroupId'
  | 'status'
  | 'reason'
  | 'createdAt'
  | 'updatedAt'
  | 'lastUpdateSequenceNumber'
>;

export function orderView(markets: readonly MarketSpec[], o: OrderLike) {
  const market = markets[o.market];
  return {
    account: o.account,
    clientId: o.clientId,
    createdAt: o.createdAt,
    expiresAt: o.expiresAt,
    flags: {
      ioc: (o.flags & OrderFlag.ImmediateOrCancel) !== 0,
      postOnly: (o.flags & OrderFlag.PostOnly) !== 0,
      reduceOnly: (o.flags & OrderFlag.ReduceOnly) !== 0,
      selfTradeExpire: SELF_TRADE_EXPIRE_MAKER,
    },
    groupId: o.groupId ?? '',
    lastUpdateSequenceNumber: o.lastUpdateSequenceNumber,
    nonce: o.nonce,
    ocoGroupId: o.ocoGroupId ?? '',
    orderId: formatOrderId(o.orderId),
    orderType: o.orderType,
    originator: o.originator,
    originatorFee: o.originatorFee,
    parentOrderId: o.parentOrderId === null ? null : formatOrderId(o.parentOrderId),
    period: o.period,
    price: ticksToPrice(market, o.price),
    quantity: lotsToQuantity(market, o.side * o.quantity),
    reason: o.reason ?? '',
    remaining: lotsToQuantity(market, o.remaining),
    // The spec names the lots filled so far `settled`.
    settled: lotsToQuantity(market, o.filled),
    // `triggered` is the registry's instant between release and the book (schemas.ts API_ORDER_STATUSES).
    status: o.status === 'triggered' ? 'new' : o.status,
    subaccountIndex: o.subaccountIndex,
    symbol: market.symbol,
    trailingPercent: o.trailingPercent,
    triggerPrice: o.triggerPrice === null ? null : ticksToPrice(market, o.triggerPrice),
    updatedAt: o.updatedAt,
  };
}
