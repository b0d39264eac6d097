/**
 * The POST /account/order body (and each element of POST /account/orders): its schema, and
 * the step from a valid body to an `OrderIntent` in integer units. Everything a user can get
 * wrong is refused here with a sentence naming the field; the signature is checked later over
 * the body's own strings (what the client signed), not over the converted values.
 */
import { findMarket, priceToTicks, quantityToLots, lotsToQuantity, RATE_SCALE, type MarketSpec } from '../../config/market.ts';
import { formatDecimal, parseDecimal } from '../../numeric/decimal.ts';
import { OrderFlag, Side, parseOrderId } from '../../engine/types.ts';
import { canonicalOrderType, type OrderRequest } from '../../auth/typed-data.ts';
import { ORDER_TYPES, type OrderType } from '../../types/orders.ts';
import type { BatchOrder } from '../../app/commands.ts';
import { failure, GatewayCode, say } from '../errors.ts';
import { Field } from '../validation.ts';
import type { HttpReply } from '../uws.ts';
import type { OrderId } from '../../types/ids.ts';
import { lowercaseAddress } from '../../auth/address.ts';

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
/**
 * An optional string of the signed message: null, absent and `""` are one value (the EIP-712
 * message writes a null as `""`, so they sign identically), and a client that builds its body and
 * its message as one object sends `""`. `orderIntent` reads `""` as absent.
 */
const optionalString = (schema: { pattern?: string }) => nullable(schema.pattern === undefined ? schema : { ...schema, pattern: `^$|${schema.pattern}` });

const TP_SL_SCHEMA = {
  type: 'object',
  properties: { triggerPrice: Field.decimal, price: Field.decimal },
  additionalProperties: false,
} as const;

export const ORDER_REQUEST_SCHEMA = {
  title: 'OrderRequest',
  type: 'object',
  properties: {
    account: Field.address,
    subaccountIndex: Field.subaccountIndex,
    symbol: { type: 'string', minLength: 1, maxLength: 40 },
    orderType: { type: 'string', maxLength: 20, description: 'one of unsupported, limit, twap, takeProfit, stopLoss, trailingStop, iceberg (any letter case)' },
    price: Field.decimal,
    quantity: { ...Field.decimal, description: 'signed decimal string: positive buys, negative sells', 'x-rule': 'a signed decimal string: positive buys, negative sells' },
    nonce: Field.uint64,
    expiresAt: { ...Field.uint64, description: 'milliseconds; 0 = good till cancelled' },
    flags: {
      type: 'object',
      properties: { ioc: { type: 'boolean' }, postOnly: { type: 'boolean' }, reduceOnly: { type: 'boolean' } },
      required: ['ioc', 'postOnly', 'reduceOnly'],
      additionalProperties: false,
    },
    originator: Field.address,
    originatorFee: { ...Field.uint64, description: 'extra fee for the originator in 10^-8 of notional' },
    signatures: Field.signatures,
    clientId: optionalString({ type: 'string', pattern: '^[.A-Za-z0-9:/_-]{1,36}$', 'x-error': 'clientId must be 1 to 36 characters of letters, digits and . : / _ -' } as { pattern: string }),
    triggerPrice: optionalString(Field.decimal),
    parentOrderId: optionalString({ type: 'string', maxLength: 20 } as object),
    period: nullable(Field.uint64),
    trailingPercent: optionalString(Field.decimal),
    stopLoss: nullable(TP_SL_SCHEMA),
    takeProfit: nullable(TP_SL_SCHEMA),
  },
  required: ['account', 'subaccountIndex', 'symbol', 'orderType', 'price', 'quantity', 'nonce', 'expiresAt', 'flags', 'originator', 'originatorFee', 'signatures'],
  additionalProperties: false,
} as const;

export type OrderBody = OrderRequest & {
  signatures: string[];
  stopLoss?: { triggerPrice?: string; price?: string } | null;
  takeProfit?: { triggerPrice?: string; price?: string } | null;
};


/**
 * A valid order in integer units, ready for the sequencer: the journaled order's fields (see
 * `BatchOrder` in app/commands.ts for their units), with the market itself and the body
 * whose strings were signed, and without the signer, which is recovered later.
 */
