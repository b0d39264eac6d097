/**
 * GET /openapi.json and GET /docs: the OpenAPI 3.1 document of the whole REST API (and beside
 * it GET /asyncapi.json, the streaming feeds' AsyncAPI document, ws/asyncapi) and a
 * self-contained HTML reference page generated from it (no script, no CDN, no external file).
 *
 * The document is built from the same objects the routes use: request body schemas from
 * requests/*.ts (ajv), response schemas from schemas.ts (fast-json-stringify), query parameters
 * from the routes' declarations,
 * and every error a route can answer with its status and exact text (plain-text bodies; a `<n>`
 * in a text stands for the value sent). The testnet faucet and the operator API (its own
 * `X-Operator-Key` scheme) are documented beside the rest. `servers` names the address this
 * server is bound to, then the profile's public address. Built once, at the first request.
 * The order routes' response schemas are placeholders (`ORDER_SCHEMA`) until the order routes
 * supply theirs.
 */
import { signingRules } from '../../auth/typed-data.ts';
import { ORDER_REQUEST_SCHEMA } from '../requests/order.ts';
import { TRANSFER_REQUEST_SCHEMA } from '../requests/transfer.ts';
import { MARGIN_REQUEST_SCHEMA } from '../requests/margin.ts';
import { DELEGATION_REQUEST_SCHEMA } from '../requests/delegation.ts';
import { CHALLENGE_REQUEST_SCHEMA, LOGIN_REQUEST_SCHEMA } from './login.ts';
import * as S from '../schemas.ts';
import { param, type QueryParam } from '../query.ts';
import { BOOK_QUERY, ORDERBOOK_QUERY } from './book.ts';
import { CANDLES_QUERY } from './candles.ts';
import { TRADES_QUERY } from './trades.ts';
import { CANCEL_ALL_QUERY, ORDER_LIST_QUERY, ORDER_LOOKUP_QUERY } from './orders.ts';
import { ONE_MARKET_QUERY } from './price.ts';
import { STATS_QUERY, BALANCE_QUERY } from './account-stats.ts';
import { POSITIONS_QUERY } from './account-positions.ts';
import { FILLS_QUERY } from './account-fills.ts';
import { MARGIN_QUERY } from './account-margin.ts';
import { TRANSFER_HISTORY_QUERY } from './account-transfer.ts';
import { DELEGATES_QUERY, SIGNERS_QUERY } from './account-delegates.ts';
import { NONCE_QUERY } from './account-nonce.ts';
import { FAUCET_ALLOWANCE_USED, FAUCET_OTHER_ACCOUNT, FAUCET_REQUEST_SCHEMA, FAUCET_TERMS } from './faucet.ts';
import { OPERATOR_MONEY_SCHEMA, OPERATOR_PRICE_SCHEMA, OPERATOR_RELEASE_SCHEMA } from './operator.ts';
import { OPERATOR_KEY_FAILURES } from '../operator-key.ts';
import type { Route, HttpReply } from '../uws.ts';
import { asyncApiDocument } from '../../ws/asyncapi.ts';

type Schema = Readonly<Record<string, unknown>>;
type Errors = ReadonlyArray<readonly [number, string]>;

export interface Operation {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI form: `/book/{symbol}`. */
  path: string;
  tag: 'Market data' | 'Login' | 'Account' | 'Orders' | 'Transfers' | 'Delegation' | 'Testnet' | 'Operator' | 'Reference';
  summary: string;
  description: string;
  /** Bearer token and per-account budget (every /account/* route). */
  auth: boolean;
  /** A signed write: EIP-712 signature, nonce and expiry errors apply. */
  signed?: boolean;
  /** The operator API: `X-Operator-Key` instead of a token. */
  operator?: boolean;
  pathParams?: readonly QueryParam[];
  query?: readonly QueryParam[];
  body?: Schema;
  /** Success schema; `null` for a plain `null` body. */
  response: Schema;
  contentType?: 'application/json' | 'text/html';
  errors: Errors;
}

// ── errors shared by many routes ─────────────────────────────────────────────────────────────

