/**
 * @module http/errors
 *
 * The one place where a rejection becomes an HTTP status and the spec's exact text. Every part
 * refuses with a code from its own table — auth 1000s, ledger 2000s, engine 3000s,
 * conditional-order rules 4000s, the gateway's own 9000s (here), the application stage's 9100s —
 * and `failure(code, detail)` answers it, filling the text's `<name>` slot with `detail`;
 * `codeFailure` does the same for a write's refusal (`{code, params}`). The tables are read here,
 * explicitly: nothing registers itself by being imported. A refusal outside the tables (a query
 * parameter, a body field, a budget) is a `DocumentedError` its producer exports: the producer
 * fills its slots (`say`, `refuse`) and the API document lists it, so its text is written once.
 * Where two parts refuse the same way, the table answers both with one part's text: the ledger's
 * unknown market for `SymbolNotFound` and its unknown account for an unknown originator, the
 * conditional core's unknown order for every part's (an order the caller may not see among
 * them), auth's subaccount bound for the ledger's.
 *
 * Statuses follow design.md: 404 for an unknown account, market or order (or one that is not the
 * caller's), 409 for a state that refuses the change now (liquidation in progress, an id already
 * taken, the mark already past a trigger, no mark yet, no position to close, open orders in the
 * market), 400 for the rest; a 503 is a moment's overload and says when to retry. Error bodies
 * are plain text, as the spec says.
 * May import: http/uws (types), auth/codes, ledger/codes, conditional/codes, engine/codes, app/codes.
 */
import { AUTH_CODES, AuthCode } from '../auth/codes.ts';
import { CONDITIONAL_TEXT, ConditionalCode } from '../conditional/codes.ts';
import { EngineCode } from '../engine/codes.ts';
import { LEDGER_CODE_TEXT, LedgerCode } from '../ledger/codes.ts';
import { ExchangeCode } from '../app/codes.ts';
import type { HttpReply } from './uws.ts';

export const GatewayCode = {
  SymbolNotFound: 9001,
  DepthOutOfRange: 9002,
  TickSizeNotAllowed: 9003,
  RouteNotFound: 9004,
  MethodNotAllowed: 9005,
  BodyNotJson: 9006,
  InvalidField: 9007,
  MarketNotFound: 9008,
  LimitOutOfRange: 9009,
  DatabaseFailure: 9010,
  Overloaded: 9011,
  Internal: 9012,
  SearchTooBroad: 9013,
  UpgradeRequired: 9014,
} as const;
export type GatewayCode = (typeof GatewayCode)[keyof typeof GatewayCode];

/** `[status, text]`; a `<name>` in a text stands for the value sent or the limit that applies. */
export type DocumentedError = readonly [number, string];

/** `Retry-After` of a 503: the backlog of any stage clears within about a second at full load. */
const OVERLOADED_RETRY_SECONDS = 1;

interface Entry {
  status: number;
  text: (detail: string) => string;
}

/** `Unauthorized to change margin for account <account>` → fill its one slot with the detail. */
const slotted = (text: string) => (detail: string) => text.replace(/<\w+>/, detail);
const fixed = (text: string) => () => text;

/** `text` with its `<slots>` filled by `values`, in order (`<from|to>` is one slot); slots beyond the values stay. */
export function say(text: string, ...values: Array<string | number | bigint>): string {
  let i = 0;
  return text.replace(/<[\w|]+>/g, (slot) => (i < values.length ? String(values[i++]) : slot));
}

/** `error` as the document lists one case of it: `Missing query parameter symbol`. */
export const saying = (error: DocumentedError, ...values: Array<string | number | bigint>): DocumentedError => [error[0], say(error[1], ...values)];

/** A plain-text answer the code table does not make (its status, headers and text the route's own). */
export const plainText = (status: number, body: string, headers?: Record<string, string>): HttpReply => ({ status, body, contentType: 'text/plain; charset=utf-8', headers });

