/**
 * Submitting orders: POST /account/order (one, signed) and POST /account/orders (a batch:
 * limit orders, one TWAP, one iceberg or one TP/SL pair, each order signed).
 *
 * Writes are authorised twice: the bearer token's caller must be the order's account or its
 * `trade` delegate on that subaccount (else 403), checked before the signature is recovered,
 * and the EIP-712 signer must be the account or its trade delegate. A resubmission whose
 * clientId is on an open order returns that order (same terms) or 409 (requests/client-id).
 * May import: auth/ (typed-data, signed-request, address), app/commands, app/codes (types),
 * http/ (errors, ports types, signature-refusal, requests/order,
 * requests/client-id, order-view, auth-guard types, endpoint types, uws types, endpoint-errors,
 * schemas), ./order-common.
 */
import { orderMessage, signingRules } from '../../auth/typed-data.ts';
import { recoverRequestSigner } from '../../auth/signed-request.ts';
import { lowercaseAddress, type Address } from '../../auth/address.ts';
import { CommandKind, type BatchOrder, type Command, type SubmitOrder } from '../../app/commands.ts';
import type { Outcome } from '../ports.ts';
import type { ExecuteResult } from '../../app/codes.ts';
import { codeFailure, failure, GatewayCode, say } from '../errors.ts';
import { signedWriteFailure } from '../signature-refusal.ts';
import type { CallContext } from '../auth-guard.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import { ORDER_FIELD_ERRORS, ORDER_REQUEST_SCHEMA, orderIntent, OrderText, type OrderBody, type OrderIntent } from '../requests/order.ts';
import { CLIENT_ID_IN_USE, clientIdInUse, differingTerms } from '../requests/client-id.ts';
import type { OrderLike } from '../order-view.ts';
import type { DeclaredRoute, DocumentedError, Endpoint } from '../endpoint.ts';
import { BAD_BODY, DELEGATION_NOT_ALLOWED, NOT_DELEGATED, ORDER_REFUSALS, SYMBOL_NOT_FOUND } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';
import { json, overloadedOr, type OrderKit, type OrderRouteOptions } from './order-common.ts';

/** Most orders in one batch (limit batches, TWAP slices, iceberg children). */
const MAX_BATCH_ORDERS = 100;

const BATCH_SCHEMA = {
  title: 'OrderBatchRequest',
  type: 'object',
  properties: { orders: { type: 'array', minItems: 1, maxItems: MAX_BATCH_ORDERS, items: ORDER_REQUEST_SCHEMA } },
  required: ['orders'],
  additionalProperties: false,
} as const;

type BatchBody = { orders: OrderBody[] };

/** What the submit routes refuse beyond one order's fields (requests/order `OrderText`), written once and listed by the declarations. */
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
 * Writes the order's fields onto `into` (a single order's command already holding its kind and
 * time, or a batch's order holding nothing), one by one, in the order the journal's JSON has
 * always had them: the command is one object, where spreading a batch order into it built the
 * order twice, per order.
 */
function withOrderFields<T extends object>(into: T, i: OrderIntent, signer: Address): T & BatchOrder {
  const o = into as T & BatchOrder;
  o.account = i.account;
  o.subaccountIndex = i.subaccountIndex;
  o.orderType = i.orderType;
  o.side = i.side;
  o.price = i.price;
  o.quantity = i.quantity;
  o.flags = i.flags;
  o.expiresAt = i.expiresAt;
  o.nonce = i.nonce;
  o.clientId = i.clientId;
  o.originator = i.originator;
  o.originatorFee = i.originatorFee;
  o.triggerPrice = i.triggerPrice;
  o.parentOrderId = i.parentOrderId;
  o.period = i.period;
  o.trailingPercent = i.trailingPercent;
  o.market = i.market.index;
  o.signer = signer;
  o.signature = i.body.signatures[0];
  return o;
}