const SYMBOL_NOT_FOUND = [404, 'Symbol not found'] as const;
const DB_FAILURE = [500, 'Internal server error: Database connection failed'] as const;
const LIMIT_5000 = [400, 'Limit must be between 1 and 5000, got <n>'] as const;
const WINDOW = [400, '<from|to> must be an integer >= 0 (milliseconds), got <value>'] as const;
/** What the one strict query parser (http/query) refuses on any route that takes parameters. */
const STRICT_QUERY: Errors = [
  [400, 'Unknown query parameter <name>; allowed: <names>'],
  [400, 'Query parameter <name> given more than once'],
];
const BAD_QUERY: Errors = [
  ...STRICT_QUERY,
  [400, 'Missing query parameter <name>'],
  [400, 'account must be a 0x-prefixed 20-byte hex address'],
  [400, 'Invalid subaccount index'],
];
const BAD_BODY: Errors = [
  [400, 'Request body must be valid JSON'],
  [400, 'Missing field <name> / Unknown field <name> / <field> must be …'],
  [400, 'Invalid subaccount index'],
];
const TOKEN: Errors = [
  [401, 'Please add the JWT token to the header'],
  [401, 'Invalid JWT token'],
  [401, 'JWT token expired, please log in again'],
  [429, 'Too many requests: at most 200 per second per account, retry after the cool-down'],
];
const SIGNED: Errors = [
  [400, 'Invalid signature'],
  [400, 'Request expired'],
  [409, 'Nonce already used'],
  [409, 'Nonce too low: must be greater than <min>'],
  [503, 'Service overloaded: <reason>'],
  DB_FAILURE,
];
/** The one rule of docs/auth.md: no grant on the subaccount, or a delegate without the scope. */
const ACCESS_DENIED: Errors = [
  [403, 'Not delegated for account and subaccount'],
  [403, 'Delegation not allowed for request'],
];
const PUBLIC_BUDGET = [429, 'Too many requests: at most 200 per second per source address, retry after the cool-down'] as const;
const OPERATOR_KEY: Errors = [
  [401, 'Operator key missing or wrong: send X-Operator-Key'],
  [429, `Too many wrong operator keys from this address, retry after <n> s`],
];
const OPERATOR_BODY: Errors = [[400, 'Request body must be valid JSON'], [400, 'Missing field <name> / Unknown field <name> / <field> must be …']];
const OPERATOR_AMOUNT = [400, 'amount must be a positive decimal string with at most 6 decimals'] as const;
const OVERLOADED = [503, 'Service overloaded: <reason>'] as const;

// ── parameters of the public and order routes ────────────────────────────────────────────────

const SYMBOL_PATH = [param('symbol', { type: 'string' }, 'market: `BASE-QUOTE-PERP` or a bare base such as `BTC`', true)];
const ORDER_BATCH_REQUEST = {
  title: 'OrderBatchRequest',
  type: 'object',
  properties: { orders: { type: 'array', minItems: 1, items: ORDER_REQUEST_SCHEMA } },
  required: ['orders'],
  additionalProperties: false,
} as const;

const BATCH_CANCEL_REQUEST = {
  title: 'BatchCancelRequest',
  type: 'object',
  properties: {
    account: { type: ['string', 'null'] },
    clientIds: { type: ['array', 'null'], items: { type: 'string' } },
    orderIds: { type: ['array', 'null'], items: { type: 'string' } },
  },
  additionalProperties: false,
} as const;

/** What an order's signature covers: GET /config's `signing` rules and worked example, in the route's text. */
const ORDER_SIGNING = (() => {
  const { rules, example } = signingRules().Order;
  return `The signed message is not the body itself (also in GET /config \`signing\`): ${rules.join('; ')}. Worked example: the body \`${JSON.stringify(example.body)}\` is signed as the Order message \`${JSON.stringify(example.message)}\`.`;
})();

/** What a 400 `Invalid signature` of a signed write carries besides its text. */
const SIGNATURE_HEADERS = {
  'X-Signed-Message': { description: 'on `Invalid signature`: the typed message the server hashed, compact JSON (bigints as decimal strings)', schema: { type: 'string' } },
  'X-Signature-Recovered': { description: 'on `Invalid signature`, when the signature recovers an address at all: that address', schema: { type: 'string' } },
};

const NULL: Schema = S.NULL_SCHEMA;
const TEXT: Schema = { type: 'string' };