/** The 400 with `error`'s text, its slots filled: a request the gateway refuses before any part sees it (`InvalidField`). */
export const refuse = (error: DocumentedError, ...values: Array<string | number | bigint>): HttpReply => failure(GatewayCode.InvalidField, say(error[1], ...values));

/** The most entries a listing answers at once: above it, `LimitOutOfRange`; a listing with a lower bound refuses with its own. */
export const MAX_LIMIT = 5000;
export const LIMIT_OUT_OF_RANGE: DocumentedError = [400, 'Limit must be between 1 and <max>, got <n>'];
/** The most levels per side a book answers: above it, `DepthOutOfRange`. */
export const MAX_BOOK_DEPTH = 5000;

const GATEWAY: Record<number, Entry> = {
  // The ledger's unknown market, in the spec's words.
  [GatewayCode.SymbolNotFound]: { status: 404, text: fixed(LEDGER_CODE_TEXT[LedgerCode.MarketNotFound]) },
  [GatewayCode.MarketNotFound]: { status: 404, text: (symbol) => `Market ${symbol} not found` },
  [GatewayCode.DepthOutOfRange]: { status: 400, text: fixed(`Depth must be between 1 and ${MAX_BOOK_DEPTH}`) },
  [GatewayCode.LimitOutOfRange]: { status: 400, text: (got) => say(LIMIT_OUT_OF_RANGE[1], MAX_LIMIT, got) },
  [GatewayCode.TickSizeNotAllowed]: { status: 400, text: (tick) => `tickSize must be the market's tick size ${tick} times 1, 2, 5, 10, 100 or 1000` },
  [GatewayCode.RouteNotFound]: { status: 404, text: (path) => `Route not found: ${path}` },
  [GatewayCode.MethodNotAllowed]: { status: 405, text: (method) => `Method ${method} not allowed on this route` },
  // A plain GET of the feeds' path: the client meant a WebSocket (426 says so; a 404 said the feeds did not exist).
  [GatewayCode.UpgradeRequired]: { status: 426, text: (path) => `Upgrade required: ${path} is the WebSocket endpoint of the feeds; connect with a WebSocket client (docs/feeds.md)` },
  [GatewayCode.BodyNotJson]: { status: 400, text: fixed('Request body must be valid JSON') },
  [GatewayCode.InvalidField]: { status: 400, text: (detail) => detail },
  [GatewayCode.DatabaseFailure]: { status: 500, text: fixed('Internal server error: Database connection failed') },
  [GatewayCode.Overloaded]: { status: 503, text: (why) => `Service overloaded: ${why}` },
  [GatewayCode.Internal]: { status: 500, text: fixed('Internal server error') },
  // A history listing that would read more than history/reader's SEARCH_LIMIT entries.
  [GatewayCode.SearchTooBroad]: { status: 400, text: (window) => `Too much history to search in one request: narrow the window with ${window}` },
};

const LEDGER_STATUS: Readonly<Record<number, number>> = {
  [LedgerCode.AccountNotFound]: 404,
  [LedgerCode.MarketNotFound]: 404,
  [LedgerCode.OrderExists]: 409,
  [LedgerCode.InLiquidation]: 409,
  [LedgerCode.OrdersOpenInMarket]: 409,
  [LedgerCode.FaucetDisabled]: 403,
};

const CONDITIONAL_STATUS: Readonly<Record<number, number>> = {
  [ConditionalCode.OrderIdExists]: 409,
  [ConditionalCode.GroupIdExists]: 409,
  [ConditionalCode.TriggerAlreadyCrossed]: 409,
  [ConditionalCode.MarkPriceUnknown]: 409,
  [ConditionalCode.NoPositionToClose]: 409,
  [ConditionalCode.ParentNotFound]: 404,
  [ConditionalCode.OrderNotFound]: 404,
  [ConditionalCode.NotOwner]: 404,
};

/** An order the caller may not see is one that does not exist (ids cannot be probed), whichever part says so: the conditional core's text. */
const ORDER_NOT_FOUND: Entry = { status: 404, text: fixed(CONDITIONAL_TEXT[ConditionalCode.OrderNotFound]) };

