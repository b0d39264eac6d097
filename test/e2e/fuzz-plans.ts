/**
 * What the fuzz test sends, as data: a `Plan` is one HTTP request (method, path, query, body,
 * bearer token, extra headers) whose values may still name things only the running test knows
 * (`Ref`: a trader's address, an order id seen earlier, a fresh nonce) and whose body may be a
 * `SignedSpec`, signed when it is sent. `planArbitrary` draws plans:
 *
 *  - from the OpenAPI document: every route, its path and query parameters and its JSON body
 *    generated from the published schemas, with names that mean more than their schema
 *    (account, symbol, price, quantity, nonce…) drawn from the exchange's own world, then
 *    sometimes mutated (a field missing, unknown, repeated or hostile);
 *  - signed writes that pass validation and the signature check, so the matching engine, the
 *    ledger and the conditional-order paths run (orders that rest and cross, batches, TWAPs,
 *    icebergs, TP/SL pairs, trailing stops, transfers, margin changes, delegations), sometimes
 *    tampered with after signing;
 *  - hostile requests: unknown routes and methods, bodies that are not JSON, empty or larger
 *    than the 64 KiB limit, chunked bodies, malformed percent-escapes, bad or absent bearer
 *    tokens, and the operator API with and without its key (index prices that jump 10 %).
 */
import fc from 'fast-check';
import { anyUnicode } from '../fixtures/arbitrary-strings.ts';
import { hostileScalar, mutated, RawJson, Ref, valueOf, type Hint, type Schema } from './fuzz-schema.ts';
import { ZERO_ADDRESS } from '../../src/types/address.ts';

/** A market as the fuzzer prices it: tick and lot as integers at a decimal scale, and a mid price in ticks. */
export interface FuzzMarket {
  symbol: string;
  base: string;
  tick: { units: bigint; scale: number };
  lot: { units: bigint; scale: number };
  minLots: number;
  midTicks: number;
  feedId: string;
}

export interface FuzzWorld {
  markets: readonly FuzzMarket[];
  traders: number;
  /** The OpenAPI document (`openApiDocument()`). */
  document: Record<string, any>;
}

export type AuthSpec =
  | { kind: 'none' }
  | { kind: 'token'; trader: number }
  | { kind: 'header'; value: string }
  /** The trader's token with one character changed, its signature cut, alg set to none, and so on. */
  | { kind: 'forged'; trader: number; how: 'flip' | 'truncate' | 'algNone' | 'lowercaseScheme' | 'twice' };

export interface QueryPair {
  name: string;
  value: string | Ref;
  /** Written without percent-encoding (hostile text goes on the request line as is). */
  raw: boolean;
}

export interface OrderDraft {
  trader: number;
  subaccountIndex: number;
  symbol: string;
  orderType: string;
  price: string;
  quantity: string;
  ioc: boolean;
  postOnly: boolean;
  reduceOnly: boolean;
  clientId: string | Ref | null;
  triggerPrice: string | null;
  trailingPercent: string | null;
  parentOrderId: string | Ref | null;
  period: number | null;
  /** 0: good till cancelled; 'future' / 'past': relative to the clock when sent. */
  expiresAt: 0 | 'future' | 'past';
}

export type Tamper = 'none' | 'editAfterSigning' | 'otherSigner' | 'badSignature' | 'noSignature' | 'twoSignatures' | 'replayNonce' | 'otherToken';

export type SignedSpec =
  | { action: 'order'; signer: number; orders: OrderDraft[]; batch: boolean; tamper: Tamper }
  | { action: 'transfer'; trader: number; to: number; subFrom: number; subTo: number; amount: string; feed: number; expired: boolean; tamper: Tamper }
  | { action: 'margin'; trader: number; signer: number; symbol: string; isolated: boolean; margin: string; tamper: Tamper }
  | { action: 'delegation'; trader: number; delegate: number; scopes: string; change: 'add' | 'remove'; tamper: Tamper };

export type BodySpec =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: number[] }
  /** A JSON string of `size` bytes in total (the 64 KiB limit is 65,536). */
  | { kind: 'filler'; size: number }
  | { kind: 'signed'; spec: SignedSpec };

export interface Plan {
  /** The route as the statistics name it (`POST /account/order`). */
  label: string;
  method: string;
  path: ReadonlyArray<string | { param: string | Ref; raw: boolean }>;
  query: QueryPair[];
  body: BodySpec;
  auth: AuthSpec;
  headers: Array<[string, string]>;
  /** Last octet of the 127.0.0.x source address. */
  source: number;
  /** The body goes chunked, in pieces of this many bytes. */
  chunkBytes?: number;
}

// ── numbers in the exchange's units ──────────────────────────────────────────────────────────

export function decimalUnits(text: string): { units: bigint; scale: number } {
  const [whole, fraction = ''] = text.split('.');
  return { units: BigInt(whole + fraction), scale: fraction.length };
}

