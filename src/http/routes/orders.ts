/**
 * The order routes: submit one or a batch (signed), get, cancel one / a batch / all, list.
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
 */
import { findMarket, type MarketSpec } from '../../config/market.ts';
import { orderMessage } from '../../auth/typed-data.ts';
import { recoverRequestSigner, type TypedRecovery } from '../../auth/signed-request.ts';
import type { Address } from '../../auth/address.ts';
import type { Eip712Domain } from '../../auth/typed-data.ts';
import { parseOrderId } from '../../engine/types.ts';
import { CommandKind, type BatchOrder, type Command, type SubmitOrder } from '../../app/commands.ts';
import { OverloadedError, type Outcome } from '../../sequencer/sequencer.ts';
import type { ExecuteResult } from '../../app/codes.ts';
import { ExchangeCode } from '../../app/codes.ts';
import { SIGNED_ORDER_TYPES, type OrderStatus, type SignedOrderType } from '../../types/orders.ts';
import { isTerminal, type OrderState } from '../../app/order-registry.ts';
import type { OrderQuery } from '../../history/types.ts';
import { SEARCH_LIMIT, SearchTooBroad } from '../../history/reader.ts';
import { codeFailure, failure, GatewayCode } from '../errors.ts';
import { signedWriteFailure } from '../signature-refusal.ts';
import { bodyParser, Field } from '../validation.ts';
import { addressParam, limitParam, millisParam, SUBACCOUNT_PARAMS } from '../account-query.ts';
import { int, isReply, param, paramNames, repeatableNames, type QueryParam } from '../query.ts';
import type { AccountGuard, CallContext, SubaccountContext } from '../auth-guard.ts';
import type { Clock, GatewayMetrics, HistoryRead, OrdersPort } from '../ports.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import { ORDER_FIELD_ERRORS, ORDER_REQUEST_SCHEMA, orderIntent, say, type OrderBody, type OrderIntent } from '../requests/order.ts';
import { CLIENT_ID_IN_USE, clientIdInUse, differingTerms } from '../requests/client-id.ts';
import { orderView, serializeBatchCancel, serializeOrder, serializeOrderBatch, serializeOrderList, serializeOrders, type OrderLike } from '../order-view.ts';
import type { DeclaredRoute, DocumentedError, Endpoint } from '../endpoint.ts';
import { signingRules } from '../../auth/typed-data.ts';
import { ACCESS_DENIED, BAD_BODY, BAD_QUERY, DELEGATION_NOT_ALLOWED, NOT_DELEGATED, ORDER_NOT_FOUND, ORDER_REFUSALS, OVERLOADED, SEARCH_TOO_BROAD, SYMBOL_NOT_FOUND, WINDOW } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';
import type { MarketIndex, OrderId } from '../../types/ids.ts';
import { BAD_CURSOR, CURSOR_PARAM, cursorParam, withNextCursor } from '../cursor.ts';

/** Most orders in one batch (limit batches, TWAP slices, iceberg children). */
const MAX_BATCH_ORDERS = 100;

/**
 * How far back GET /account/order looks for a closed order by clientId: each subaccount's most
 * recently updated orders. A client that lost a reply asks within seconds; the bound keeps a
 * clientId never used from reading an account's whole history.
 */
const CLIENT_ID_LOOKBACK = 1000;

const BATCH_SCHEMA = {
  title: 'OrderBatchRequest',
  type: 'object',
  properties: { orders: { type: 'array', minItems: 1, maxItems: MAX_BATCH_ORDERS, items: ORDER_REQUEST_SCHEMA } },
  required: ['orders'],
  additionalProperties: false,
} as const;

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

const parseOrder = bodyParser<OrderBody>(ORDER_REQUEST_SCHEMA);
const parseBatch = bodyParser<{ orders: OrderBody[] }>(BATCH_SCHEMA);
const parseCancelBatch = bodyParser<{ account?: string | null; clientIds?: string[] | null; orderIds?: string[] | null }>(CANCEL_BATCH_SCHEMA);