/** The application stage's refusals (app/codes) and the engine's that reach a client (a cancel's). */
const EXCHANGE: Record<number, Entry> = {
  [ExchangeCode.OrderTypeNotSupported]: { status: 400, text: (t) => `orderType ${t} is not supported yet` },
  // The gateway answers a clientId in use first, by name (requests/client-id.ts); this is the race of two at once.
  [ExchangeCode.DuplicateClientId]: { status: 409, text: fixed('clientId is already used by an open order of this account') },
  [ExchangeCode.OrderNotFound]: ORDER_NOT_FOUND,
  [ExchangeCode.OriginatorNotFound]: { status: 404, text: fixed(LEDGER_CODE_TEXT[LedgerCode.AccountNotFound]) },
  [ExchangeCode.OriginatorFeeTooHigh]: { status: 400, text: fixed("originatorFee is above the market's maxOriginatorFee (GET /markets)") },
  // The account limits (app/account-limits.ts), in the style of `Transfer amount exceeds available balance`.
  [ExchangeCode.TransferBelowMinimum]: { status: 400, text: (minimum) => `Transfer amount below the minimum of ${minimum} USD` },
  [ExchangeCode.TooManySubaccounts]: { status: 400, text: (max) => `Too many subaccounts: an account holds at most ${max}` },
  [ExchangeCode.TooManyOpenOrders]: { status: 400, text: (max) => `Too many open orders: a subaccount holds at most ${max}` },
  [EngineCode.OrderNotFound]: ORDER_NOT_FOUND,
  [EngineCode.NotOwner]: ORDER_NOT_FOUND,
};

const TABLE: Readonly<Record<number, Entry>> = {
  ...Object.fromEntries(Object.entries(AUTH_CODES).map(([code, e]) => [code, { status: e.status, text: slotted(e.text) }])),
  ...Object.fromEntries(
    Object.entries(LEDGER_CODE_TEXT)
      .filter(([code]) => Number(code) !== LedgerCode.Ok)
      .map(([code, text]) => [code, { status: LEDGER_STATUS[Number(code)] ?? 400, text: slotted(text) }]),
  ),
  // The ledger's bound on a subaccount index is the one auth checks first: auth's text (the ledger's table has none).
  [LedgerCode.InvalidSubaccount]: { status: 400, text: fixed(AUTH_CODES[AuthCode.InvalidSubaccountIndex].text) },
  ...Object.fromEntries(
    Object.values(ConditionalCode)
      .filter((code) => code !== ConditionalCode.Ok)
      .map((code) => [code, { status: CONDITIONAL_STATUS[code] ?? 400, text: slotted(CONDITIONAL_TEXT[code]) }]),
  ),
  ...EXCHANGE,
  ...GATEWAY,
};

/** The reply for a rejection; `detail` fills the text's slot (a symbol, a number, a field message). */
export function failure(code: number, detail = ''): HttpReply {
  const entry = TABLE[code] ?? TABLE[GatewayCode.Internal];
  const reply: HttpReply = { status: entry.status, body: entry.text(detail), contentType: 'text/plain; charset=utf-8', code };
  // A 503 is a moment's overload (a stage behind, too many login challenges): say when to retry.
  if (entry.status === 503) reply.headers = { 'retry-after': String(OVERLOADED_RETRY_SECONDS) };
  return reply;
}

/** The reply for a write's refusal from any part's table (`params` fills the text's slot). */
export function codeFailure(refusal: { code: number; params?: Readonly<Record<string, string>> }): HttpReply {
  const detail = refusal.params === undefined ? '' : (Object.values(refusal.params)[0] ?? '');
  return failure(refusal.code, detail);
}

/** What the API document lists for a code: its status and text, the slot shown as `<slot>`. */
export function documentedError(code: number, slot = ''): DocumentedError {
  const entry = TABLE[code] ?? TABLE[GatewayCode.Internal];
  return [entry.status, entry.text(slot === '' ? '' : `<${slot}>`)];
}
