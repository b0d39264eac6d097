/**
 * What the order routes (routes/orders and its groups) share: their options, finding the
 * order a request names or a write reports — and whether the caller may see it — and the two
 * replies every group writes (200 with a body, 503 when the exchange is overloaded).
 *
 * An order of another account is `Order not found` to a reader, so ids cannot be probed.
 * May import: config/market (types), auth/ (address types, typed-data types, signed-request types),
 * types/ids (types), engine/types, app/codes, http/ (errors, account-query,
 * query, auth-guard types, ports, uws types, order-view).
 */
import type { MarketSpec } from '../../config/market.ts';
import type { Address } from '../../auth/address.ts';
import type { Eip712Domain } from '../../auth/typed-data.ts';
import type { TypedRecovery } from '../../auth/signed-request.ts';
import { parseOrderId } from '../../engine/types.ts';
import { ExchangeCode } from '../../app/codes.ts';
import { codeFailure, failure, GatewayCode, say } from '../errors.ts';
import { addressParam } from '../account-query.ts';
import { isReply, MISSING_PARAMETER, param, type QueryParam } from '../query.ts';
import type { AccountGuard, CallContext } from '../auth-guard.ts';
import { isOverloaded, type Clock, type GatewayMetrics, type HistoryRead, type OrdersPort, type Outcome } from '../ports.ts';
import type { HttpReply } from '../uws.ts';
import { orderView, type OrderLike } from '../order-view.ts';
import type { OrderId } from '../../types/ids.ts';

/**
 * How far back GET /account/order looks for a closed order by clientId: each subaccount's most
 * recently updated orders. A client that lost a reply asks within seconds; the bound keeps a
 * clientId never used from reading an account's whole history.
 */
const CLIENT_ID_LOOKBACK = 1000;

/** GET and DELETE /account/order. */
export const ORDER_LOOKUP_QUERY: readonly QueryParam[] = [
  param('orderId', { type: 'string' }, 'the order id (`0x` + 16 hex digits); given with a clientId or an account too, they must name the same order, else 404 `Order not found`'),
  param('clientId', { type: 'string' }, 'the client id; required when orderId is absent'),
  param('account', { type: 'string' }, 'the account the clientId belongs to; required with clientId'),
];
/** Refused by GET and DELETE /account/order when neither names the order. */
export const LOOKUP_MISSING = say(MISSING_PARAMETER[1], 'orderId (or clientId with account)');

export interface OrderRouteOptions {
  markets: readonly MarketSpec[];
  orders: OrdersPort;
  guard: AccountGuard;
  domain: Eip712Domain;
  recover: TypedRecovery;
  clock: Clock;
  /** Counts the orders accepted (refusals are counted by the gateway, from the reply). */
  metrics?: Pick<GatewayMetrics, 'ordersAccepted'>;
  /** When history holds what the journal has flushed (gateway `historyRead`); none: always. */
  historyRead?: HistoryRead;
}

export const json = (body: string): HttpReply => ({ status: 200, body });

/** An order the exchange accepted a write for is gone: a broken invariant (500). */
function vanished(): never {
  throw new Error('an order vanished after the exchange accepted a write for it');
}

export function overloadedOr(error: unknown): HttpReply {
  if (isOverloaded(error)) return failure(GatewayCode.Overloaded, error.reason);
  throw error;
}

/** The order routes' shared lookups, over one set of options. */
export interface OrderKit {
  view(o: OrderLike): ReturnType<typeof orderView>;
  /** The orders a write's outcome reports, in its order (see below: from history if needed). */
  reported(outcome: Outcome): Promise<OrderLike[]>;
  /** The order as it stands now: open or recently finished in memory, else finished in history. */
  current(orderId: OrderId): OrderLike | undefined;
  /** Whether every one of `who` may trade the subaccount of `order` (and so see it). */
  mayTrade(who: readonly Address[], order: OrderLike): boolean;
  /** The order named by `orderId`, or by `clientId` + `account`, that the caller may act on with `scope`. */
  lookup(ctx: CallContext, scope: 'read' | 'trade'): OrderLike | HttpReply;
}

export function orderKit(options: Pick<OrderRouteOptions, 'markets' | 'orders' | 'guard' | 'historyRead'>): OrderKit {
  const { markets, orders, guard, historyRead } = options;
  const view = (o: OrderLike) => orderView(markets, o);

  /**
   * The orders a write's outcome reports, in its order. One that finished among more than 8,192
   * others before its command completed is no longer in memory: it is read from history once
   * history holds the write (the outcome comes once the journal flushed it, not history).
   */
  const reported = async (outcome: Outcome): Promise<OrderLike[]> => {
    const ids = outcome.result.orderIds ?? [outcome.result.orderId!];
    if (outcome.orders.includes(undefined)) await historyRead?.();
    return outcome.orders.map((o, i) => o ?? orders.stored(ids[i]) ?? vanished());
  };

  const current = (orderId: OrderId): OrderLike | undefined => {
    return orders.recent(orderId) ?? orders.stored(orderId);
  };

  const mayTrade = (who: readonly Address[], order: OrderLike): boolean =>
    who.every((a) => guard.authorize(a, order.account, order.subaccountIndex, 'trade') === undefined);

  const lookup = (ctx: CallContext, scope: 'read' | 'trade'): OrderLike | HttpReply => {
    const idText = ctx.query.get('orderId');
    const clientId = ctx.query.get('clientId');
    let order: OrderLike | undefined;
    if (idText !== undefined) {
      const id = parseOrderId(idText);
      order = id === undefined ? undefined : current(id);
      // An orderId given with a clientId (or an account) names the order only if they agree: a
      // cancel must never take another order than the one the caller also named.
      const account = addressParam(ctx.query, 'account', false);
      if (isReply(account)) return account;
      if (order !== undefined && ((clientId !== undefined && order.clientId !== clientId) || (account !== undefined && order.account !== account))) order = undefined;
    } else {
      if (clientId === undefined) return failure(GatewayCode.InvalidField, LOOKUP_MISSING);
      const account = addressParam(ctx.query, 'account');
      if (isReply(account)) return account;
      // A read finds the order however it ended (a client checking whether a lost order was
      // placed must not be told 404 because it filled at once); a cancel, only an open one.
      order = scope === 'read' ? orders.latestByClient(account!, clientId, CLIENT_ID_LOOKBACK) : orders.liveByClient(account!, clientId);
    }
    if (order === undefined) return codeFailure({ code: ExchangeCode.OrderNotFound });
    const refused = guard.authorize(ctx.caller, order.account, order.subaccountIndex, scope);
    if (refused !== undefined) return scope === 'read' ? codeFailure({ code: ExchangeCode.OrderNotFound }) : refused;
    return guard.charge(ctx.caller, order.account) ?? order;
  };

  return { view, reported, current, mayTrade, lookup };
}