/** Every route of the REST API. */
export const OPERATIONS: readonly Operation[] = [
  // Market data
  { method: 'get', path: '/config', tag: 'Market data', summary: 'Deployment configuration', description: 'Profile, chain id, verifying contract, the EIP-712 domain and types to sign with (`eip712`: pass `domain`, `types` and a primary type to viem or ethers `signTypedData`), markets and limits.', auth: false, response: S.CONFIG_SCHEMA, errors: [PUBLIC_BUDGET] },
  { method: 'get', path: '/markets', tag: 'Market data', summary: 'Markets', description: 'Every market with its tick, lot, minimum size, leverage, margin tiers, fees and funding parameters (decimal strings).', auth: false, response: S.MARKETS_SCHEMA, errors: [PUBLIC_BUDGET] },
  { method: 'get', path: '/time', tag: 'Market data', summary: 'Server time', description: 'Milliseconds since the epoch: align `expiresAt` and nonces with it.', auth: false, response: S.TIME_SCHEMA, errors: [PUBLIC_BUDGET] },
  {
    method: 'get', path: '/book/{symbol}', tag: 'Market data', summary: 'Order book', description: 'L2 snapshot: asks ascending, bids descending, `time` in seconds.', auth: false, pathParams: SYMBOL_PATH,
    query: BOOK_QUERY,
    response: S.BOOK_SCHEMA, errors: [SYMBOL_NOT_FOUND, ...STRICT_QUERY, [400, 'Depth must be between 1 and 5000'], [400, "tickSize must be the market's tick size <tick> times 1, 2, 5, 10, 100 or 1000"], PUBLIC_BUDGET],
  },
  {
    method: 'get', path: '/orderbook', tag: 'Market data', summary: 'Order book (query form)', description: 'The same snapshot as GET /book/{symbol}, with the market in the `symbol` query parameter.', auth: false,
    query: ORDERBOOK_QUERY,
    response: S.BOOK_SCHEMA, errors: [...STRICT_QUERY, [400, 'Missing query parameter symbol'], SYMBOL_NOT_FOUND, [400, 'Depth must be between 1 and 5000'], [400, "tickSize must be the market's tick size <tick> times 1, 2, 5, 10, 100 or 1000"], PUBLIC_BUDGET],
  },
  {
    method: 'get', path: '/candles/{symbol}', tag: 'Market data', summary: 'Candles', description: 'Candles of one interval, ascending by start (`time` in seconds); periods without trades are absent.', auth: false, pathParams: SYMBOL_PATH,
    query: CANDLES_QUERY,
    response: S.CANDLES_SCHEMA, errors: [[404, 'Market <symbol> not found'], ...STRICT_QUERY, [400, 'Interval must be one of 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, got <interval>'], LIMIT_5000, WINDOW, DB_FAILURE, PUBLIC_BUDGET],
  },
  {
    method: 'get', path: '/trades/{symbol}', tag: 'Market data', summary: 'Public trades', description: 'Trades of a market, newest first (`time` in seconds, `side` of the aggressor).', auth: false, pathParams: SYMBOL_PATH,
    query: TRADES_QUERY,
    response: S.PUBLIC_TRADES_SCHEMA, errors: [SYMBOL_NOT_FOUND, ...STRICT_QUERY, LIMIT_5000, WINDOW, DB_FAILURE, PUBLIC_BUDGET],
  },
  { method: 'get', path: '/price', tag: 'Market data', summary: 'Mark, index and last prices', description: 'One entry per market (or the one `symbol` names); null when not known yet.', auth: false, query: ONE_MARKET_QUERY, response: S.PRICES_SCHEMA, errors: [SYMBOL_NOT_FOUND, ...STRICT_QUERY, DB_FAILURE, PUBLIC_BUDGET] },
  { method: 'get', path: '/summary', tag: 'Market data', summary: '24-hour summary', description: 'Open, high, low, close, volume and change over the 1440 minutes ending now.', auth: false, query: ONE_MARKET_QUERY, response: S.SUMMARY_SCHEMA, errors: [SYMBOL_NOT_FOUND, ...STRICT_QUERY, DB_FAILURE, PUBLIC_BUDGET] },

  // Login
  { method: 'post', path: '/auth/challenge', tag: 'Login', summary: 'Login challenge', description: 'An EIP-4361 (Sign-In with Ethereum) message for the address, valid 5 minutes and usable once. Sign it with `personal_sign` (viem `signMessage`, ethers `signMessage`) and send it to POST /auth/login.', auth: false, body: CHALLENGE_REQUEST_SCHEMA, response: S.CHALLENGE_SCHEMA, errors: [[400, 'Invalid address'], [400, 'Request body must be valid JSON'], PUBLIC_BUDGET] },
  {
    method: 'post', path: '/auth/login', tag: 'Login', summary: 'Exchange a signed challenge for a token', description: 'Returns a JWT access token (15 minutes) for the address that signed the challenge. Send it as `Authorization: Bearer <token>` on every /account/* route. A challenge gives one token: once it has logged in it is spent (a wrong signature spends nothing).', auth: false, body: LOGIN_REQUEST_SCHEMA, response: S.LOGIN_SCHEMA,
    errors: [[401, 'Login challenge not found or already used'], [401, 'Login challenge expired'], [401, 'Login message does not match the challenge'], [400, 'Invalid signature'], [400, 'Request body must be valid JSON'], PUBLIC_BUDGET],
  },

  // Account reads
  { method: 'get', path: '/account/stats', tag: 'Account', summary: 'Account statistics', description: 'Valuation of the subaccount at the mark price. Money in USD decimal strings; ratios as decimal fractions (0.5 = 50 %).', auth: true, query: STATS_QUERY, response: S.ACCOUNT_STATS_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, [404, 'Account not found']] },
  { method: 'get', path: '/account/balance', tag: 'Account', summary: 'Balance', description: 'Collateral, isolated margin, order holds and what is free to transfer or to trade.', auth: true, query: BALANCE_QUERY, response: S.BALANCE_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, [404, 'Account not found']] },
  { method: 'get', path: '/account/positions', tag: 'Account', summary: 'Open positions', description: 'Quantity signed (positive long); basis, fees, funding and margin in USD; updatedAt in ms.', auth: true, query: POSITIONS_QUERY, response: S.POSITIONS_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, SYMBOL_NOT_FOUND] },
  { method: 'get', path: '/account/fills', tag: 'Account', summary: 'Fills', description: 'The subaccount’s fills, newest first; `time` in ms.', auth: true, query: FILLS_QUERY, response: S.ACCOUNT_FILLS_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, SYMBOL_NOT_FOUND, LIMIT_5000, WINDOW, DB_FAILURE] },
  { method: 'get', path: '/account/margin', tag: 'Account', summary: 'Margin settings', description: 'Cross or isolated, the margin fraction and the leverage it means, per market.', auth: true, query: MARGIN_QUERY, response: S.MARGIN_SETTINGS_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, SYMBOL_NOT_FOUND, [404, 'Account not found']] },
  {
    method: 'post', path: '/account/margin', tag: 'Account', summary: 'Set margin', description: 'Signed `MarginUpdate` (EIP-712) by the account or a `trade` delegate: cross/isolated and the desired margin fraction in one market (0.33 = 33 %, about 3× leverage), at least 1 / maxLeverage.', auth: true, signed: true, body: MARGIN_REQUEST_SCHEMA, response: NULL,
    errors: [...BAD_BODY, [400, 'margin must be a fraction greater than 0 and at most 1 with at most 8 decimals, such as "0.33"'], [400, 'Margin must be between 1/maxLeverage and 1'], [400, 'Insufficient margin'], [403, 'Unauthorized to change margin for account <account>'], [404, 'Account not found'], SYMBOL_NOT_FOUND, [409, 'Account is being liquidated'], [409, 'Cannot switch between cross and isolated margin while orders are open in this market: cancel them first']],
  },
  { method: 'get', path: '/account/nonce', tag: 'Account', summary: 'Next nonce', description: 'The next nonce to sign for (account, subaccountIndex, signer).', auth: true, query: NONCE_QUERY, response: S.NONCE_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, [400, 'signer must be a 0x-prefixed 20-byte hex address']] },

  // Transfers
  {
    method: 'post', path: '/account/transfer', tag: 'Transfers', summary: 'Transfer collateral', description: 'Signed `Transfer` by `accountFrom` (= `target`, = the token’s account); delegates are forbidden. At most the sender’s freeCollateral.', auth: true, signed: true, body: TRANSFER_REQUEST_SCHEMA, response: NULL,
    errors: [...BAD_BODY, [400, 'amount must be a positive decimal string of USD with at most 6 decimals, such as "100.5"'], [400, 'Transfer amount exceeds available balance'], [400, 'Cannot transfer to the same subaccount'], [403, 'Delegation not allowed for request'], [404, 'Account not found']],
  },
  { method: 'get', path: '/account/transfer/history', tag: 'Transfers', summary: 'Transfer history', description: 'Transfers in and out of the subaccount, newest first; `time` in ms.', auth: true, query: TRANSFER_HISTORY_QUERY, response: S.TRANSFERS_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, [400, 'direction must be in or out, got <value>'], LIMIT_5000, WINDOW, DB_FAILURE] },

  // Delegation
  { method: 'get', path: '/account/delegates', tag: 'Delegation', summary: 'Delegates', description: 'Delegates of the subaccount and their scopes.', auth: true, query: DELEGATES_QUERY, response: S.DELEGATES_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED] },
  {
    method: 'post', path: '/account/delegates', tag: 'Delegation', summary: 'Add or remove a delegate', description: 'Signed `Delegation` by the account itself (token and signature). `add` grants `trade`, `read` or `trade,read` (replacing earlier scopes); `remove` revokes (sign `scopes: ""`).', auth: true, signed: true, body: DELEGATION_REQUEST_SCHEMA, response: NULL,
    errors: [...BAD_BODY, [400, 'Invalid delegation scopes: use trade, read or trade,read'], [400, 'An account cannot delegate to itself'], [403, 'Delegation not allowed for request'], [404, 'Delegate not found']],
  },
  { method: 'get', path: '/account/signers', tag: 'Delegation', summary: 'Accepted signers', description: 'Addresses whose signature is accepted for the subaccount’s orders and margin updates.', auth: true, query: SIGNERS_QUERY, response: S.SIGNERS_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED] },

  // Orders (the order routes' own module; responses are the spec's Order)
  {
    method: 'post', path: '/account/order', tag: 'Orders', summary: 'Submit an order', description: `Signed \`Order\` (EIP-712) by the account or a \`trade\` delegate. Quantity positive buys, negative sells; orderType in any letter case. Idempotent by clientId: the same terms (every signed field but nonce) as an open order with that clientId return that order; other terms are a 409. ${ORDER_SIGNING}`, auth: true, signed: true, body: ORDER_REQUEST_SCHEMA, response: S.ORDERS_SCHEMA,
    errors: [...BAD_BODY, [400, 'May not specify period on Limit order'], [403, 'Not delegated for account and subaccount'], [403, 'Delegation not allowed for request'], SYMBOL_NOT_FOUND, [409, 'clientId <id> is already used by open order <orderId> with a different <fields>: resend the same order to get it back, or use a new clientId']],
  },
  {
    method: 'post', path: '/account/orders', tag: 'Orders', summary: 'Submit a batch', description: 'Limit orders, a TWAP, an iceberg or a TP/SL pair: account, subaccountIndex, symbol, orderType and period identical across the batch; one signature and nonce per order; all or nothing.', auth: true, signed: true, body: ORDER_BATCH_REQUEST, response: S.ORDER_BATCH_SCHEMA,
    errors: [...BAD_BODY, [403, 'Not delegated for account and subaccount'], [403, 'Delegation not allowed for request'], SYMBOL_NOT_FOUND],
  },
  { method: 'get', path: '/account/order', tag: 'Orders', summary: 'Get an order', description: 'By orderId, or by clientId with account.', auth: true, query: ORDER_LOOKUP_QUERY, response: S.ORDER_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, [404, 'Order not found']] },
  { method: 'delete', path: '/account/order', tag: 'Orders', summary: 'Cancel an order', description: 'By orderId, or by clientId with account; the token’s account or its `trade` delegate.', auth: true, query: ORDER_LOOKUP_QUERY, response: S.ORDER_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, [404, 'Order not found']] },
  { method: 'post', path: '/account/orders/cancel', tag: 'Orders', summary: 'Cancel a batch', description: 'Cancel by orderIds and/or clientIds; what could not be cancelled is listed in `failed` with its reason.', auth: true, body: BATCH_CANCEL_REQUEST, response: S.BATCH_CANCEL_SCHEMA, errors: [...BAD_BODY, [403, 'Not delegated for account and subaccount']] },
  { method: 'delete', path: '/account/orders', tag: 'Orders', summary: 'Cancel all orders', description: 'Cancels every open order of the subaccount (or of one market).', auth: true, query: CANCEL_ALL_QUERY, response: S.BATCH_CANCEL_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, SYMBOL_NOT_FOUND] },
  { method: 'get', path: '/account/orders', tag: 'Orders', summary: 'List orders', description: 'Orders of the subaccount, newest first, split by side. The created* and updated* filters cannot be combined.', auth: true, query: ORDER_LIST_QUERY, response: S.ORDER_LIST_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, [400, 'Limit must be between 1 and 500, got <n>'], SYMBOL_NOT_FOUND] },

  // Testnet
  {
    method: 'post', path: '/faucet', tag: 'Testnet', summary: 'Test collateral (testnet only)',
    description: `${FAUCET_TERMS.credit} USD of test collateral for the logged-in account: \`account\` must be the token's own address (any of its subaccounts). At most ${FAUCET_TERMS.creditsPerDay} credits (${FAUCET_TERMS.allowancePerDay} USD) per account — the address, all its subaccounts together — per UTC day; beyond it a 429 naming the allowance and when it resets (00:00 UTC), with \`Retry-After\`. Not served on mainnet (404). The allowance is counted from the exchange's journaled state: a restart does not reset it.`,
    auth: true, body: FAUCET_REQUEST_SCHEMA, response: NULL,
    errors: [...OPERATOR_BODY, [400, 'Too many subaccounts: an account holds at most <n>'], [403, FAUCET_OTHER_ACCOUNT], [429, FAUCET_ALLOWANCE_USED], OVERLOADED],
  },

  // Operator
  {
    method: 'post', path: '/operator/deposit', tag: 'Operator', summary: 'Credit a deposit', description: 'What the chain bridge calls when collateral arrived: credits the subaccount (created if new). `null` once durable.',
    auth: false, operator: true, body: OPERATOR_MONEY_SCHEMA, response: NULL, errors: [...OPERATOR_KEY, ...OPERATOR_BODY, OPERATOR_AMOUNT, [400, 'Invalid subaccount index'], OVERLOADED],
  },
  {
    method: 'post', path: '/operator/withdraw', tag: 'Operator', summary: 'Debit a withdrawal', description: 'Debits the subaccount, at most what it may withdraw (collateral not backing positions or orders). `null` once durable.',
    auth: false, operator: true, body: OPERATOR_MONEY_SCHEMA, response: NULL, errors: [...OPERATOR_KEY, ...OPERATOR_BODY, OPERATOR_AMOUNT, [400, 'Transfer amount exceeds available balance'], [404, 'Account not found'], OVERLOADED],
  },
  {
    method: 'post', path: '/operator/index-price', tag: 'Operator', summary: 'Set an index price', description: 'The index price of one market (a multiple of its tick). On testnet the price holds the market against the built-in feed until POST /operator/index-price/release (GET /price shows `indexHeld`). `null` once durable.',
    auth: false, operator: true, body: OPERATOR_PRICE_SCHEMA, response: NULL, errors: [...OPERATOR_KEY, ...OPERATOR_BODY, SYMBOL_NOT_FOUND, [400, 'price must be a positive multiple of the tick size <tickSize>'], OVERLOADED],
  },
  {
    method: 'post', path: '/operator/index-price/release', tag: 'Operator', summary: 'Hand a market back to the built-in feed', description: 'Testnet: the built-in feed moves the index again, walking from the operator\'s price. `null`.',
    auth: false, operator: true, body: OPERATOR_RELEASE_SCHEMA, response: NULL, errors: [...OPERATOR_KEY, ...OPERATOR_BODY, SYMBOL_NOT_FOUND, [400, 'There is no built-in price feed to hand the market back to (mainnet): index prices come from this API only']],
  },
  {
    method: 'post', path: '/operator/snapshot', tag: 'Operator', summary: 'Take a snapshot now', description: 'Resolves once the snapshot is saved, with the journal sequence number it is of.',
    auth: false, operator: true, response: S.SNAPSHOT_TAKEN_SCHEMA, errors: [...OPERATOR_KEY],
  },
  {
    method: 'get', path: '/operator/state-hash', tag: 'Operator', summary: 'State hash', description: 'The hash of the whole state (the exchange and every book) and the first broken invariant, if any: two exchanges that replayed the same journal answer the same hashes.',
    auth: false, operator: true, response: S.STATE_HASH_SCHEMA, errors: [...OPERATOR_KEY],
  },

  // Reference
  { method: 'get', path: '/openapi.json', tag: 'Reference', summary: 'This document', description: 'OpenAPI 3.1.', auth: false, response: { type: 'object' }, errors: [] },
  { method: 'get', path: '/asyncapi.json', tag: 'Reference', summary: 'The streaming feeds', description: 'AsyncAPI 3.0 document of the WebSocket feeds at /ws on this port (docs/feeds.md).', auth: false, response: { type: 'object' }, errors: [] },
  { method: 'get', path: '/docs', tag: 'Reference', summary: 'API reference page', description: 'This document as a self-contained HTML page.', auth: false, response: TEXT, contentType: 'text/html', errors: [] },
  { method: 'get', path: '/', tag: 'Reference', summary: 'The market page', description: 'A web page showing per market the book, recent trades, candles, mark, index and last price and the funding rate, live from the feeds at /ws; its script and style are served under /app/, everything from this origin (Content-Security-Policy: only `self`).', auth: false, response: TEXT, contentType: 'text/html', errors: [] },
];