const STATUS_FILTERS: Readonly<Record<string, ReadonlySet<OrderStatus>>> = {
  open: new Set(['new', 'partiallyFilled']),
  active: new Set(['new', 'partiallyFilled', 'untriggered']),
  filled: new Set(['filled']),
  closed: new Set(['filled', 'cancelled', 'expired', 'rejected']),
};
/** The list filter's order types, in any letter case; `unsupported` is the EIP-712 enum's zero (never placed, so it matches nothing). */
const ORDER_TYPE_FILTERS = new Map(SIGNED_ORDER_TYPES.map((t) => [t.toLowerCase(), t]));


/** GET and DELETE /account/order. */
const ORDER_LOOKUP_QUERY: readonly QueryParam[] = [
  param('orderId', { type: 'string' }, 'the order id (`0x` + 16 hex digits)'),
  param('clientId', { type: 'string' }, 'the client id; required when orderId is absent'),
  param('account', { type: 'string' }, 'the account the clientId belongs to; required with clientId'),
];
/** DELETE /account/orders. */
const CANCEL_ALL_QUERY: readonly QueryParam[] = [...SUBACCOUNT_PARAMS, param('symbol', { type: 'string' }, 'only this market')];
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
  param('limit', int(1, 500), '1 to 500'),
  CURSOR_PARAM,
];

/** What the order routes refuse beyond one order's fields (requests/order `OrderText`), written once and listed by the declarations. */
const RouteText = {
  sameOrderType: 'account, subaccountIndex, symbol, orderType and period must be the same for every order of a batch',
  batchNonces: 'each order of a batch needs its own nonce',
  batchClientIds: 'each order of a batch needs its own clientId',
  pairOfTwo: 'A TP/SL pair is exactly two orders: one takeProfit and one stopLoss',
  pairParent: 'Both orders of a TP/SL pair need the same parentOrderId (empty to attach to the position)',
  pairSide: 'Both orders of a TP/SL pair need the same side: the side that closes the position or the parent order',
  trailingAlone: 'A trailingStop is submitted alone on POST /account/order',
  groupSide: 'Every order of a <orderType> needs the same side',
  icebergDisplay: 'Each order of an iceberg has the display quantity (the last one may be smaller)',
  groupOnBatch: 'A <orderType> is a batch of orders: submit them together on POST /account/orders',
  pairOnBatch: 'parentOrderId attaches a TP/SL pair: submit its takeProfit and stopLoss together on POST /account/orders',
  lookupMissing: 'Missing query parameter orderId (or clientId with account)',
  createdAndUpdated: 'The created filters and the updated filters cannot be combined',
  statusFilter: 'status must be one of open, active, filled, closed',
  orderTypeFilter: 'orderType <value> is not an order type',
} as const;
const BATCH_ERRORS: readonly DocumentedError[] = [RouteText.sameOrderType, RouteText.batchNonces, RouteText.batchClientIds, RouteText.pairOfTwo, RouteText.pairParent, RouteText.pairSide, RouteText.trailingAlone, RouteText.groupSide, RouteText.icebergDisplay].map((t) => [400, t] as const);

/**
 * Why a batch breaks the spec's rules (1–7), or null. A batch is limit orders, one TWAP, one
 * iceberg, or one TP/SL pair (the one batch whose two orderTypes differ); a trailingStop goes alone.
 */
function batchRefusal(intents: readonly OrderIntent[]): string | null {
  const first = intents[0];
  for (const i of intents) {
    if (i.account !== first.account || i.subaccountIndex !== first.subaccountIndex || i.market !== first.market || i.period !== first.period) return RouteText.sameOrderType;
  }
  if (new Set(intents.map((i) => i.nonce)).size !== intents.length) return RouteText.batchNonces;
  const clientIds = intents.flatMap((i) => (i.clientId === null ? [] : [i.clientId]));
  if (new Set(clientIds).size !== clientIds.length) return RouteText.batchClientIds;
  const types = new Set(intents.map((i) => i.orderType));
  if (types.has('takeProfit') || types.has('stopLoss')) {
    if (intents.length !== 2 || !types.has('takeProfit') || !types.has('stopLoss')) return RouteText.pairOfTwo;
    if (intents[0].parentOrderId !== intents[1].parentOrderId) return RouteText.pairParent;
    if (intents[0].side !== intents[1].side) return RouteText.pairSide;
    return null;
  }
  if (types.size !== 1) return RouteText.sameOrderType;
  if (first.orderType === 'trailingStop') return RouteText.trailingAlone;
  if (first.orderType === 'twap' || first.orderType === 'iceberg') {
    if (intents.some((i) => i.side !== first.side)) return say(RouteText.groupSide, first.orderType);
  }
  if (first.orderType === 'iceberg') {
    const display = first.quantity;
    const last = intents[intents.length - 1].quantity;
    if (intents.slice(0, -1).some((i) => i.quantity !== display) || last > display) return RouteText.icebergDisplay;
  }
  return null;
}

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

