/**
 * Reading orders: GET /account/order (one, by orderId or by clientId + account, open or
 * closed) and GET /account/orders (a subaccount's, newest first, filtered and paged). Open
 * orders are listed from memory (at most 1,000 a subaccount), the others from history.
 * Authorised by the token alone (the account or a delegate with `read`; `trade` includes it).
 * May import: config/market, types/orders, types/ids (types), app/order-registry, history/ (types,
 * reader), http/ (errors, account-query, query, cursor, order-view, auth-guard types,
 * endpoint types, uws types, endpoint-errors, schemas), ./order-common.
 */
import { findMarket } from '../../config/market.ts';
import { SIGNED_ORDER_TYPES, type OrderStatus, type SignedOrderType } from '../../types/orders.ts';
import { isTerminal, type OrderState } from '../../app/order-registry.ts';
import type { OrderQuery } from '../../history/types.ts';
import { SEARCH_LIMIT, SearchTooBroad } from '../../history/reader.ts';
import { failure, GatewayCode, LIMIT_OUT_OF_RANGE, say, saying } from '../errors.ts';
import { SUBACCOUNT_PARAMS } from '../account-query.ts';
import { int, isReply, limitParam, millisParam, NOT_MILLISECONDS, param, type QueryParam } from '../query.ts';
import type { CallContext, SubaccountContext } from '../auth-guard.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import type { OrderLike } from '../order-view.ts';
import type { DeclaredRoute, Endpoint } from '../endpoint.ts';
import { ACCESS_DENIED, BAD_QUERY, ORDER_NOT_FOUND, SEARCH_TOO_BROAD, SYMBOL_NOT_FOUND } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';
import type { MarketIndex } from '../../types/ids.ts';
import { BAD_CURSOR, CURSOR_PARAM, cursorParam, withNextCursor } from '../cursor.ts';
import { json, LOOKUP_MISSING, ORDER_LOOKUP_QUERY, type OrderKit, type OrderRouteOptions } from './order-common.ts';

const STATUS_FILTERS: Readonly<Record<string, ReadonlySet<OrderStatus>>> = {
  open: new Set(['new', 'partiallyFilled']),
  active: new Set(['new', 'partiallyFilled', 'untriggered']),
  filled: new Set(['filled']),
  closed: new Set(['filled', 'cancelled', 'expired', 'rejected']),
};
/** The list filter's order types, in any letter case; `unsupported` is the EIP-712 enum's zero (never placed, so it matches nothing). */
const ORDER_TYPE_FILTERS = new Map(SIGNED_ORDER_TYPES.map((t) => [t.toLowerCase(), t]));


/** The most orders GET /account/orders answers at once, and its default. */
export const MAX_ORDERS_LISTED = 500;

/** GET /account/orders. */
const ORDER_LIST_QUERY: readonly QueryParam[] = [
  ...SUBACCOUNT_PARAMS,
  param('orderType', { type: 'array', items: { type: 'string', enum: [...SIGNED_ORDER_TYPES] } }, 'one or more order types: repeat the parameter or separate them by commas'),
  param('status', { type: 'string', enum: Object.keys(STATUS_FILTERS) }, 'open = new or partiallyFilled; active = open, untriggered or a pending TWAP/iceberg child; filled; closed = filled, cancelled, expired or rejected'),
  param('symbol', { type: 'string' }, 'one market'),
  param('createdFrom', int(0), 'ms, created on or after (not with updated*)'),
  param('createdTo', int(0), 'ms, created before (not with updated*)'),
  param('updatedFrom', int(0), 'ms, updated on or after (not with created*)'),
  param('updatedTo', int(0), 'ms, updated before (not with created*)'),
  param('limit', int(1, MAX_ORDERS_LISTED), `1 to ${MAX_ORDERS_LISTED}`),
  CURSOR_PARAM,
];

/** What the list route refuses beyond its parameters' types, written once and listed by its declaration. */
const RouteText = {
  createdAndUpdated: 'The created filters and the updated filters cannot be combined',
  statusFilter: 'status must be one of open, active, filled, closed',
  orderTypeFilter: 'orderType <value> is not an order type',
} as const;

/**
 * The open orders `query` selects, listed as history lists orders: newest first by the time
 * the window applies to, then by orderId (history/reader). `open` holds one subaccount's.
 */
function openListing(open: readonly OrderState[], query: OrderQuery): OrderState[] {
  const at = query.by === 'created' ? (o: OrderState) => o.createdAt : (o: OrderState) => o.updatedAt;
  return open
    .filter((o) => query.statuses!.has(o.status) && (query.orderTypes === undefined || query.orderTypes.has(o.orderType)) && (query.from === undefined || at(o) >= query.from) && (query.to === undefined || at(o) < query.to))
    .filter((o) => query.after === undefined || at(o) < query.after[0] || (at(o) === query.after[0] && o.orderId < query.after[1]))
    .sort((a, b) => at(b) - at(a) || b.orderId - a.orderId)
    .slice(0, query.limit);
}