// ── the document ─────────────────────────────────────────────────────────────────────────────

const INTRO = [
  'REST API of a perpetual-futures exchange. Success bodies are JSON; error bodies are plain text with the messages listed per route.',
  'Decimals (prices, quantities, USD amounts, fractions) are strings with no exponent; an input finer than the tick, lot or unit is refused, never rounded. Times: milliseconds for account data and every query filter; seconds for public market-data `time` fields.',
  'Authentication: POST /auth/challenge → sign the message with personal_sign → POST /auth/login → `Authorization: Bearer <token>` on every /account/* route. A caller reads its own subaccounts, or those that delegated `read` to it (`trade` for orders, cancels and margin). Writes (orders, transfers, margin, delegation) also carry an EIP-712 signature (domain and types from GET /config), a nonce and expiresAt (ms).',
  'Budget: 200 requests per second per account (the token’s account, shared across source addresses); public routes per source address. Every response carries `X-RateLimit-Limit` and `X-RateLimit-Remaining`; over budget is 429 with `Retry-After` (seconds).',
].join('\n\n');

function errorResponses(op: Operation): Record<string, unknown> {
  const all: Array<readonly [number, string]> = [...(op.auth ? TOKEN : []), ...(op.signed ? SIGNED : []), ...op.errors];
  const byStatus = new Map<number, string[]>();
  for (const [status, text] of all) {
    const list = byStatus.get(status) ?? [];
    if (!list.includes(text)) list.push(text);
    byStatus.set(status, list);
  }
  const out: Record<string, unknown> = {};
  for (const [status, texts] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: texts.map((t) => `\`${t}\``).join('; '),
      ...(status === 429 || status === 503 ? { headers: { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } } } : {}),
      ...(status === 400 && op.signed ? { headers: SIGNATURE_HEADERS } : {}),
      content: { 'text/plain': { schema: { type: 'string' }, examples: Object.fromEntries(texts.map((t, i) => [`e${i + 1}`, { value: t }])) } },
    };
  }
  return out;
}