export type OrderIntent = Omit<BatchOrder, 'market' | 'orderType' | 'signer' | 'signature'> & {
  market: MarketSpec;
  orderType: OrderType;
  body: OrderBody;
};

export type IntentResult = { ok: true; intent: OrderIntent } | { ok: false; reply: HttpReply };

/**
 * Every sentence `orderIntent` and the batch rules refuse an order with (400), written once: the
 * refusal fills a text's `<slots>` in order, and the API document lists the texts as they stand
 * (`ORDER_FIELD_ERRORS`), so a client generated from it knows each one it can meet.
 */
export const OrderText = {
  offTick: '<field> <value> is not a multiple of the tick size <tick>',
  ticksOutOfRange: '<field> must be positive and at most <max> ticks',
  notDecimal: '<field> must be a decimal string such as "1.5"',
  originatorFeeTooHigh: 'originatorFee must be at most <max> (<fraction> of notional) in <symbol>, got <n>',
  unknownOrderType: `orderType must be one of ${ORDER_TYPES.join(', ')}`,
  unsupportedOrderType: 'orderType unsupported is not supported',
  // `May not specify period on Limit order` is the spec's text; the other types say it the same way.
  periodNotAllowed: 'May not specify period on <Type> order',
  periodRequired: 'period must be nonzero for a twap order',
  offLot: 'quantity <value> is not a multiple of the lot size <lot>',
  quantityOutOfRange: 'quantity must be a non-zero decimal string within range',
  quantityZero: 'quantity must not be zero: positive buys, negative sells',
  belowMinSize: 'quantity must be at least the minimum size <min>',
  attachedObjects: '<field> objects on an order are not supported: submit a takeProfit and stopLoss pair on POST /account/orders',
  iocPostOnly: 'flags ioc and postOnly cannot both be set',
  triggerRequired: 'triggerPrice is required for a <orderType> order',
  triggerNotAllowed: 'May not specify triggerPrice on a <orderType> order: only takeProfit and stopLoss have one',
  trailingOutOfRange: 'trailingPercent must be a fraction between 0 and 1, such as "0.05"',
  trailingRequired: 'trailingPercent is required for a trailingStop order',
  trailingNotAllowed: 'May not specify trailingPercent on a <orderType> order: only trailingStop has one',
  parentNotOrderId: 'parentOrderId must be an orderId such as "0x0000010000000001"',
  parentNotAllowed: 'May not specify parentOrderId on a <orderType> order: it attaches a TP/SL pair to its parent order',
} as const;

/** The declarations' list of `OrderText` (http/endpoint `DocumentedError`). */
export const ORDER_FIELD_ERRORS = Object.values(OrderText).map((text) => [400, text] as const);

const bad = (text: string, ...values: Array<string | number | bigint>): IntentResult => ({ ok: false, reply: failure(GatewayCode.InvalidField, say(text, ...values)) });

function ticks(market: MarketSpec, field: string, text: string): number | string {
  const t = priceToTicks(market, text);
  if (typeof t === 'number') return t;
  if (t === 'offTick') return say(OrderText.offTick, field, text, market.tickSize);
  if (t === 'outOfRange') return say(OrderText.ticksOutOfRange, field, Number.MAX_SAFE_INTEGER);
  return say(OrderText.notDecimal, field);
}

/** The refusal of an originatorFee above the market's `maxOriginatorFee`: the limit in the field's units and as a fraction. */
export function originatorFeeTooHigh(market: MarketSpec, fee: string): string {
  return say(OrderText.originatorFeeTooHigh, market.maxOriginatorFee, formatDecimal(market.maxOriginatorFee, RATE_SCALE), market.symbol, fee);
}

