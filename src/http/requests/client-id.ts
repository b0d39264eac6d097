/**
 * @module http/requests/client-id
 *
 * The idempotency rule of `clientId` (docs/api.md "Idempotency"): a submission whose clientId
 * is already on an open order of the account is a replay when it asks for the same order — the
 * same signed terms: subaccountIndex, symbol, orderType, side and size (quantity), price, flags,
 * expiresAt, originator, originatorFee, triggerPrice, parentOrderId, period, trailingPercent —
 * and then answers that order; any other difference is a 409 naming the clientId, the order and
 * the fields that differ. The nonce and the signature are not terms: a client retrying after a
 * timeout re-signs with a fresh nonce and must still get its order, not a second one.
 * Terms compare by value in the market's units, so a price sent as "1.50" then "1.5" is the same.
 * A reduce-only order's quantity is the size the book accepted (capped to the position), so a
 * replay asking for more than the accepted size of a reduce-only order is still the same order.
 * May import: types/ids, http/, engine/types, app/order-registry (types), numeric/decimal, config/market.
 */
import { formatDecimal } from '../../numeric/decimal.ts';
import { RATE_SCALE } from '../../config/market.ts';
import { formatOrderId, OrderFlag } from '../../engine/types.ts';
import type { OrderState } from '../../app/order-registry.ts';
import type { DocumentedError } from '../errors.ts';
import type { HttpReply } from '../uws.ts';
import type { OrderIntent } from './order.ts';
import type { OrderId } from '../../types/ids.ts';

type Existing = Pick<
  OrderState,
  'orderId' | 'market' | 'subaccountIndex' | 'orderType' | 'side' | 'price' | 'quantity' | 'flags' | 'expiresAt' | 'originator' | 'originatorFee' | 'triggerPrice' | 'parentOrderId' | 'period' | 'trailingPercent'
>;

/** The names of the terms in which `intent` asks for another order than `existing`, in body order. */
export function differingTerms(existing: Existing, intent: OrderIntent): string[] {
  const capped = (existing.flags & OrderFlag.ReduceOnly) !== 0 && existing.quantity < intent.quantity;
  const trailing = intent.trailingPercent === null ? null : formatDecimal(intent.trailingPercent, RATE_SCALE);
  // Prices and sizes are ticks and lots of a market: another market's are not comparable.
  const sameMarket = existing.market === intent.market.index;
  const terms: [string, boolean][] = [
    ['subaccountIndex', existing.subaccountIndex === intent.subaccountIndex],
    ['symbol', sameMarket],
    ['orderType', existing.orderType === intent.orderType],
    ['price', !sameMarket || existing.price === intent.price],
    ['quantity', !sameMarket || (existing.side === intent.side && (existing.quantity === intent.quantity || capped))],
    ['expiresAt', existing.expiresAt === intent.expiresAt],
    ['flags', existing.flags === intent.flags],
    ['originator', existing.originator === intent.originator],
    ['originatorFee', existing.originatorFee === intent.originatorFee],
    ['triggerPrice', !sameMarket || existing.triggerPrice === intent.triggerPrice],
    ['parentOrderId', existing.parentOrderId === intent.parentOrderId],
    ['period', (existing.period ?? 0) === (intent.period ?? 0)],
    ['trailingPercent', existing.trailingPercent === trailing],
  ];
  return terms.filter(([, same]) => !same).map(([name]) => name);
}

/** The 409's text: naming the order when the caller may see it (`orderId`), and what differs when something does (`fields`). */
function inUse(clientId: string, orderId?: string, fields?: string): string {
  const order = orderId === undefined ? 'an open order of this account' : `open order ${orderId}`;
  const why = fields === undefined ? '' : ` with a different ${fields}`;
  return `clientId ${clientId} is already used by ${order}${why}: resend the same order to get it back, or use a new clientId`;
}

/** The forms of `clientIdInUse`'s text, as the API document lists them. */
export const CLIENT_ID_IN_USE: readonly DocumentedError[] = [inUse('<id>', '<orderId>', '<fields>'), inUse('<id>', '<orderId>'), inUse('<id>')].map((text) => [409, text]);

/**
 * The 409 of a clientId already on an open order, naming it, and the order and what differs when
 * the caller may see that order (`orderId` undefined when it belongs to a subaccount it may not).
 */
export function clientIdInUse(clientId: string, orderId?: OrderId, differing: readonly string[] = []): HttpReply {
  return {
    status: 409,
    body: inUse(clientId, orderId === undefined ? undefined : formatOrderId(orderId), differing.length === 0 ? undefined : differing.join(', ')),
    contentType: 'text/plain; charset=utf-8',
  };
}