function parameters(op: Operation): unknown[] {
  const list = (where: 'path' | 'query', params: readonly QueryParam[] = []) =>
    params.map((p) => ({ name: p.name, in: where, required: where === 'path' || p.required, description: p.description, schema: p.schema, ...(p.schema.type === 'array' ? { style: 'form', explode: true } : {}) }));
  return [...list('path', op.pathParams), ...list('query', op.query)];
}

/** Registers a titled schema once under components and answers a `$ref` to it. */
function ref(components: Record<string, unknown>, schema: Schema): Schema {
  const title = schema.title;
  if (typeof title !== 'string') return schema;
  components[title] = schema;
  return { $ref: `#/components/schemas/${title}` };
}

const RATE_HEADERS = {
  'X-RateLimit-Limit': { description: 'requests per second of the budget this request spent', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'requests left in the current burst', schema: { type: 'integer' } },
};

export function openApiDocument(servers: ReadonlyArray<{ url: string; description: string }> = []): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const success = op.contentType === 'text/html'
      ? { description: 'HTML', content: { 'text/html': { schema: TEXT } } }
      : { description: op.response === NULL ? '`null`: the write is durable' : 'OK', headers: RATE_HEADERS, content: { 'application/json': { schema: ref(schemas, op.response) } } };
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      tags: [op.tag],
      summary: op.summary,
      description: op.description,
      operationId: `${op.method}${op.path.replace(/[{}]/g, '').split(/[/.]/).map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('')}`,
      security: op.auth ? [{ bearer: [] }] : op.operator ? [{ operatorKey: [] }] : [],
      parameters: parameters(op),
      ...(op.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: ref(schemas, op.body) } } } }),
      responses: { '200': success, ...errorResponses(op) },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Perpetual futures exchange REST API', version: '1.0.0', description: INTRO },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers,
    tags: ['Market data', 'Login', 'Account', 'Transfers', 'Delegation', 'Orders', 'Testnet', 'Operator', 'Reference'].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'from POST /auth/login' },
        operatorKey: { type: 'apiKey', in: 'header', name: 'X-Operator-Key', description: `the operator key (--operator-key); ${OPERATOR_KEY_FAILURES} wrong keys from one address lock it out for a minute` },
      },
    },
  };
}

