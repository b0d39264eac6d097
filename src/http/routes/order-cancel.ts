/**
 * Cancelling orders: DELETE /account/order (one, by orderId or clientId + account), POST
 * /account/orders/cancel (a batch by orderIds and/or clientIds: what could not be cancelled is
 * listed in `failed` with its reason) and DELETE /account/orders (every open order of a
 * subaccount, or of one market). Authorised by the token alone: the caller is the account or
 * its `trade` delegate on that subaccount; each account a batch names is charged once.
 * May import: config/market, auth/address, engine/types, app/commands,
 * http/ (errors, ports types, validation, account-query, query, order-view, auth-guard types, endpoint types,
 * uws types, endpoint-errors, schemas), ./order-common.
 */
import { findMarket, type MarketSpec } from '../../config/market.ts';
import { lowercaseAddress, type Address } from '../../auth/address.ts';
import { parseOrderId } from '../../engine/types.ts';
import { CommandKind } from '../../app/commands.ts';
import { codeFailure, failure, GatewayCode } from '../errors.ts';
import { Field } from '../validation.ts';
import { SUBACCOUNT_PARAMS } from '../account-query.ts';
import { isReply, param, type QueryParam } from '../query.ts';
import type { CallContext, SubaccountContext } from '../auth-guard.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import type { Outcome } from '../ports.ts';
import type { OrderLike } from '../order-view.ts';
import type { DeclaredRoute, Endpoint } from '../endpoint.ts';
import { ACCESS_DENIED, BAD_BODY, BAD_QUERY, ORDER_NOT_FOUND, OVERLOADED, SYMBOL_NOT_FOUND } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';
import { json, LOOKUP_MISSING, ORDER_LOOKUP_QUERY, overloadedOr, type OrderKit, type OrderRouteOptions } from './order-common.ts';

const CANCEL_BATCH_SCHEMA = {
  title: 'BatchCancelRequest',
  type: 'object',
  properties: {
    account: { anyOf: [Field.address, { type: 'null' }] },
    clientIds: { anyOf: [{ type: 'array', maxItems: 500, items: { type: 'string', maxLength: 36 } }, { type: 'null' }] },
    orderIds: { anyOf: [{ type: 'array', maxItems: 500, items: { type: 'string', maxLength: 20 } }, { type: 'null' }] },
  },
  additionalProperties: false,
} as const;

type CancelBatchBody = { account?: string | null; clientIds?: string[] | null; orderIds?: string[] | null };

/** DELETE /account/orders. */
const CANCEL_ALL_QUERY: readonly QueryParam[] = [...SUBACCOUNT_PARAMS, param('symbol', { type: 'string' }, 'only this market')];