/** Checks the meaning of a schema-valid body against the markets. */
export function orderIntent(body: OrderBody, markets: readonly MarketSpec[]): IntentResult {
  const market = findMarket(markets, body.symbol);
  if (market === undefined) return { ok: false, reply: failure(GatewayCode.SymbolNotFound) };
  const orderType = canonicalOrderType(body.orderType);
  if (orderType === undefined) return bad(OrderText.unknownOrderType);
  if (orderType === 'unsupported') return bad(OrderText.unsupportedOrderType);
  const period = body.period === undefined || body.period === null ? null : Number(body.period);
  if (orderType !== 'twap' && period !== null && period !== 0) return bad(OrderText.periodNotAllowed, `${orderType.charAt(0).toUpperCase()}${orderType.slice(1)}`);
  if (orderType === 'twap' && (period === null || period === 0)) return bad(OrderText.periodRequired);

  const price = ticks(market, 'price', body.price);
  if (typeof price === 'string') return bad(price);
  const lots = quantityToLots(market, body.quantity);
  if (lots === 'offLot') return bad(OrderText.offLot, body.quantity, market.lotSize);
  if (typeof lots !== 'number') return bad(OrderText.quantityOutOfRange);
  if (lots === 0) return bad(OrderText.quantityZero);
  if (Math.abs(lots) < market.minSizeLots) return bad(OrderText.belowMinSize, lotsToQuantity(market, market.minSizeLots));

  // Attached objects are not part of the signed message and the spec does not give their shape:
  // a stop the trader believes is set but is not would be worse than a clear refusal.
  for (const attached of ['stopLoss', 'takeProfit'] as const) {
    if (body[attached] !== undefined && body[attached] !== null) {
      return bad(OrderText.attachedObjects, attached);
    }
  }
  // Checked here as well as in the sequencer (OrderEntry): a refusal before the signature costs nothing.
  const originatorFee = Number(body.originatorFee);
  if (originatorFee > market.maxOriginatorFee) return bad(originatorFeeTooHigh(market, String(body.originatorFee)));
  const { ioc, postOnly, reduceOnly } = body.flags;
  if (ioc && postOnly) return bad(OrderText.iocPostOnly);
  let triggerPrice: number | null = null;
  if (body.triggerPrice !== undefined && body.triggerPrice !== null && body.triggerPrice !== '') {
    const t = ticks(market, 'triggerPrice', body.triggerPrice);
    if (typeof t === 'string') return bad(t);
    triggerPrice = t;
  }
  const fixedTrigger = orderType === 'takeProfit' || orderType === 'stopLoss';
  if (fixedTrigger && triggerPrice === null) return bad(OrderText.triggerRequired, orderType);
  if (!fixedTrigger && triggerPrice !== null) return bad(OrderText.triggerNotAllowed, orderType);
  let trailingPercent: bigint | null = null;
  if (body.trailingPercent !== undefined && body.trailingPercent !== null && body.trailingPercent !== '') {
    const p = parseDecimal(body.trailingPercent, RATE_SCALE);
    if (!p.ok || p.value <= 0n || p.value >= 10n ** BigInt(RATE_SCALE)) return bad(OrderText.trailingOutOfRange);
    trailingPercent = p.value;
  }
  if (orderType === 'trailingStop' && trailingPercent === null) return bad(OrderText.trailingRequired);
  if (orderType !== 'trailingStop' && trailingPercent !== null) return bad(OrderText.trailingNotAllowed, orderType);
  let parentOrderId: OrderId | null = null;
  if (body.parentOrderId !== undefined && body.parentOrderId !== null && body.parentOrderId !== '') {
    const id = parseOrderId(body.parentOrderId);
    if (id === undefined) return bad(OrderText.parentNotOrderId);
    parentOrderId = id;
    if (!fixedTrigger) return bad(OrderText.parentNotAllowed, orderType);
  }
  return {
    ok: true,
    intent: {
      market,
      account: lowercaseAddress(body.account),
      subaccountIndex: body.subaccountIndex,
      orderType,
      side: lots > 0 ? Side.Buy : Side.Sell,
      price,
      quantity: Math.abs(lots),
      flags: (ioc ? OrderFlag.ImmediateOrCancel : 0) | (postOnly ? OrderFlag.PostOnly : 0) | (reduceOnly ? OrderFlag.ReduceOnly : 0),
      expiresAt: Number(body.expiresAt),
      nonce: Number(body.nonce),
      clientId: body.clientId === undefined || body.clientId === '' ? null : body.clientId,
      originator: lowercaseAddress(body.originator),
      originatorFee,
      triggerPrice,
      parentOrderId,
      period,
      trailingPercent,
      body,
    },
  };
}