const json = (body: string): HttpReply => ({ status: 200, body });

/** An order the exchange accepted a write for is gone: a broken invariant (500). */
function vanished(): never {
  throw new Error('an order vanished after the exchange accepted a write for it');
}

function overloadedOr(error: unknown): HttpReply {
  if (error instanceof OverloadedError) return failure(GatewayCode.Overloaded, error.reason);
  throw error;
}

export function orderRoutes(options: OrderRouteOptions): DeclaredRoute[] {
  const { markets, orders, guard, domain, recover, clock, metrics, historyRead } = options;
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

  /** The order as it stands now: open or recently finished in memory, else finished in history. */
  const current = (orderId: OrderId): OrderLike | undefined => {
    return orders.recent(orderId) ?? orders.stored(orderId);
  };

  /** Whether every one of `who` may trade the subaccount of `order` (and so see it). */
  const mayTrade = (who: readonly Address[], order: OrderLike): boolean =>
    who.every((a) => guard.authorize(a, order.account as Address, order.subaccountIndex, 'trade') === undefined);

  /** Whether `signer` may sign orders for the body's subaccount (the account or its `trade` delegate). */
  const maySign = (signer: Address, body: OrderBody): boolean => guard.authorize(signer, body.account.toLowerCase() as Address, body.subaccountIndex, 'trade') === undefined;

  /**
   * Signature → signer, for one order body. The published rule signs orderType in lowerCamel;
   * a wallet that signed the body's own spelling ("Limit", as the spec's samples write it)
   * signed the same order, so that message is tried when the first recovers nobody who may
   * sign here (a second recovery only for such bodies; docs/auth.md "What a client signs").
   */
  const signerOf = async (body: OrderBody): Promise<Address | HttpReply> => {
    const message = orderMessage(body);
    if (!message.ok) return codeFailure(message);
    const signer = await recoverRequestSigner(recover, domain, 'Order', message.value, body.signatures);
    if (signer.ok && body.orderType !== message.value.orderType && !maySign(signer.value, body)) {
      const asWritten = await recoverRequestSigner(recover, domain, 'Order', { ...message.value, orderType: body.orderType }, body.signatures);
      if (asWritten.ok && maySign(asWritten.value, body)) return asWritten.value;
    }
    return signer.ok ? signer.value : signedWriteFailure(signer, () => ({ primaryType: 'Order', message: message.value }));
  };

  /**
   * The reply for an order the exchange refused; an `Invalid signature` (the signer is neither
   * the account nor its delegate) shows the message hashed for `body` and whom it recovered.
   */
  const orderFailure = (refusal: ExecuteResult, which: () => { body: OrderBody; signer: Address }): HttpReply =>
    signedWriteFailure(refusal, () => {
      const { body, signer } = which();
      const message = orderMessage(body);
      return { primaryType: 'Order', message: message.ok ? message.value : {}, recovered: signer };
    });

  const submitCommand = (intent: OrderIntent, signer: Address): SubmitOrder => ({ kind: CommandKind.SubmitOrder, time: clock(), ...batchOrder(intent, signer) });

  const batchOrder = (intent: OrderIntent, signer: Address): BatchOrder => {
    const { market, body, ...fields } = intent;
    return { ...fields, market: market.index, signer, signature: body.signatures[0] };
  };

  /**
   * Submits one order; the reply's order, or the refusal — with the order it left `rejected`
   * when the refusal was journaled (a nonce spent: insufficient margin, too many open orders).
   */
  const submitOne = async (intent: OrderIntent, signer: Address): Promise<{ order: OrderLike } | { reply: HttpReply; rejected?: OrderLike }> => {
    let outcome: Outcome;
    try {
      outcome = await orders.submit(submitCommand(intent, signer));
    } catch (error) {
      return { reply: overloadedOr(error) };
    }
    const { result } = outcome;
    if (result.code !== 0) {
      const rejected = result.changed && result.orderId !== undefined ? current(result.orderId) : undefined;
      return { reply: orderFailure(result, () => ({ body: intent.body, signer })), rejected };
    }
    metrics?.ordersAccepted(1);
    return { order: (await reported(outcome))[0] };
  };

  const postOrder = async (req: HttpRequest, ctx: CallContext): Promise<HttpReply> => {
    const parsed = parseOrder(req.body);
    if (!parsed.ok) return parsed.reply;
    const intent = orderIntent(parsed.value, markets);
    if (!intent.ok) return intent.reply;
    const { orderType, parentOrderId, account, subaccountIndex, clientId } = intent.intent;
    if (orderType === 'twap' || orderType === 'iceberg') return failure(GatewayCode.InvalidField, say(RouteText.groupOnBatch, orderType));
    if (parentOrderId !== null) return failure(GatewayCode.InvalidField, RouteText.pairOnBatch);
    const relayed = guard.actFor(ctx.caller, account as Address, subaccountIndex, 'trade');
    if (relayed !== undefined) return relayed;
    const signer = await signerOf(parsed.value);
    if (typeof signer !== 'string') return signer;
    // Idempotency (requests/client-id.ts): a resubmission whose clientId is on an open order
    // returns that order when it asks for the same terms, else 409 naming what differs. Only
    // after the signature proves the signer may trade here (a forged one falls through to
    // `Invalid signature`): nobody reads another account's order by guessing a clientId.
    if (clientId !== null) {
      const existing = orders.liveByClient(account, clientId);
      if (existing !== undefined && guard.authorize(signer, account as Address, subaccountIndex, 'trade') === undefined) {
        if (!mayTrade([ctx.caller, signer], existing)) return clientIdInUse(clientId);
        const differing = differingTerms(existing, intent.intent);
        return differing.length === 0 ? json(serializeOrders([view(existing)])) : clientIdInUse(clientId, existing.orderId, differing);
      }
    }
    const submitted = await submitOne(intent.intent, signer);
    return 'reply' in submitted ? submitted.reply : json(serializeOrders([view(submitted.order)]));
  };

  const postBatch = async (req: HttpRequest, ctx: CallContext): Promise<HttpReply> => {
    const parsed = parseBatch(req.body);
    if (!parsed.ok) return parsed.reply;
    const bodies = parsed.value.orders;
    const intents: OrderIntent[] = [];
    for (const body of bodies) {
      const intent = orderIntent(body, markets);
      if (!intent.ok) return intent.reply;
      intents.push(intent.intent);
    }
    const refused = batchRefusal(intents);
    if (refused !== null) return failure(GatewayCode.InvalidField, refused);
    const first = intents[0];
    const relayed = guard.actFor(ctx.caller, first.account as Address, first.subaccountIndex, 'trade');
    if (relayed !== undefined) return relayed;
    const signers = await Promise.all(bodies.map(signerOf));
    for (const s of signers) if (typeof s !== 'string') return s;
    // A batch is not replayed: a clientId already on an open order refuses it whole, by name.
    for (const intent of intents) {
      const existing = intent.clientId === null ? undefined : orders.liveByClient(intent.account, intent.clientId);
      if (existing !== undefined) return clientIdInUse(intent.clientId!, mayTrade([ctx.caller], existing) ? existing.orderId : undefined);
    }
    if (first.orderType !== 'limit') {
      // A TP/SL pair, a TWAP or an iceberg: one command, admitted whole or refused whole.
      const batch = intents.map((intent, i) => batchOrder(intent, signers[i] as Address));
      const takeProfitAt = intents.findIndex((i) => i.orderType === 'takeProfit');
      const command: Command =
        first.orderType === 'twap' || first.orderType === 'iceberg'
          ? { kind: CommandKind.SubmitSlices, time: clock(), orderType: first.orderType, orders: batch }
          : { kind: CommandKind.SubmitPair, time: clock(), takeProfit: batch[takeProfitAt], stopLoss: batch[1 - takeProfitAt] };
      let outcome: Outcome;
      try {
        outcome = await orders.submit(command);
      } catch (error) {
        return overloadedOr(error);
      }
      const { result } = outcome;
      if (result.code !== 0) {
        // Admitted whole or refused whole: an `Invalid signature` is about the first order whose signer may not trade here.
        return orderFailure(result, () => {
          const at = Math.max(0, signers.findIndex((s, i) => guard.authorize(s as Address, intents[i].account as Address, intents[i].subaccountIndex, 'trade') !== undefined));
          return { body: bodies[at], signer: signers[at] as Address };
        });
      }
      metrics?.ordersAccepted(batch.length);
      // The pair's orders are (takeProfit, stopLoss); the reply keeps the request's order.
      const placed = await reported(outcome);
      if (command.kind === CommandKind.SubmitPair && takeProfitAt === 1) placed.reverse();
      return json(serializeOrderBatch({ orders: placed.map(view) }));
    }
    const out: OrderLike[] = [];
    for (let i = 0; i < intents.length; i++) {
      const submitted = await submitOne(intents[i], signers[i] as Address);
      // The first refusal stops the batch; orders already placed stay and are reported, then
      // the refused one as it was journaled (`rejected`, with its reason), so the client sees
      // where and why it stopped; the orders after it were not submitted (nonces unspent).
      if ('reply' in submitted) {
        if (out.length === 0) return submitted.reply;
        if (submitted.rejected !== undefined) out.push(submitted.rejected);
        break;
      }
      out.push(submitted.order);
    }
    return json(serializeOrderBatch({ orders: out.map(view) }));
  };

  /** The order named by `orderId`, or by `clientId` + `account`, that `caller` may act on with `scope`. */
  const lookup = (ctx: CallContext, scope: 'read' | 'trade'): OrderLike | HttpReply => {
    const idText = ctx.query.get('orderId');
    let order: OrderLike | undefined;
    if (idText !== undefined) {
      const id = parseOrderId(idText);
      order = id === undefined ? undefined : current(id);
    } else {
      const clientId = ctx.query.get('clientId');
      if (clientId === undefined) return failure(GatewayCode.InvalidField, RouteText.lookupMissing);
      const account = addressParam(ctx.query, 'account');
      if (isReply(account)) return account;
      // A read finds the order however it ended (a client checking whether a lost order was
      // placed must not be told 404 because it filled at once); a cancel, only an open one.
      order = scope === 'read' ? orders.latestByClient(account!, clientId, CLIENT_ID_LOOKBACK) : orders.liveByClient(account!, clientId);
    }
    if (order === undefined) return codeFailure({ code: ExchangeCode.OrderNotFound });
    const refused = guard.authorize(ctx.caller, order.account as Address, order.subaccountIndex, scope);
    if (refused !== undefined) return scope === 'read' ? codeFailure({ code: ExchangeCode.OrderNotFound }) : refused;
    return guard.charge(ctx.caller, order.account as Address) ?? order;
  };

  const getOrder = (_req: HttpRequest, ctx: CallContext): HttpReply => {
    const order = lookup(ctx, 'read');
    return isReply(order) ? order : json(serializeOrder(view(order)));
  };

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
    if (code !== 0) return { reason: 'Order not found', reply: codeFailure({ code }) };
    return { order: (await reported(outcome))[0] };
  };

  const deleteOrder = async (_req: HttpRequest, ctx: CallContext): Promise<HttpReply> => {
    const order = lookup(ctx, 'trade');
    if (isReply(order)) return order;
    const cancelled = await cancelOne(order, ctx.caller);
    return 'reply' in cancelled ? cancelled.reply : json(serializeOrder(view(cancelled.order)));
  };

  const cancelBatch = async (req: HttpRequest, ctx: CallContext): Promise<HttpReply> => {
    const parsed = parseCancelBatch(req.body);
    if (!parsed.ok) return parsed.reply;
    const { account, clientIds, orderIds } = parsed.value;
    const cancelled: ReturnType<typeof view>[] = [];
    const failed: { clientId: string; orderId: string; reason: string }[] = [];
    /** Accounts this request has been charged to: once each, however many of their orders it names. */
    const charged = new Set<string>();
    const attempt = async (order: OrderLike | undefined, clientId: string, orderId: string) => {
      if (order === undefined) return failed.push({ clientId, orderId, reason: 'Order not found' });
      const refused =
        guard.authorize(ctx.caller, order.account as Address, order.subaccountIndex, 'trade') ??
        (charged.has(order.account) ? undefined : guard.charge(ctx.caller, order.account as Address));
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
    const owner = account === undefined || account === null ? ctx.caller : account.toLowerCase();
    for (const clientId of clientIds ?? []) await attempt(orders.liveByClient(owner, clientId), clientId, '');
    return json(serializeBatchCancel({ cancelled, failed }));
  };

  const cancelAll = async (_req: HttpRequest, ctx: SubaccountContext): Promise<HttpReply> => {
    let market: MarketSpec | undefined;
    const symbol = ctx.query.get('symbol');
    if (symbol !== undefined) {
      market = findMarket(markets, symbol);
      if (market === undefined) return failure(GatewayCode.SymbolNotFound);
    }
    const owner = orders.ownerOf(ctx.account, ctx.subaccountIndex);
    const before = owner === undefined ? [] : orders.liveOf(owner, market?.index);
    if (before.length > 0) {
      try {
        await orders.submit({ kind: CommandKind.CancelAll, time: clock(), account: ctx.account, subaccountIndex: ctx.subaccountIndex, market: market?.index ?? null, caller: ctx.caller });
      } catch (error) {
        return overloadedOr(error);
      }
    }
    const done = before.map((o) => current(o.orderId)!).filter((o) => o.status === 'cancelled');
    return json(serializeBatchCancel({ cancelled: done.map(view), failed: [] }));
  };

  const listOrders = (_req: HttpRequest, ctx: SubaccountContext): HttpReply => {
    const q = ctx.query;
    const limit = limitParam(q, 500, 500);
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
    const reply = json(serializeOrderList({ asks: list.filter((o) => o.quantity.startsWith('-')), bids: list.filter((o) => !o.quantity.startsWith('-')), total: list.length }));
    return withNextCursor(reply, found.length === limit, last && [created ? last.createdAt : last.updatedAt, last.orderId]);
  };

  return [
    guard.route(SUBMIT_ORDER, postOrder),
    guard.route(SUBMIT_BATCH, postBatch),
    guard.route(GET_ORDER, getOrder),
    guard.route(CANCEL_ORDER, deleteOrder),
    guard.route(CANCEL_BATCH, cancelBatch),
    guard.route(CANCEL_ALL, cancelAll, 'trade'),
    guard.route(LIST_ORDERS, listOrders, 'read'),
  ];
}