export function orderCancelRoutes(options: OrderRouteOptions, kit: OrderKit): { cancelOrder: DeclaredRoute; cancelBatch: DeclaredRoute; cancelAll: DeclaredRoute } {
  const { markets, orders, guard, clock } = options;
  const { view, reported, current, lookup } = kit;

  /** Cancels one order the caller may trade; the order after the book handled it, or why not. */
  const cancelOne = async (order: OrderLike, caller: Address): Promise<{ order: OrderLike } | { reason: string; reply: HttpReply }> => {
    let outcome: Outcome;
    try {
      outcome = await orders.submit({ kind: CommandKind.CancelOrder, time: clock(), orderId: order.orderId, caller });
    } catch (error) {
      const reply = overloadedOr(error);
      return { reason: reply.body, reply };
    }
    // An untriggered order is cancelled without a book command (no book result).
    const code = outcome.result.code !== 0 ? outcome.result.code : (outcome.bookResults[0] ?? 0);
    if (code !== 0) return { reason: ORDER_NOT_FOUND[1], reply: codeFailure({ code }) };
    return { order: (await reported(outcome))[0] };
  };

  const deleteOrder = async (_req: HttpRequest, ctx: CallContext): Promise<HttpReply> => {
    const order = lookup(ctx, 'trade');
    if (isReply(order)) return order;
    const cancelled = await cancelOne(order, ctx.caller);
    return 'reply' in cancelled ? cancelled.reply : json(ctx.serialize(view(cancelled.order)));
  };

  const cancelBatch = async (_req: HttpRequest, ctx: CallContext<CancelBatchBody>): Promise<HttpReply> => {
    const { account, clientIds, orderIds } = ctx.body;
    const cancelled: ReturnType<typeof view>[] = [];
    const failed: { clientId: string; orderId: string; reason: string }[] = [];
    /** Accounts this request has been charged to: once each, however many of their orders it names. */
    const charged = new Set<string>();
    const attempt = async (order: OrderLike | undefined, clientId: string, orderId: string) => {
      if (order === undefined) return failed.push({ clientId, orderId, reason: ORDER_NOT_FOUND[1] });
      const refused =
        guard.authorize(ctx.caller, order.account, order.subaccountIndex, 'trade') ??
        (charged.has(order.account) ? undefined : guard.charge(ctx.caller, order.account));
      if (refused !== undefined) return failed.push({ clientId, orderId, reason: refused.body });
      charged.add(order.account);
      if (orders.live(order.orderId) === undefined) return failed.push({ clientId, orderId, reason: `Order is ${order.status}` });
      const result = await cancelOne(order, ctx.caller);
      if ('reason' in result) failed.push({ clientId, orderId, reason: result.reason });
      else cancelled.push(view(result.order));
    };
    for (const text of orderIds ?? []) {
      const id = parseOrderId(text);
      await attempt(id === undefined ? undefined : current(id), '', text);
    }
    // `account` is optional (the spec): clientIds without it are the caller's own.
    const owner = account === undefined || account === null ? ctx.caller : lowercaseAddress(account);
    for (const clientId of clientIds ?? []) await attempt(orders.liveByClient(owner, clientId), clientId, '');
    return json(ctx.serialize({ cancelled, failed }));
  };

  const cancelAll = async (_req: HttpRequest, ctx: SubaccountContext): Promise<HttpReply> => {
    let market: MarketSpec | undefined;
    const symbol = ctx.query.get('symbol');
    if (symbol !== undefined) {
      market = findMarket(markets, symbol);
      if (market === undefined) return failure(GatewayCode.SymbolNotFound);
    }
    // Nothing open: nothing to journal. Else the orders as the command left them (one that
    // filled on its way to the book is not cancelled, and not listed).
    const owner = orders.ownerOf(ctx.account, ctx.subaccountIndex);
    if (owner === undefined || orders.liveOf(owner, market?.index).length === 0) return json(ctx.serialize({ cancelled: [], failed: [] }));
    let outcome: Outcome;
    try {
      outcome = await orders.submit({ kind: CommandKind.CancelAll, time: clock(), account: ctx.account, subaccountIndex: ctx.subaccountIndex, market: market?.index ?? null, caller: ctx.caller });
    } catch (error) {
      return overloadedOr(error);
    }
    const done = (await reported(outcome)).filter((o) => o.status === 'cancelled');
    return json(ctx.serialize({ cancelled: done.map(view), failed: [] }));
  };

  return {
    cancelOrder: guard.route(CANCEL_ORDER, deleteOrder),
    cancelBatch: guard.route(CANCEL_BATCH, cancelBatch),
    cancelAll: guard.route(CANCEL_ALL, cancelAll, 'trade'),
  };
}

export const CANCEL_ORDER: Endpoint = { method: 'delete', path: '/account/order', tag: 'Orders', summary: 'Cancel an order', description: 'By orderId, or by clientId with account; the token’s account or its `trade` delegate.', auth: true, query: ORDER_LOOKUP_QUERY, response: S.ORDER_SCHEMA, errors: [...BAD_QUERY, [400, LOOKUP_MISSING], ...ACCESS_DENIED, ORDER_NOT_FOUND, OVERLOADED], readsHistory: true };

export const CANCEL_BATCH: Endpoint<CancelBatchBody> = { method: 'post', path: '/account/orders/cancel', tag: 'Orders', summary: 'Cancel a batch', description: 'Cancel by orderIds and/or clientIds (of `account`, by default the caller\'s own); what could not be cancelled is listed in `failed` with its reason.', auth: true, body: CANCEL_BATCH_SCHEMA, response: S.BATCH_CANCEL_SCHEMA, errors: BAD_BODY, readsHistory: true };

export const CANCEL_ALL: Endpoint = { method: 'delete', path: '/account/orders', tag: 'Orders', summary: 'Cancel all orders', description: 'Cancels every open order of the subaccount (or of one market).', auth: true, query: CANCEL_ALL_QUERY, response: S.BATCH_CANCEL_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, SYMBOL_NOT_FOUND, OVERLOADED], readsHistory: true };