export function orderSubmitRoutes(options: OrderRouteOptions, kit: OrderKit): { submitOrder: DeclaredRoute; submitBatch: DeclaredRoute } {
  const { markets, orders, guard, domain, recover, clock, metrics } = options;
  const { view, reported, mayTrade } = kit;

  /** Whether `signer` may sign orders for the body's subaccount (the account or its `trade` delegate). */
  const maySign = (signer: Address, body: OrderBody): boolean => guard.authorize(signer, lowercaseAddress(body.account), body.subaccountIndex, 'trade') === undefined;

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

  const submitCommand = (intent: OrderIntent, signer: Address): SubmitOrder => withOrderFields({ kind: CommandKind.SubmitOrder, time: clock() }, intent, signer);

  /** The order as a batch's command carries it (no kind or time of its own). */
  const batchOrder = (intent: OrderIntent, signer: Address): BatchOrder => withOrderFields({}, intent, signer);

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
      // A journaled refusal (its nonce spent) left its order rejected: the outcome names it.
      const rejected = result.changed ? (await reported(outcome))[0] : undefined;
      return { reply: orderFailure(result, () => ({ body: intent.body, signer })), rejected };
    }
    metrics?.ordersAccepted(1);
    return { order: (await reported(outcome))[0] };
  };

  const postOrder = async (_req: HttpRequest, ctx: CallContext<OrderBody>): Promise<HttpReply> => {
    const intent = orderIntent(ctx.body, markets);
    if (!intent.ok) return intent.reply;
    const { orderType, parentOrderId, account, subaccountIndex, clientId } = intent.intent;
    if (orderType === 'twap' || orderType === 'iceberg') return failure(GatewayCode.InvalidField, say(RouteText.groupOnBatch, orderType));
    if (parentOrderId !== null) return failure(GatewayCode.InvalidField, RouteText.pairOnBatch);
    const relayed = guard.actFor(ctx.caller, account, subaccountIndex, 'trade');
    if (relayed !== undefined) return relayed;
    const signer = await signerOf(ctx.body);
    if (typeof signer !== 'string') return signer;
    // Idempotency (requests/client-id.ts): a resubmission whose clientId is on an open order
    // returns that order when it asks for the same terms, else 409 naming what differs. Only
    // after the signature proves the signer may trade here (a forged one falls through to
    // `Invalid signature`): nobody reads another account's order by guessing a clientId.
    if (clientId !== null) {
      const existing = orders.liveByClient(account, clientId);
      if (existing !== undefined && guard.authorize(signer, account, subaccountIndex, 'trade') === undefined) {
        if (!mayTrade([ctx.caller, signer], existing)) return clientIdInUse(clientId);
        const differing = differingTerms(existing, intent.intent);
        return differing.length === 0 ? json(ctx.serialize([view(existing)])) : clientIdInUse(clientId, existing.orderId, differing);
      }
    }
    const submitted = await submitOne(intent.intent, signer);
    return 'reply' in submitted ? submitted.reply : json(ctx.serialize([view(submitted.order)]));
  };

  const postBatch = async (_req: HttpRequest, ctx: CallContext<BatchBody>): Promise<HttpReply> => {
    const bodies = ctx.body.orders;
    const intents: OrderIntent[] = [];
    for (const body of bodies) {
      const intent = orderIntent(body, markets);
      if (!intent.ok) return intent.reply;
      intents.push(intent.intent);
    }
    const refused = batchRefusal(intents);
    if (refused !== null) return failure(GatewayCode.InvalidField, refused);
    const first = intents[0];
    const relayed = guard.actFor(ctx.caller, first.account, first.subaccountIndex, 'trade');
    if (relayed !== undefined) return relayed;
    const signers: Address[] = [];
    for (const s of await Promise.all(bodies.map(signerOf))) {
      if (typeof s !== 'string') return s;
      signers.push(s);
    }
    // Every order's signature is checked before any order is placed: a batch with one bad
    // signature is refused whole (it placed the orders before it and answered 200 without it).
    for (let i = 0; i < intents.length; i++) {
      const refusal = guard.orderSignerRefusal(signers[i], intents[i].account, intents[i].subaccountIndex);
      if (refusal !== undefined) {
        return signedWriteFailure(refusal, () => {
          const message = orderMessage(bodies[i]);
          return { primaryType: 'Order', message: message.ok ? message.value : {}, recovered: signers[i] };
        });
      }
    }
    // A batch is not replayed: a clientId already on an open order refuses it whole, by name.
    for (const intent of intents) {
      const existing = intent.clientId === null ? undefined : orders.liveByClient(intent.account, intent.clientId);
      if (existing !== undefined) return clientIdInUse(intent.clientId!, mayTrade([ctx.caller], existing) ? existing.orderId : undefined);
    }
    if (first.orderType !== 'limit') {
      // A TP/SL pair, a TWAP or an iceberg: one command, admitted whole or refused whole.
      const batch = intents.map((intent, i) => batchOrder(intent, signers[i]));
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
          const at = Math.max(0, signers.findIndex((s, i) => guard.authorize(s, intents[i].account, intents[i].subaccountIndex, 'trade') !== undefined));
          return { body: bodies[at], signer: signers[at] };
        });
      }
      metrics?.ordersAccepted(batch.length);
      // The pair's orders are (takeProfit, stopLoss); the reply keeps the request's order.
      const placed = await reported(outcome);
      if (command.kind === CommandKind.SubmitPair && takeProfitAt === 1) placed.reverse();
      return json(ctx.serialize({ orders: placed.map(view) }));
    }
    const out: OrderLike[] = [];
    for (let i = 0; i < intents.length; i++) {
      const submitted = await submitOne(intents[i], signers[i]);
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
    return json(ctx.serialize({ orders: out.map(view) }));
  };

  return { submitOrder: guard.route(SUBMIT_ORDER, postOrder), submitBatch: guard.route(SUBMIT_BATCH, postBatch) };
}