// ── the HTML page ────────────────────────────────────────────────────────────────────────────

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Escapes, then renders `code` spans. */
const prose = (text: string): string => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

function typeOf(schema: Schema): string {
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop()!;
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : String(schema.type ?? (schema.anyOf ? (schema.anyOf as Schema[]).map(typeOf).join(' | ') : 'any'));
  if (type === 'array' && schema.items) return `array of ${typeOf(schema.items as Schema)}`;
  if (Array.isArray(schema.enum)) return `${type}: ${schema.enum.join(', ')}`;
  if (typeof schema.title === 'string') return schema.title;
  return type;
}

function fieldRows(schema: Schema, prefix = ''): string[] {
  const target = schema.type === 'array' && schema.items ? (schema.items as Schema) : schema;
  const props = target.properties as Record<string, Schema> | undefined;
  if (props === undefined) return [];
  const required = new Set((target.required as string[] | undefined) ?? []);
  const rows: string[] = [];
  for (const [name, s] of Object.entries(props)) {
    const inner = (s.anyOf as Schema[] | undefined)?.find((x) => x.type !== 'null') ?? s;
    rows.push(`<tr><td><code>${escapeHtml(prefix + name)}</code></td><td>${escapeHtml(typeOf(s))}</td><td>${required.has(name) ? 'yes' : ''}</td><td>${prose(String(s.description ?? inner.description ?? s['x-error'] ?? ''))}</td></tr>`);
    const nested = inner.type === 'array' ? (inner.items as Schema | undefined) : inner;
    if (nested?.properties && prefix.split('.').length < 3) rows.push(...fieldRows(nested, `${prefix}${name}${inner.type === 'array' ? '[]' : ''}.`));
  }
  return rows;
}