/** `units` × 10^-scale as a decimal string with no trailing zeros. */
export function formatUnits(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? '.' + fraction : ''}`;
}

const priceOf = (m: FuzzMarket, ticks: number) => formatUnits(BigInt(ticks) * m.tick.units, m.tick.scale);
const quantityOf = (m: FuzzMarket, lots: number) => formatUnits(BigInt(lots) * m.lot.units, m.lot.scale);

// ── values the exchange knows ─────────────────────────────────────────────────────────────────

const hexString = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => '0x' + Buffer.from(b).toString('hex'));
const randomAddress = hexString(20);
const rarely = (weight: number) => fc.oneof({ weight, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });

/** Decimal strings a parser must refuse or bound: exponent, extra precision, sign, huge, NaN. */
const edgeDecimal = fc.oneof(
  fc.constantFrom('0', '-0', '0.0', '00.1', '1e5', '1E-2', 'NaN', 'Infinity', '-Infinity', '1.', '.1', '+1', '1,5', ' 1', '', '-', '0x1', '١', '1.5.5'),
  fc.integer({ min: 1, max: 60 }).map((n) => '1.' + '0'.repeat(n - 1) + '1'),
  fc.integer({ min: 16, max: 60 }).map((n) => '9'.repeat(n)),
  fc.integer({ min: 16, max: 40 }).map((n) => '-' + '9'.repeat(n)),
  fc.constantFrom('9007199254740991', '9007199254740992', '900719925474099.1', '0.00000000000000000000000000000000000001'),
);

/** Generators for body properties and query parameters whose names say more than their schemas. */
export function worldHints(world: FuzzWorld): { body: Hint; query: (name: string, schema: Schema) => fc.Arbitrary<string | Ref> | undefined } {
  const { markets, traders } = world;
  const trader = fc.integer({ min: 0, max: traders - 1 }).map((i) => new Ref('trader', i));
  // Mostly the caller's own account, so that reads pass the authorization check.
  const address = fc.oneof(
    { weight: 8, arbitrary: fc.constant(new Ref('self', 0)) },
    { weight: 3, arbitrary: trader },
    { weight: 1, arbitrary: randomAddress },
    { weight: 1, arbitrary: fc.constantFrom(ZERO_ADDRESS, '0x' + 'F'.repeat(40), '0xABCDEF' + '0'.repeat(34)) },
  );
  const market = fc.constantFrom(...markets);
  const symbol = fc.oneof(
    { weight: 8, arbitrary: market.map((m) => m.symbol) },
    { weight: 2, arbitrary: market.map((m) => m.base) },
    { weight: 1, arbitrary: market.map((m) => m.symbol.toLowerCase()) },
    { weight: 1, arbitrary: fc.constantFrom('DOGE-USD-PERP', 'BTC-USD', 'BTC-USD-PERP ', '-PERP', 'btc', 'BTC/USD', 'ÄÖÜ-USD-PERP', '😀') },
    { weight: 1, arbitrary: fc.string({ maxLength: 50 }) },
  );
  const price = fc.oneof(
    { weight: 8, arbitrary: fc.tuple(market, fc.integer({ min: -300, max: 300 })).map(([m, d]) => priceOf(m, Math.max(1, m.midTicks + d))) },
    { weight: 1, arbitrary: market.map((m) => priceOf(m, m.midTicks) + '5') },
    { weight: 2, arbitrary: edgeDecimal },
  );
  const quantity = fc.oneof(
    { weight: 8, arbitrary: fc.tuple(market, fc.integer({ min: 1, max: 3000 }), fc.boolean()).map(([m, lots, sell]) => quantityOf(m, sell ? -lots : lots)) },
    { weight: 2, arbitrary: edgeDecimal },
  );
  const uint = fc.oneof({ weight: 6, arbitrary: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom(Number.MAX_SAFE_INTEGER, 2 ** 32, 2 ** 31 - 1)) }, { weight: 1, arbitrary: hostileScalar });

  const body: Hint = (name) => {
    switch (name) {
      case 'account':
      case 'accountFrom':
      case 'accountTo':
      case 'target':
      case 'delegate':
      case 'address':
        return address;
      case 'originator':
        return fc.oneof({ weight: 4, arbitrary: fc.constant(ZERO_ADDRESS) }, { weight: 1, arbitrary: address });
      case 'subaccountIndex':
      case 'subaccountIndexFrom':
      case 'subaccountIndexTo':
        return fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constantFrom(-1, 2 ** 31, 2 ** 31 - 1, 1.5, '0') });
      case 'symbol':
        return symbol;
      case 'price':
      case 'triggerPrice':
        return price;
      case 'quantity':
        return quantity;
      case 'amount':
        return fc.oneof(fc.constantFrom('1', '10.5', '0.000001', '0.0000001', '100000000', '1.1234567'), edgeDecimal);
      case 'margin':
        return fc.oneof(fc.constantFrom('0.02', '0.05', '0.33', '1', '0.01', '1.01', '0.123456789'), edgeDecimal);
      case 'trailingPercent':
        return fc.oneof(fc.constantFrom(null, '0.05', '0.5', '0', '1', '0.000000001'), edgeDecimal);
      case 'nonce':
        return fc.oneof({ weight: 6, arbitrary: fc.constant(new Ref('nonce', 0)) }, { weight: 1, arbitrary: uint });
      case 'expiresAt':
        return fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.constant(new Ref('future', 0)) }, { weight: 1, arbitrary: uint });
      case 'originatorFee':
      case 'period':
        return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(0, null, 60_000) }, { weight: 1, arbitrary: uint });
      case 'orderType':
        return fc.constantFrom('limit', 'Limit', 'LIMIT', 'twap', 'iceberg', 'takeProfit', 'stopLoss', 'trailingStop', 'unsupported', 'market', '', 'TakeProfit');
      case 'clientId':
        return fc.oneof(fc.constant(null), fc.stringMatching(/^[a-z0-9-]{1,12}$/), fc.integer({ min: 0, max: 50 }).map((i) => new Ref('clientId', i)), fc.constantFrom('x'.repeat(37), 'ü', ''));
      case 'parentOrderId':
      case 'orderIds[]':
        return fc.oneof(fc.integer({ min: 0, max: 1000 }).map((i) => new Ref('orderId', i)), hexString(8), fc.constantFrom('0x', '0x' + 'f'.repeat(16), '0xzz', '1', '-1'));
      case 'clientIds[]':
        return fc.oneof(fc.integer({ min: 0, max: 50 }).map((i) => new Ref('clientId', i)), fc.string({ maxLength: 40 }));
      case 'signatures':
        return fc.oneof(
          fc.array(hexString(65), { minLength: 1, maxLength: 2 }),
          fc.constantFrom([], ['0x'], [''], Array(9).fill('0x00'), ['0x' + '0'.repeat(130)], ['0x' + 'f'.repeat(130)]),
        );
      case 'feedId':
        return fc.oneof(market.map((m) => m.feedId), hexString(32), fc.constantFrom('0x', '0x' + '1'.repeat(65)));
      case 'scopes':
        return fc.constantFrom('trade', 'read', 'trade,read', 'read,trade', '', 'write', 'TRADE', 'trade,');
      case 'message':
        return fc.oneof(fc.string({ maxLength: 100 }), fc.constant('127.0.0.1 wants you to sign in with your Ethereum account:\n' + ZERO_ADDRESS + '\n\nNonce: 1'));
      case 'signature':
        return fc.oneof(hexString(65), fc.string({ maxLength: 20 }));
      default:
        return undefined;
    }
  };

  const query = (name: string): fc.Arbitrary<string | Ref> | undefined => {
    switch (name) {
      case 'account':
      case 'signer':
        return address;
      case 'subaccountIndex':
        return fc.oneof({ weight: 6, arbitrary: fc.constant('0') }, { weight: 1, arbitrary: fc.constant('1') }, { weight: 1, arbitrary: fc.constantFrom('-1', '2147483648', '2147483647', '01', '1e1', '0x1', ' 0', '') });
      case 'symbol':
        return symbol;
      case 'orderId':
        return fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 1000 }).map((i) => new Ref('orderId', i)) }, { weight: 1, arbitrary: hexString(8) }, { weight: 1, arbitrary: fc.constantFrom('0x', '0x' + 'f'.repeat(17), 'abc', '-1', '0x-1') });
      case 'clientId':
        return fc.oneof(fc.integer({ min: 0, max: 50 }).map((i) => new Ref('clientId', i)), fc.string({ maxLength: 40 }));
      case 'tickSize':
        return fc.oneof(fc.tuple(market, fc.constantFrom(1, 2, 3, 5, 10, 100, 1000, 10000)).map(([m, k]) => formatUnits(m.tick.units * BigInt(k), m.tick.scale)), edgeDecimal);
      default:
        return undefined;
    }
  };
  return { body, query };
}

/** A hostile value as query text: strings as they are, raw JSON as written, the rest as JSON. */
const asText = (v: unknown): string => (typeof v === 'string' ? v : v instanceof RawJson ? v.text : (JSON.stringify(v) ?? String(v)));

/** A query value from its schema: mostly valid, sometimes the strict parsers' favourite traps. */
function queryValue(schema: Schema, resolve: (ref: string) => Schema): fc.Arbitrary<string> {
  const numeric = fc.constantFrom('1e3', '-1', '1.5', '0x10', ' 5', '5 ', '+5', '05', '', '9007199254740993', '99999999999999999999', 'NaN', 'Infinity', '٣');
  if (schema.type === 'integer') {
    return fc.oneof({ weight: 5, arbitrary: valueOf(schema, resolve, () => undefined).map(String) }, { weight: 2, arbitrary: numeric }, { weight: 1, arbitrary: fc.constantFrom(String(schema.minimum - 1), String((schema.maximum ?? 0) + 1)) });
  }
  if (schema.type === 'array') return fc.array(valueOf(schema.items, resolve, () => undefined).map(String), { minLength: 1, maxLength: 3 }).map((v) => v.join(','));
  return fc.oneof({ weight: 5, arbitrary: valueOf(schema, resolve, () => undefined).map(String) }, { weight: 1, arbitrary: hostileScalar.map(asText) });
}

// ── signed writes ─────────────────────────────────────────────────────────────────────────────

const tamper: fc.Arbitrary<Tamper> = fc.oneof(
  { weight: 24, arbitrary: fc.constant<Tamper>('none') },
  { weight: 1, arbitrary: fc.constantFrom<Tamper>('editAfterSigning', 'otherSigner', 'badSignature', 'noSignature', 'twoSignatures', 'replayNonce', 'otherToken') },
);

function orderDrafts(world: FuzzWorld): fc.Arbitrary<{ orders: OrderDraft[]; batch: boolean }> {
  const { markets, traders } = world;
  // BTC most often, so that orders meet on one book.
  const market = fc.oneof({ weight: 4, arbitrary: fc.constant(markets[0]) }, { weight: 1, arbitrary: fc.constantFrom(...markets) });
  // Sizes near the minimum mostly; now and then the extremes (up to 2^53 − 1 lots).
  const lots = (m: FuzzMarket) =>
    fc.oneof(
      { weight: 12, arbitrary: fc.integer({ min: m.minLots, max: m.minLots * 50 }) },
      { weight: 2, arbitrary: fc.integer({ min: 1, max: 100_000 }) },
      { weight: 1, arbitrary: fc.constantFrom(0, 1, 10 ** 6, 10 ** 9, 10 ** 12, Number.MAX_SAFE_INTEGER) },
    );
  // Subaccount 1 holds 1,000 USD: it trades near its leverage limit, so that a jump of the
  // index price liquidates it.
  const leveraged = (m: FuzzMarket) => fc.integer({ min: m.minLots * 100, max: m.minLots * 5000 });
  // Prices near the mid mostly; now and then one tick, or the largest price there is.
  const ticks = (m: FuzzMarket) =>
    fc.oneof(
      { weight: 30, arbitrary: fc.integer({ min: -150, max: 150 }).map((d) => Math.max(1, m.midTicks + d)) },
      { weight: 1, arbitrary: fc.constantFrom(1, 2, m.midTicks * 10, 10 ** 13, Number.MAX_SAFE_INTEGER) },
    );
  const clientId = fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.stringMatching(/^fz-[a-z0-9]{1,8}$/) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 50 }).map((i) => new Ref('clientId', i)) });
  const base = (trader: number, m: FuzzMarket, side: 1 | -1, type: string, sub = 0) =>
    fc
      .record({
        ticks: ticks(m),
        lots: sub === 1 ? leveraged(m) : lots(m),
        ioc: rarely(5),
        postOnly: rarely(6),
        reduceOnly: rarely(6),
        clientId,
        expiresAt: fc.oneof({ weight: 28, arbitrary: fc.constant<0>(0) }, { weight: 1, arbitrary: fc.constant<'future'>('future') }, { weight: 1, arbitrary: fc.constant<'past'>('past') }),
        offTick: rarely(60),
      })
      .map(
        (r): OrderDraft => ({
          trader,
          subaccountIndex: sub,
          symbol: m.symbol,
          orderType: type,
          price: priceOf(m, r.ticks) + (r.offTick ? '01' : ''),
          quantity: quantityOf(m, side * r.lots),
          ioc: r.ioc,
          postOnly: r.postOnly,
          reduceOnly: r.reduceOnly,
          clientId: r.clientId,
          triggerPrice: null,
          trailingPercent: null,
          parentOrderId: null,
          period: null,
          expiresAt: r.expiresAt,
        }),
      );
  const side = fc.constantFrom<1 | -1>(1, -1);
  const who = fc.integer({ min: 0, max: traders - 1 });
  const sub = fc.oneof({ weight: 8, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) });
  const trigger = (m: FuzzMarket) => fc.integer({ min: -400, max: 400 }).map((d) => priceOf(m, Math.max(1, m.midTicks + d)));
  return fc.oneof(
    // One limit order.
    { weight: 12, arbitrary: fc.tuple(who, market, side, sub).chain(([t, m, s, a]) => base(t, m, s, 'limit', a)).map((o) => ({ orders: [o], batch: false })) },
    // A batch of limit orders.
    { weight: 2, arbitrary: fc.tuple(who, market, side, sub).chain(([t, m, s, a]) => fc.array(base(t, m, s, 'limit', a), { minLength: 1, maxLength: 5 })).map((orders) => ({ orders, batch: true })) },
    // A TWAP: slices on one side, a period.
    {
      weight: 1,
      arbitrary: fc
        .tuple(who, market, side, fc.constantFrom(60_000, 1, 3_600_000))
        .chain(([t, m, s, period]) => fc.array(base(t, m, s, 'twap').map((o) => ({ ...o, period })), { minLength: 1, maxLength: 4 }))
        .map((orders) => ({ orders, batch: true })),
    },
    // An iceberg: equal display quantities, the last no larger.
    {
      weight: 1,
      arbitrary: fc
        .tuple(who, market, side)
        .chain(([t, m, s]) => fc.tuple(base(t, m, s, 'iceberg'), fc.integer({ min: 1, max: 4 })))
        .map(([o, n]) => ({ orders: Array.from({ length: n }, () => ({ ...o })), batch: true })),
    },
    // A TP/SL pair, on the position or on a parent order.
    {
      weight: 2,
      arbitrary: fc.tuple(who, market, side, fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 1000 }).map((i) => new Ref('orderId', i)))).chain(([t, m, s, parent]) =>
        fc.tuple(base(t, m, s, 'takeProfit'), base(t, m, s, 'stopLoss'), trigger(m), trigger(m), rarely(8)).map(([tp, sl, a, b, swapped]) => {
          // A sell pair closes a long: take profit above the stop loss; a buy pair the other way.
          const [low, high] = Number(a) <= Number(b) ? [a, b] : [b, a];
          const [tpAt, slAt] = (s === -1) !== swapped ? [high, low] : [low, high];
          return { orders: [{ ...tp, triggerPrice: tpAt, parentOrderId: parent }, { ...sl, triggerPrice: slAt, parentOrderId: parent }], batch: true };
        }),
      ),
    },
    // A lone conditional order: stop loss, take profit or trailing stop.
    {
      weight: 2,
      arbitrary: fc
        .tuple(who, market, side, fc.constantFrom('stopLoss', 'takeProfit', 'trailingStop', 'StopLoss', 'TRAILINGSTOP'))
        .chain(([t, m, s, type]) =>
          fc.tuple(base(t, m, s, type), trigger(m), fc.constantFrom('0.05', '0.01', '0.5', '0.00000001', '0.999')).map(([o, tp, pct]) => (/trailing/i.test(type) ? { ...o, trailingPercent: pct } : { ...o, triggerPrice: tp })),
        )
        .map((o) => ({ orders: [o], batch: false })),
    },
    // Anything goes: mixed types and markets in one batch.
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(who, market, side, fc.constantFrom('limit', 'twap', 'iceberg', 'takeProfit', 'stopLoss', 'trailingStop')).chain(([t, m, s, type]) => base(t, m, s, type)), { minLength: 1, maxLength: 4 })
        .map((orders) => ({ orders, batch: true })),
    },
  );
}

function signedSpec(world: FuzzWorld): fc.Arbitrary<SignedSpec> {
  const who = fc.integer({ min: 0, max: world.traders - 1 });
  const sub = fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) });
  return fc.oneof(
    {
      weight: 14,
      arbitrary: fc
        .tuple(orderDrafts(world), tamper, who, rarely(8))
        .map(([drafts, t, delegate, byDelegate]): SignedSpec => ({ action: 'order', signer: byDelegate ? delegate : drafts.orders[0].trader, ...drafts, tamper: t })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          trader: who,
          // To another trader, or between the trader's own subaccounts (rarely the same one).
          toOther: fc.integer({ min: 0, max: world.traders - 1 }),
          subFrom: sub,
          sameSub: rarely(12),
          subTo: sub,
          amount: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('1', '5.5', '25', '100', '0.000001', '250.123456') }, { weight: 1, arbitrary: fc.constantFrom('1000000000', '0.0000001', '0', '99999999999') }),
          feed: fc.nat(),
          expired: rarely(12),
          tamper,
        })
        .map(({ toOther, sameSub, ...r }): SignedSpec => {
          const to = (r.trader + toOther) % world.traders;
          const subTo = to === r.trader && !sameSub ? 1 - r.subFrom : r.subTo;
          return { action: 'transfer', ...r, to, subTo };
        }),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          trader: who,
          bySomeoneElse: fc.oneof({ weight: 8, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: world.traders - 1 }) }),
          symbol: fc.constantFrom(...world.markets.map((m) => m.symbol)),
          isolated: fc.boolean(),
          margin: fc.constantFrom('0.02', '0.05', '0.1', '0.33', '1', '0.01', '0.019'),
          tamper,
        })
        .map(({ bySomeoneElse, ...r }): SignedSpec => ({ action: 'margin', ...r, signer: (r.trader + bySomeoneElse) % world.traders })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          trader: who,
          // Another trader; rarely itself.
          offset: fc.oneof({ weight: 10, arbitrary: fc.integer({ min: 1, max: world.traders - 1 }) }, { weight: 1, arbitrary: fc.constant(0) }),
          scopes: fc.constantFrom('trade', 'read', 'trade,read', 'trade', 'write'),
          change: fc.constantFrom<'add' | 'remove'>('add', 'add', 'remove'),
          tamper,
        })
        .map(({ offset, ...r }): SignedSpec => ({ action: 'delegation', ...r, delegate: (r.trader + offset) % world.traders, scopes: r.change === 'remove' ? '' : r.scopes })),
    },
  );
}

// ── the plans ─────────────────────────────────────────────────────────────────────────────────

function authFor(world: FuzzWorld, needsAuth: boolean): fc.Arbitrary<AuthSpec> {
  const token = fc.integer({ min: 0, max: world.traders - 1 }).map((trader): AuthSpec => ({ kind: 'token', trader }));
  const bad = fc.oneof(
    fc.constant<AuthSpec>({ kind: 'none' }),
    fc.constantFrom<AuthSpec>(
      { kind: 'header', value: 'Bearer' },
      { kind: 'header', value: 'Bearer ' },
      { kind: 'header', value: 'Bearer abc.def.ghi' },
      { kind: 'header', value: 'Basic dXNlcjpwYXNz' },
      { kind: 'header', value: 'Bearer eyJhbGciOiJub25lIn0.e30.' },
      { kind: 'header', value: 'Bearer ' + 'A'.repeat(6000) },
      { kind: 'header', value: 'Bearer ünïcödé' },
    ),
    fc
      .tuple(fc.integer({ min: 0, max: world.traders - 1 }), fc.constantFrom<'flip' | 'truncate' | 'algNone' | 'lowercaseScheme' | 'twice'>('flip', 'truncate', 'algNone', 'lowercaseScheme', 'twice'))
      .map(([trader, how]): AuthSpec => ({ kind: 'forged', trader, how })),
  );
  return needsAuth
    ? fc.oneof({ weight: 12, arbitrary: token }, { weight: 2, arbitrary: bad })
    : fc.oneof({ weight: 8, arbitrary: fc.constant<AuthSpec>({ kind: 'none' }) }, { weight: 1, arbitrary: token }, { weight: 1, arbitrary: bad });
}

const source = fc.integer({ min: 2, max: 41 });
/** Most bodies go with a Content-Length; some chunked (the size limit is then found while reading). */
const chunking = fc.option(fc.constantFrom(1, 7, 1000, 16_384), { nil: undefined, freq: 8 });
const contentType = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Array<[string, string]>>([['Content-Type', 'application/json']]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Array<[string, string]>>([], [['Content-Type', 'text/plain']], [['Content-Type', 'application/json; charset=utf-16']], [['Content-Type', 'multipart/form-data; boundary=x']]),
  },
);

const invalidJson: fc.Arbitrary<BodySpec> = fc.oneof(
  fc.constantFrom<BodySpec>(
    { kind: 'none' },
    { kind: 'text', text: '' },
    { kind: 'text', text: '{' },
    { kind: 'text', text: '{"account":}' },
    { kind: 'text', text: '{"a":1,}' },
    { kind: 'text', text: "{'a':1}" },
    { kind: 'text', text: '{"price": NaN}' },
    { kind: 'text', text: '{"quantity": Infinity}' },
    { kind: 'text', text: '{"nonce": 1e400}' },
    { kind: 'text', text: 'null' },
    { kind: 'text', text: 'true' },
    { kind: 'text', text: '"string"' },
    { kind: 'text', text: '[]' },
    { kind: 'text', text: '\uFEFF{}' },
    { kind: 'text', text: '{"a":"\\ud800"}' },
    { kind: 'text', text: '{"a":"\\u0000"}' },
    { kind: 'bytes', bytes: [0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00] },
    { kind: 'bytes', bytes: [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d] },
    { kind: 'bytes', bytes: [0x00, 0x00, 0x00] },
  ),
  anyUnicode(200).map((text): BodySpec => ({ kind: 'text', text })),
  fc.constantFrom(65_536, 65_537, 70_000, 200_000).map((size): BodySpec => ({ kind: 'filler', size })),
);

/** Percent-escapes a decoder must survive: truncated, invalid hex, lone surrogates, overlong UTF-8. */
export const MALFORMED_ESCAPES = ['%', '%E0%A4%A', '%ZZ', '%ED%A0%80', '%C0%AF', '%FF', 'BTC%', '%00', '%2F..%2F'];

/** Plans for one OpenAPI operation: its parameters and body from the schemas. */
function operationPlan(world: FuzzWorld, path: string, method: string, op: Record<string, any>): fc.Arbitrary<Plan> {
  const resolve = (ref: string) => world.document.components.schemas[ref.split('/').pop()!];
  const hints = worldHints(world);
  const params = (op.parameters ?? []) as Array<{ name: string; in: 'path' | 'query'; required: boolean; schema: Schema }>;
  const segments = path.split('/').slice(1);
  const pathArb = fc.tuple(
    ...segments.map((segment) => {
      const name = /^\{(.+)\}$/.exec(segment)?.[1];
      if (name === undefined) return fc.constant<string | { param: string | Ref; raw: boolean }>(segment);
      const schema = params.find((p) => p.name === name)!.schema;
      return fc.oneof(
        { weight: 12, arbitrary: (hints.query(name, schema) ?? queryValue(schema, resolve)).map((param) => ({ param, raw: false })) },
        { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_ESCAPES).map((param) => ({ param, raw: true })) },
        { weight: 1, arbitrary: fc.constantFrom('é', '😀', '..', '.', 'BTC-USD-PERP;x', 'a'.repeat(3000)).map((param) => ({ param, raw: true })) },
      );
    }),
  );
  const query = params.filter((p) => p.in === 'query');
  const validValue = (p: (typeof query)[number]) => hints.query(p.name, p.schema) ?? valueOf(p.schema, resolve, () => undefined).map((v) => (Array.isArray(v) ? v.join(',') : String(v)));
  // Valid queries (every value in its schema, required ones present) get past the parsers
  // into the handlers; hostile ones make the parsers refuse.
  const validQuery = fc
    .tuple(
      ...query.map((p) =>
        p.required
          ? validValue(p).map((value): QueryPair[] => [{ name: p.name, value, raw: false }])
          : fc.option(validValue(p), { nil: undefined, freq: 2 }).map((value): QueryPair[] => (value === undefined ? [] : [{ name: p.name, value, raw: false }])),
      ),
    )
    .map((lists) => lists.flat());
  const hostileQuery = fc
    .tuple(
      ...query.map((p) =>
        fc.oneof(
          { weight: p.required ? 1 : 6, arbitrary: fc.constant<QueryPair[]>([]) },
          { weight: p.required ? 14 : 6, arbitrary: (hints.query(p.name, p.schema) ?? queryValue(p.schema, resolve)).map((value): QueryPair[] => [{ name: p.name, value, raw: false }]) },
          {
            weight: 1,
            arbitrary: fc.tuple(queryValue(p.schema, resolve), queryValue(p.schema, resolve)).map(([a, b]): QueryPair[] => [
              { name: p.name, value: a, raw: false },
              { name: p.name, value: b, raw: false },
            ]),
          },
          { weight: 1, arbitrary: fc.constantFrom('%', '%ZZ', '%E0%A4%A', 'a+b', '&&', '=', 'é', '😀').map((value): QueryPair[] => [{ name: p.name, value, raw: true }]) },
        ),
      ),
      fc.oneof(
        { weight: 4, arbitrary: fc.constant<QueryPair[]>([]) },
        { weight: 1, arbitrary: fc.tuple(fc.constantFrom('subAccountIndex', 'x', 'limit', '', 'account[]', 'symbol'), hostileScalar).map(([name, v]): QueryPair[] => [{ name, value: asText(v), raw: false }]) },
      ),
    )
    .map((lists) => lists.flat());
  const queryArb =
    query.length === 0
      ? fc.oneof({ weight: 8, arbitrary: fc.constant<QueryPair[]>([]) }, { weight: 1, arbitrary: hostileQuery })
      : fc.oneof({ weight: 3, arbitrary: validQuery }, { weight: 2, arbitrary: hostileQuery });
  const bodySchema = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
  const bodyArb: fc.Arbitrary<BodySpec> =
    bodySchema === undefined
      ? fc.oneof({ weight: 12, arbitrary: fc.constant<BodySpec>({ kind: 'none' }) }, { weight: 1, arbitrary: fc.constant<BodySpec>({ kind: 'text', text: '{"unexpected":"body"}' }) })
      : fc.oneof(
          { weight: 4, arbitrary: valueOf(bodySchema, resolve, hints.body).map((value): BodySpec => ({ kind: 'json', value })) },
          { weight: 4, arbitrary: mutated(valueOf(bodySchema, resolve, hints.body)).map((value): BodySpec => ({ kind: 'json', value })) },
          { weight: 1, arbitrary: invalidJson },
        );
  return fc.record({ path: pathArb, query: queryArb, body: bodyArb, auth: authFor(world, op.security?.length > 0), headers: contentType, source, chunkBytes: chunking }).map((r) => ({
    label: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    ...r,
  }));
}

/** Requests no route expects: unknown paths and methods, bodies where none belong. */
function strayPlan(world: FuzzWorld): fc.Arbitrary<Plan> {
  const paths = fc.oneof(
    fc.constantFrom('/app/', '/nope', '/MARKETS', '/markets/', '//markets', '/markets/extra', '/book', '/book/BTC-USD-PERP/extra', '/account', '/account/', '/account/orders/cancel/x', '/operator', '/.env', '/a/../markets', '/%2e%2e/markets', '/auth', '/auth/login/', '/docs/', '/openapi.json/x', '/' + 'x'.repeat(4000)),
    fc.array(fc.stringMatching(/^[a-zA-Z0-9._~-]{1,12}$/), { minLength: 1, maxLength: 5 }).map((parts) => '/' + parts.join('/')),
  );
  const method = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS') }, { weight: 1, arbitrary: fc.constantFrom('TRACE', 'FOO', 'get', 'PROPFIND') });
  const known = Object.keys(world.document.paths).map((p) => p.replace('{symbol}', 'BTC-USD-PERP'));
  const body = fc.oneof(fc.constant<BodySpec>({ kind: 'none' }), invalidJson);
  return fc.oneof(
    fc.record({ method, path: paths, body, auth: authFor(world, false), source }).map(
      (r): Plan => ({ label: 'stray path', method: r.method, path: r.path.split('/').slice(1), query: [], body: r.body, auth: r.auth, headers: [], source: r.source }),
    ),
    // Known paths with methods they may not take.
    fc.record({ method, path: fc.constantFrom(...known), body, auth: authFor(world, true), source }).map(
      (r): Plan => ({ label: 'other method', method: r.method, path: r.path.split('/').slice(1), query: [], body: r.body, auth: r.auth, headers: [], source: r.source }),
    ),
  );
}

/** The operator API and the testnet faucet: wrong and missing keys, and the real key with fuzzed bodies; the faucet with a trader's token, as it is called. */
function operatorPlan(world: FuzzWorld, operatorKey: string): fc.Arbitrary<Plan> {
  const hints = worldHints(world);
  const money = { type: 'object', properties: { account: { type: 'string' }, subaccountIndex: { type: 'integer', minimum: 0 }, amount: { type: 'string' } }, required: ['account', 'subaccountIndex', 'amount'] };
  // Mostly near the mid; now and then a jump of up to 10 % that liquidates and fires triggers
  // (the next index price brings the market back).
  const move = fc.oneof({ weight: 2, arbitrary: fc.double({ min: -0.001, max: 0.001, noNaN: true }) }, { weight: 1, arbitrary: fc.double({ min: -0.1, max: 0.1, noNaN: true }) });
  const priceBody = fc.tuple(fc.constantFrom(...world.markets), move).map(([m, f]) => ({ symbol: m.symbol, price: priceOf(m, Math.max(1, Math.round(m.midTicks * (1 + f)))) }));
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constant<Array<[string, string]>>([['X-Operator-Key', operatorKey]]) },
    { weight: 1, arbitrary: fc.constantFrom<Array<[string, string]>>([], [['X-Operator-Key', '']], [['X-Operator-Key', operatorKey + 'x']], [['X-Operator-Key', 'ü'.repeat(operatorKey.length)]]) },
  );
  const moneyBody = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({ account: fc.integer({ min: 0, max: world.traders - 1 }).map((i) => new Ref('trader', i)), subaccountIndex: fc.constantFrom(0, 1), amount: fc.constantFrom('1', '50', '0.5', '1000') }),
    },
    { weight: 1, arbitrary: mutated(valueOf(money, () => ({}), hints.body)) },
  );
  const plan = (path: string, method: string, body: BodySpec, headers: Array<[string, string]>, s: number): Plan => ({
    label: `${method} ${path}`,
    method,
    path: path.split('/').slice(1),
    query: [],
    body,
    auth: { kind: 'none' },
    headers,
    source: s,
  });
  return fc.oneof(
    fc.record({ which: fc.constantFrom('/operator/deposit', '/operator/withdraw'), body: moneyBody, headers: key, source }).map((r) => plan(r.which, 'POST', { kind: 'json', value: r.body }, r.headers, r.source)),
    fc.record({ body: fc.oneof(priceBody, mutated(priceBody)), headers: key, source }).map((r) => plan('/operator/index-price', 'POST', { kind: 'json', value: r.body }, r.headers, r.source)),
    fc.record({ headers: key, source }).map((r) => plan('/operator/state-hash', 'GET', { kind: 'none' }, r.headers, r.source)),
    fc
      .record({ body: mutated(fc.record({ account: hints.body('account', {})!, subaccountIndex: fc.constantFrom(0, 1) }, { requiredKeys: ['account'] })), trader: fc.integer({ min: 0, max: world.traders - 1 }), source })
      .map((r): Plan => ({ ...plan('/faucet', 'POST', { kind: 'json', value: r.body }, [['Content-Type', 'application/json']], r.source), auth: { kind: 'token', trader: r.trader } })),
  );
}

/** Signed writes on their routes, authorised by the signer's token. */
function signedPlan(world: FuzzWorld): fc.Arbitrary<Plan> {
  return fc.record({ spec: signedSpec(world), source, chunkBytes: chunking }).map(({ spec, source: s, chunkBytes }): Plan => {
    const path = spec.action === 'order' ? (spec.batch ? '/account/orders' : '/account/order') : spec.action === 'transfer' ? '/account/transfer' : spec.action === 'margin' ? '/account/margin' : '/account/delegates';
    const trader = spec.action === 'order' ? spec.signer : spec.trader;
    return { label: `signed POST ${path}`, method: 'POST', path: path.split('/').slice(1), query: [], body: { kind: 'signed', spec }, auth: { kind: 'token', trader }, headers: [['Content-Type', 'application/json']], source: s, chunkBytes };
  });
}

const STATIC_PATHS = ['/docs', '/openapi.json', '/'];

/**
 * Every plan the fuzzer sends, weighted so that most requests look valid enough to get past
 * validation: signed writes and schema-driven requests on every route dominate; hostile
 * framing, stray routes and the operator API fill the rest.
 */
export function planArbitrary(world: FuzzWorld, operatorKey: string): fc.Arbitrary<Plan> {
  const operations: fc.Arbitrary<Plan>[] = [];
  for (const [path, methods] of Object.entries(world.document.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(methods)) {
      // The pages and the document are large and static: fetched now and then below.
      if (STATIC_PATHS.includes(path)) continue;
      operations.push(operationPlan(world, path, method, op));
    }
  }
  const docs = fc.constantFrom(...STATIC_PATHS).map((p): Plan => ({ label: `GET ${p}`, method: 'GET', path: [p.slice(1)], query: [], body: { kind: 'none' }, auth: { kind: 'none' }, headers: [], source: 42 }));
  return fc.oneof(
    { weight: 30, arbitrary: signedPlan(world) },
    { weight: 40, arbitrary: fc.oneof(...operations) },
    { weight: 6, arbitrary: strayPlan(world) },
    { weight: 4, arbitrary: operatorPlan(world, operatorKey) },
    { weight: 1, arbitrary: docs },
  );
}