// ── declarations (http/endpoint): what the API document says of each route ──

/** What an order's signature covers: GET /config's `signing` rules and worked example, in the route's text. */
const ORDER_SIGNING = (() => {
  const { rules, example } = signingRules().Order;
  return `The signed message is not the body itself (also in GET /config \`signing\`): ${rules.join('; ')}. Worked example: the body \`${JSON.stringify(example.body)}\` is signed as the Order message \`${JSON.stringify(example.message)}\`.`;
})();

export const SUBMIT_ORDER: Endpoint = {
  method: 'post', path: '/account/order', tag: 'Orders', summary: 'Submit an order', description: `Signed \`Order\` (EIP-712) by the account or a \`trade\` delegate. Quantity positive buys, negative sells; orderType in any letter case. Idempotent by clientId: the same terms (every signed field but nonce) as an open order with that clientId return that order; other terms are a 409. ${ORDER_SIGNING}`, auth: true, signed: true, submitsOrders: true, body: ORDER_REQUEST_SCHEMA, response: S.ORDERS_SCHEMA,
  errors: [...BAD_BODY, [400, 'May not specify period on Limit order'], ...ORDER_FIELD_ERRORS, [400, say(RouteText.groupOnBatch, '<orderType>')], [400, RouteText.pairOnBatch], NOT_DELEGATED, DELEGATION_NOT_ALLOWED, SYMBOL_NOT_FOUND, ...ORDER_REFUSALS, ...CLIENT_ID_IN_USE],
};