export function orderReadRoutes(options: OrderRouteOptions, kit: OrderKit): { getOrder: DeclaredRoute; listOrders: DeclaredRoute } {
  const { markets, orders, guard } = options;
  const { view, lookup } = kit;

  const getOrder = (_req: HttpRequest, ctx: CallContext): HttpReply => {
    const order = lookup(ctx, 'read');
    return isReply(order) ? order : json(ctx.serialize(view(order)));
  };

  const listOrders = (_req: HttpRequest, ctx: SubaccountContext): HttpReply => {
    const q = ctx.query;
    const limit = limitParam(q, MAX_ORDERS_LISTED, MAX_ORDERS_LISTED);
    if (isReply(limit)) return limit;
    const window: Record<string, number | undefined> = {};
    for (const name of ['createdFrom', 'createdTo', 'updatedFrom', 'updatedTo']) {
      const value = millisParam(q, name);
      if (isReply(value)) return value;
      window[name] = value;
    }
    const created = window.createdFrom !== undefined || window.createdTo !== undefined;
    const updated = window.updatedFrom !== undefined || window.updatedTo !== undefined;
    if (created && updated) return failure(GatewayCode.InvalidField, RouteText.createdAndUpdated);
    const after = cursorParam(q, 2);
    if (isReply(after)) return after;
    const statusText = q.get('status');
    const statuses = statusText === undefined ? undefined : STATUS_FILTERS[statusText];
    if (statusText !== undefined && statuses === undefined) return failure(GatewayCode.InvalidField, RouteText.statusFilter);
    let orderTypes: Set<SignedOrderType> | undefined;
    const typeText = q.get('orderType');
    if (typeText !== undefined) {
      orderTypes = new Set();
      for (const t of typeText.split(',')) {
        const type = ORDER_TYPE_FILTERS.get(t.trim().toLowerCase());
        if (type === undefined) return failure(GatewayCode.InvalidField, say(RouteText.orderTypeFilter, t));
        orderTypes.add(type);
      }
    }
    let marketIndex: MarketIndex | undefined;
    const symbol = q.get('symbol');
    if (symbol !== undefined) {
      const market = findMarket(markets, symbol);
      if (market === undefined) return failure(GatewayCode.SymbolNotFound);
      marketIndex = market.index;
    }
    const owner = orders.ownerOf(ctx.account, ctx.subaccountIndex);
    const query: OrderQuery = {
      by: created ? 'created' : 'updated',
      from: created ? window.createdFrom : window.updatedFrom,
      to: created ? window.createdTo : window.updatedTo,
      limit,
      statuses,
      marketIndex,
      orderTypes,
      after,
    };
    // Open orders are all in memory (at most 1,000 a subaccount): listed from there, not found
    // among the subaccount's whole history (which a market maker counts in millions).
    const openOnly = statuses !== undefined && [...statuses].every((s) => !isTerminal(s));
    let found: OrderLike[];
    try {
      found = owner === undefined ? [] : openOnly ? openListing(orders.liveOf(owner, marketIndex), query) : orders.storedOf(owner, query).map((r) => orders.live(r.orderId) ?? r);
    } catch (error) {
      if (error instanceof SearchTooBroad) return failure(GatewayCode.SearchTooBroad, created ? 'createdFrom and createdTo' : 'updatedFrom and updatedTo');
      throw error;
    }
    const list = found.map(view);
    const last = found.at(-1);
    const reply = json(ctx.serialize({ asks: list.filter((o) => o.quantity.startsWith('-')), bids: list.filter((o) => !o.quantity.startsWith('-')), total: list.length }));
    return withNextCursor(reply, found.length === limit, last && [created ? last.createdAt : last.updatedAt, last.orderId]);
  };

  return { getOrder: guard.route(GET_ORDER, getOrder), listOrders: guard.route(LIST_ORDERS, listOrders, 'read') };
}

export const GET_ORDER: Endpoint = { method: 'get', path: '/account/order', tag: 'Orders', summary: 'Get an order', description: 'By orderId, or by clientId with account: the account\'s newest order with that clientId, open or closed (a closed one among each subaccount\'s 1,000 most recently updated orders).', auth: true, query: ORDER_LOOKUP_QUERY, response: S.ORDER_SCHEMA, errors: [...BAD_QUERY, [400, LOOKUP_MISSING], ORDER_NOT_FOUND], readsHistory: true };

export const LIST_ORDERS: Endpoint = { method: 'get', path: '/account/orders', tag: 'Orders', summary: 'List orders', description: `Orders of the subaccount, newest first, split by side. The created* and updated* filters cannot be combined. A full page answers \`X-Next-Cursor\`: send it as \`cursor\` for the orders that follow. \`status=open\` and \`active\` list the open orders (a subaccount holds at most 1,000); \`filled\` and \`closed\` read only the orders that ended so; other filters search the subaccount's history, at most ${SEARCH_LIMIT.toLocaleString('en')} orders of it per request: a filter that matches too little of a longer window is refused with 400, narrow the window.`, auth: true, query: ORDER_LIST_QUERY, response: S.ORDER_LIST_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, saying(LIMIT_OUT_OF_RANGE, MAX_ORDERS_LISTED), NOT_MILLISECONDS, [400, RouteText.createdAndUpdated], [400, RouteText.statusFilter], [400, RouteText.orderTypeFilter], BAD_CURSOR, SYMBOL_NOT_FOUND, SEARCH_TOO_BROAD], readsHistory: true, pages: true };
