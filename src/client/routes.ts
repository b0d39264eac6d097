/**
 * @module client/routes
 *
 * The client's table of the REST API: one entry per route of the API document (GET
 * /openapi.json, built from the route declarations, http/endpoints `ENDPOINTS`), named as the client's method, with
 * its method, path, who may call it (`public`, `token`: the bearer token, `operator`: the
 * X-Operator-Key) and its success schema. The schema objects are the server's own
 * (http/schemas.ts, pure data), so each method's response type is derived from the very schema
 * the server serializes with (`FromSchema`), never written twice.
 *
 * Drift: test/client/routes.test.ts checks this table against GET /openapi.json both ways (every
 * route here is in the document with the same security and response schema; every JSON route of
 * the document is here). HTML pages (`text/html`, such as GET /docs) are for browsers, not the
 * client, and are left out.
 *
 * May import: http/schemas (data only), json-schema-to-ts (types only).
 */
import type { FromSchema } from 'json-schema-to-ts';
import * as S from '../http/schemas.ts';

export type Access = 'public' | 'token' | 'operator';

export interface RouteSpec {
  readonly method: 'get' | 'post' | 'delete';
  /** OpenAPI form: `/book/{symbol}`. */
  readonly path: string;
  readonly access: Access;
  /** The success schema; `null` answers are `S.NULL_SCHEMA`, the reference documents `OBJECT`. */
  readonly response: { readonly title?: string; readonly type: unknown };
}

/** GET /openapi.json and GET /asyncapi.json (documents) and GET /cluster (a replicated node's role): any JSON object. */
const OBJECT = { type: 'object' } as const;

const route = <const M extends RouteSpec['method'], const P extends string, const A extends Access, const R extends RouteSpec['response']>(method: M, path: P, access: A, response: R) => ({ method, path, access, response });

/** Every JSON route of the REST API, by the client method that calls it. */
export const ROUTES = {
  // Market data
  config: route('get', '/config', 'public', S.CONFIG_SCHEMA),
  markets: route('get', '/markets', 'public', S.MARKETS_SCHEMA),
  time: route('get', '/time', 'public', S.TIME_SCHEMA),
  book: route('get', '/book/{symbol}', 'public', S.BOOK_SCHEMA),
  orderbook: route('get', '/orderbook', 'public', S.BOOK_SCHEMA),
  candles: route('get', '/candles/{symbol}', 'public', S.CANDLES_SCHEMA),
  trades: route('get', '/trades/{symbol}', 'public', S.PUBLIC_TRADES_SCHEMA),
  prices: route('get', '/price', 'public', S.PRICES_SCHEMA),
  summary: route('get', '/summary', 'public', S.SUMMARY_SCHEMA),
  // Login
  challenge: route('post', '/auth/challenge', 'public', S.CHALLENGE_SCHEMA),
  redeem: route('post', '/auth/login', 'public', S.LOGIN_SCHEMA),
  // Account
  stats: route('get', '/account/stats', 'token', S.ACCOUNT_STATS_SCHEMA),
  balance: route('get', '/account/balance', 'token', S.BALANCE_SCHEMA),
  positions: route('get', '/account/positions', 'token', S.POSITIONS_SCHEMA),
  fills: route('get', '/account/fills', 'token', S.ACCOUNT_FILLS_SCHEMA),
  margin: route('get', '/account/margin', 'token', S.MARGIN_SETTINGS_SCHEMA),
  setMargin: route('post', '/account/margin', 'token', S.NULL_SCHEMA),
  nextNonce: route('get', '/account/nonce', 'token', S.NONCE_SCHEMA),
  // Transfers
  transfer: route('post', '/account/transfer', 'token', S.NULL_SCHEMA),
  transfers: route('get', '/account/transfer/history', 'token', S.TRANSFERS_SCHEMA),
  // Delegation
  delegates: route('get', '/account/delegates', 'token', S.DELEGATES_SCHEMA),
  setDelegate: route('post', '/account/delegates', 'token', S.NULL_SCHEMA),
  signers: route('get', '/account/signers', 'token', S.SIGNERS_SCHEMA),
  // Orders
  placeOrder: route('post', '/account/order', 'token', S.ORDERS_SCHEMA),
  placeOrders: route('post', '/account/orders', 'token', S.ORDER_BATCH_SCHEMA),
  order: route('get', '/account/order', 'token', S.ORDER_SCHEMA),
  cancelOrder: route('delete', '/account/order', 'token', S.ORDER_SCHEMA),
  cancelOrders: route('post', '/account/orders/cancel', 'token', S.BATCH_CANCEL_SCHEMA),
  cancelAllOrders: route('delete', '/account/orders', 'token', S.BATCH_CANCEL_SCHEMA),
  orders: route('get', '/account/orders', 'token', S.ORDER_LIST_SCHEMA),
  // Testnet
  faucet: route('post', '/faucet', 'token', S.NULL_SCHEMA),
  // Operator
  deposit: route('post', '/operator/deposit', 'operator', S.NULL_SCHEMA),
  withdraw: route('post', '/operator/withdraw', 'operator', S.NULL_SCHEMA),
  setIndexPrice: route('post', '/operator/index-price', 'operator', S.NULL_SCHEMA),
  releaseIndexPrice: route('post', '/operator/index-price/release', 'operator', S.NULL_SCHEMA),
  snapshot: route('post', '/operator/snapshot', 'operator', S.SNAPSHOT_TAKEN_SCHEMA),
  stateHash: route('get', '/operator/state-hash', 'operator', S.STATE_HASH_SCHEMA),
  // Operations
  cluster: route('get', '/cluster', 'public', OBJECT),
  // Reference
  openApi: route('get', '/openapi.json', 'public', OBJECT),
  asyncApi: route('get', '/asyncapi.json', 'public', OBJECT),
} as const satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof ROUTES;

/** What a route answers on success, derived from its schema. */
type Answer<R> = R extends { readonly title: string } ? FromSchema<R> : Record<string, unknown>;

/** What each route answers on success, derived from its schema (documents without a title: any object). */
export type Responses = { [N in RouteName]: Answer<(typeof ROUTES)[N]['response']> };
export type ResponseOf<N extends RouteName> = Responses[N];

export type Market = FromSchema<typeof S.MARKET_SCHEMA>;
export type Order = FromSchema<typeof S.ORDER_SCHEMA>;
export type Position = FromSchema<typeof S.POSITION_SCHEMA>;
export type Level = FromSchema<typeof S.LEVEL_SCHEMA>;