export const SUBMIT_BATCH: Endpoint = {
  method: 'post', path: '/account/orders', tag: 'Orders', summary: 'Submit a batch', description: 'Limit orders, a TWAP, an iceberg or a TP/SL pair: account, subaccountIndex, symbol, orderType and period identical across the batch; one signature and nonce per order. A TWAP, an iceberg or a TP/SL pair is admitted whole or refused whole. Limit orders are placed in order and the first refusal stops the batch: a refusal of the first order is the answer; a later one answers the orders placed, then the refused order as `rejected` with its `reason` when the refusal spent its nonce; the orders after it are not submitted.', auth: true, signed: true, submitsOrders: true, body: BATCH_SCHEMA, response: S.ORDER_BATCH_SCHEMA,
  errors: [...BAD_BODY, ...ORDER_FIELD_ERRORS, ...BATCH_ERRORS, NOT_DELEGATED, DELEGATION_NOT_ALLOWED, SYMBOL_NOT_FOUND, ...ORDER_REFUSALS, ...CLIENT_ID_IN_USE],
};

export const GET_ORDER: Endpoint = { method: 'get', path: '/account/order', tag: 'Orders', summary: 'Get an order', description: 'By orderId, or by clientId with account: the account\'s newest order with that clientId, open or closed (a closed one among each subaccount\'s 1,000 most recently updated orders).', auth: true, query: ORDER_LOOKUP_QUERY, response: S.ORDER_SCHEMA, errors: [...BAD_QUERY, [400, RouteText.lookupMissing], ORDER_NOT_FOUND], readsHistory: true };