/** What an order's signature covers: GET /config's `signing` rules and worked example, in the route's text. */
const ORDER_SIGNING = (() => {
  const { rules, example } = signingRules().Order;
  return `The signed message is not the body itself (also in GET /config \`signing\`): ${rules.join('; ')}. Worked example: the body \`${JSON.stringify(example.body)}\` is signed as the Order message \`${JSON.stringify(example.message)}\`.`;
})();

export const SUBMIT_ORDER: Endpoint<OrderBody> = {
  method: 'post', path: '/account/order', tag: 'Orders', summary: 'Submit an order', description: `Signed \`Order\` (EIP-712) by the account or a \`trade\` delegate. Quantity positive buys, negative sells; orderType in any letter case. Idempotent by clientId: the same terms (every signed field but nonce) as an open order with that clientId return that order; other terms are a 409. ${ORDER_SIGNING}`, auth: true, signed: true, submitsOrders: true, body: ORDER_REQUEST_SCHEMA, response: S.ORDERS_SCHEMA,
  errors: [...BAD_BODY, [400, say(OrderText.periodNotAllowed, 'Limit')], ...ORDER_FIELD_ERRORS, [400, say(RouteText.groupOnBatch, '<orderType>')], [400, RouteText.pairOnBatch], NOT_DELEGATED, DELEGATION_NOT_ALLOWED, SYMBOL_NOT_FOUND, ...ORDER_REFUSALS, ...CLIENT_ID_IN_USE],
};

export const SUBMIT_BATCH: Endpoint<BatchBody> = {
  method: 'post', path: '/account/orders', tag: 'Orders', summary: 'Submit a batch', description: 'Limit orders, a TWAP, an iceberg or a TP/SL pair: account, subaccountIndex, symbol, orderType and period identical across the batch; one signature and nonce per order, every signature checked before any order is placed (one bad signature refuses the batch: `Invalid signature`). A TWAP, an iceberg or a TP/SL pair is admitted whole or refused whole. Limit orders are placed in order and the first refusal stops the batch: a refusal of the first order is the answer; a later one answers the orders placed, then the refused order as `rejected` with its `reason` when the refusal spent its nonce; the orders after it are not submitted.', auth: true, signed: true, submitsOrders: true, body: BATCH_SCHEMA, response: S.ORDER_BATCH_SCHEMA,
  errors: [...BAD_BODY, ...ORDER_FIELD_ERRORS, ...BATCH_ERRORS, NOT_DELEGATED, DELEGATION_NOT_ALLOWED, SYMBOL_NOT_FOUND, ...ORDER_REFUSALS, ...CLIENT_ID_IN_USE],
};
