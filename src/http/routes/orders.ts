/**
 * The order routes: submit one or a batch (signed, routes/order-submit), get and list
 * (routes/order-reads), cancel one / a batch / all (routes/order-cancel), over the lookups they
 * share (routes/order-common).
 *
 * Writes are authorised twice: the bearer token's caller must be the order's account or its
 * `trade` delegate on that subaccount (else 403 `Not delegated for account and subaccount`, or
 * `Delegation not allowed for request` for a delegate without `trade`), checked before the
 * signature is recovered, and the EIP-712 signer must be the account or its trade delegate.
 * Reads and cancels are authorised by the token alone (the caller is the account or a delegate
 * of that subaccount with the scope; `trade` includes `read`), refused by the one rule of
 * docs/auth.md on every route. Every request is charged to the budget of the account it
 * acts for, whoever carries it (auth-guard.ts `actFor`): another wallet's token buys an account
 * no more than its 200 requests a second. An order of another account is `Order not found` to a
 * reader, so ids cannot be probed.
 * May import: ./order-common, ./order-submit, ./order-reads, ./order-cancel.
 */
import { orderCancelRoutes } from './order-cancel.ts';
import { orderKit, type OrderRouteOptions } from './order-common.ts';
import { orderReadRoutes } from './order-reads.ts';
import { orderSubmitRoutes } from './order-submit.ts';

export type { OrderRouteOptions } from './order-common.ts';
export { SUBMIT_BATCH, SUBMIT_ORDER } from './order-submit.ts';
export { GET_ORDER, LIST_ORDERS } from './order-reads.ts';
export { CANCEL_ALL, CANCEL_BATCH, CANCEL_ORDER } from './order-cancel.ts';

/** Every order route, by its name in http/endpoints. */
export function orderRoutes(options: OrderRouteOptions) {
  const kit = orderKit(options);
  return { ...orderSubmitRoutes(options, kit), ...orderReadRoutes(options, kit), ...orderCancelRoutes(options, kit) };
}