function table(head: string[], rows: string[]): string {
  return rows.length === 0 ? '' : `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const anchor = (op: Operation) => `${op.method}-${op.path.replace(/[^a-z0-9]+/gi, '-')}`;

export function referencePage(document: Record<string, unknown>): string {
  const info = document.info as { title: string; description: string };
  const sections: string[] = [];
  const tags = (document.tags as Array<{ name: string }>).map((t) => t.name);
  const nav = tags.map((tag) => `<li>${escapeHtml(tag)}<ul>${OPERATIONS.filter((o) => o.tag === tag).map((o) => `<li><a href="#${anchor(o)}"><span class="m ${o.method}">${o.method.toUpperCase()}</span> ${escapeHtml(o.path)}</a></li>`).join('')}</ul></li>`).join('');
  for (const tag of tags) {
    sections.push(`<h2>${escapeHtml(tag)}</h2>`);
    for (const op of OPERATIONS.filter((o) => o.tag === tag)) {
      const params = [...(op.pathParams ?? []).map((p) => ({ ...p, where: 'path', required: true })), ...(op.query ?? []).map((p) => ({ ...p, where: 'query' }))];
      const errors = errorResponses(op) as Record<string, { content: { 'text/plain': { examples: Record<string, { value: string }> } } }>;
      const errorRows = Object.entries(errors).flatMap(([status, r]) => Object.values(r.content['text/plain'].examples).map((e) => `<tr><td>${status}</td><td><code>${escapeHtml(e.value)}</code></td></tr>`));
      sections.push(`<section id="${anchor(op)}">
<h3><span class="m ${op.method}">${op.method.toUpperCase()}</span> ${escapeHtml(op.path)} <small>${escapeHtml(op.summary)}</small></h3>
<p>${prose(op.description)}</p>
<p class="meta">${op.auth ? 'Bearer token · 200 requests/s per account' : op.operator ? 'Operator API · X-Operator-Key' : 'Public · budget per source address'}${op.signed ? ' · EIP-712 signature, nonce, expiresAt' : ''}</p>
${params.length ? `<h4>Parameters</h4>${table(['name', 'in', 'type', 'required', 'description'], params.map((p) => `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.where}</td><td>${escapeHtml(typeOf(p.schema))}</td><td>${p.required ? 'yes' : ''}</td><td>${prose(p.description)}</td></tr>`))}` : ''}
${op.body ? `<h4>Body <code>${escapeHtml(String(op.body.title ?? ''))}</code></h4>${table(['field', 'type', 'required', 'description'], fieldRows(op.body))}` : ''}
<h4>Response 200 <code>${escapeHtml(op.contentType === 'text/html' ? 'text/html' : op.response === NULL ? 'null' : String(op.response.title ?? typeOf(op.response)))}</code></h4>
${table(['field', 'type', 'required', 'description'], fieldRows(op.response))}
${errorRows.length ? `<h4>Errors (plain text)</h4>${table(['status', 'body'], errorRows)}` : ''}
</section>`);
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;display:flex;color:#1d1d1f}
nav{width:300px;flex:none;height:100vh;overflow:auto;position:sticky;top:0;background:#f5f5f7;padding:1em;box-sizing:border-box;font-size:13px}
nav ul{list-style:none;padding-left:.6em}nav a{text-decoration:none;color:inherit}
main{padding:1em 2.5em;max-width:1000px;overflow-x:auto}
section{border-top:1px solid #ddd;padding:.5em 0 1em}
table{border-collapse:collapse;margin:.4em 0;font-size:13px}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f5f5f7}
code{font:12px ui-monospace,monospace;background:#f0f0f2;padding:0 3px;border-radius:3px}
.m{display:inline-block;min-width:4.2em;font:bold 11px ui-monospace,monospace;color:#fff;border-radius:3px;padding:1px 4px;text-align:center}
.get{background:#2f7d32}.post{background:#1565c0}.delete{background:#c62828}
.meta{color:#666;font-size:13px}small{color:#666;font-weight:normal}
</style></head>
<body><nav><strong>${escapeHtml(info.title)}</strong><p><a href="/">market page</a> · <a href="/openapi.json">openapi.json</a> · <a href="/asyncapi.json">asyncapi.json</a> (streaming feeds: WebSocket <code>/ws</code>, docs/feeds.md)</p><ul>${nav}</ul></nav>
<main><h1>${escapeHtml(info.title)}</h1>${info.description.split('\n\n').map((p) => `<p>${prose(p)}</p>`).join('')}
${sections.join('\n')}
</main></body></html>`;
}

/**
 * GET /openapi.json, GET /asyncapi.json and GET /docs, built once, at the first request:
 * `servers` names the address the server is bound to, known only once it listens (port 0 picks one).
 */
export function docsRoutes(servers: () => ReadonlyArray<{ url: string; description: string }> = () => []): Route[] {
  let built: { json: HttpReply; asyncapi: HttpReply; html: HttpReply } | undefined;
  const build = (): { json: HttpReply; asyncapi: HttpReply; html: HttpReply } => {
    const document = openApiDocument(servers());
    return {
      json: { status: 200, body: JSON.stringify(document) },
      asyncapi: { status: 200, body: JSON.stringify(asyncApiDocument(servers())) },
      html: { status: 200, body: referencePage(document), contentType: 'text/html; charset=utf-8' },
    };
  };
  return [
    { method: 'get', pattern: '/openapi.json', handler: () => (built ??= build()).json },
    { method: 'get', pattern: '/asyncapi.json', handler: () => (built ??= build()).asyncapi },
    { method: 'get', pattern: '/docs', handler: () => (built ??= build()).html },
  ];
}