export const CANCEL_ORDER: Endpoint = { method: 'delete', path: '/account/order', tag: 'Orders', summary: 'Cancel an order', description: 'By orderId, or by clientId with account; the token’s account or its `trade` delegate.', auth: true, query: ORDER_LOOKUP_QUERY, response: S.ORDER_SCHEMA, errors: [...BAD_QUERY, [400, RouteText.lookupMissing], ...ACCESS_DENIED, ORDER_NOT_FOUND, OVERLOADED], readsHistory: true };

export const CANCEL_BATCH: Endpoint = { method: 'post', path: '/account/orders/cancel', tag: 'Orders', summary: 'Cancel a batch', description: 'Cancel by orderIds and/or clientIds (of `account`, by default the caller\'s own); what could not be cancelled is listed in `failed` with its reason.', auth: true, body: CANCEL_BATCH_SCHEMA, response: S.BATCH_CANCEL_SCHEMA, errors: BAD_BODY, readsHistory: true };

export const CANCEL_ALL: Endpoint = { method: 'delete', path: '/account/orders', tag: 'Orders', summary: 'Cancel all orders', description: 'Cancels every open order of the subaccount (or of one market).', auth: true, query: CANCEL_ALL_QUERY, response: S.BATCH_CANCEL_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, SYMBOL_NOT_FOUND, OVERLOADED], readsHistory: true };

export const LIST_ORDERS: Endpoint = { method: 'get', path: '/account/orders', tag: 'Orders', summary: 'List orders', description: `Orders of the subaccount, newest first, split by side. The created* and updated* filters cannot be combined. A full page answers \`X-Next-Cursor\`: send it as \`cursor\` for the orders that follow. \`status=open\` and \`active\` list the open orders (a subaccount holds at most 1,000); \`filled\` and \`closed\` read only the orders that ended so; other filters search the subaccount's history, at most ${SEARCH_LIMIT.toLocaleString('en')} orders of it per request: a filter that matches too little of a longer window is refused with 400, narrow the window.`, auth: true, query: ORDER_LIST_QUERY, response: S.ORDER_LIST_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, [400, 'Limit must be between 1 and 500, got <n>'], WINDOW, [400, RouteText.createdAndUpdated], [400, RouteText.statusFilter], [400, RouteText.orderTypeFilter], BAD_CURSOR, SYMBOL_NOT_FOUND, SEARCH_TOO_BROAD], readsHistory: true, pages: true };
