/**
 * @module http/endpoint-errors
 *
 * The errors many routes share, as their declarations (http/endpoint) list them: the texts come
 * from the one code table (http/errors `documentedError`) wherever a code answers them, so the
 * API document shows what a client receives. A `<name>` stands for the value sent or the limit.
 * Errors every route of a kind answers — the token's on /account/*, the signature's on a
 * signed write — are added by the document from the declaration's `auth` and `signed`.
 * May import: http/errors, http/endpoint (types), auth/codes, ledger/codes, conditional/codes, app/codes.
 */
import { AuthCode } from '../auth/codes.ts';
import { LedgerCode } from '../ledger/codes.ts';
import { ConditionalCode } from '../conditional/codes.ts';
import { ExchangeCode } from '../app/codes.ts';
import { documentedError, GatewayCode } from './errors.ts';
import type { DocumentedError } from './endpoint.ts';

type Errors = readonly DocumentedError[];

export const SYMBOL_NOT_FOUND = documentedError(GatewayCode.SymbolNotFound);
export const DB_FAILURE = documentedError(GatewayCode.DatabaseFailure);
/** A history listing whose filters match little in a long history (history/reader `SEARCH_LIMIT`). */
export const SEARCH_TOO_BROAD = documentedError(GatewayCode.SearchTooBroad, 'window parameters');
export const ACCOUNT_NOT_FOUND = documentedError(LedgerCode.AccountNotFound);
export const ORDER_NOT_FOUND = documentedError(ExchangeCode.OrderNotFound);
export const LIMIT_5000 = documentedError(GatewayCode.LimitOutOfRange, 'n');
export const OVERLOADED = documentedError(GatewayCode.Overloaded, 'reason');
const NOT_JSON = documentedError(GatewayCode.BodyNotJson);
export const WINDOW: DocumentedError = [400, '<from|to> must be an integer >= 0 (milliseconds), got <value>'];
const INVALID_SUBACCOUNT = documentedError(AuthCode.InvalidSubaccountIndex);
/** What the one strict query parser (http/query) refuses on any route that takes parameters. */
export const STRICT_QUERY: Errors = [
  [400, 'Unknown query parameter <name>; allowed: <names>'],
  [400, 'Query parameter <name> given more than once'],
];
export const BAD_QUERY: Errors = [
  ...STRICT_QUERY,
  [400, 'Missing query parameter <name>'],
  [400, 'account must be a 0x-prefixed 20-byte hex address'],
  INVALID_SUBACCOUNT,
];
/** What the body validator (http/validation `describe`) refuses: the field's own message, in one of three forms. */
export const BAD_FIELDS: Errors = [NOT_JSON, [400, 'Missing field <name>'], [400, 'Unknown field <name>'], [400, '<field> must …']];
export const BAD_BODY: Errors = [...BAD_FIELDS, INVALID_SUBACCOUNT];
/** Every /account/* route: the bearer token and the per-account budget. */
export const TOKEN: Errors = [
  documentedError(AuthCode.MissingToken),
  documentedError(AuthCode.InvalidToken),
  documentedError(AuthCode.ExpiredToken),
  [429, 'Too many requests: at most 200 per second per account, retry after the cool-down'],
];
/** Every signed write: its signature, nonce and expiry, and the sequencer's backlog. */
export const SIGNED: Errors = [
  documentedError(AuthCode.InvalidSignature),
  documentedError(AuthCode.RequestExpired),
  documentedError(AuthCode.NonceUsed),
  documentedError(AuthCode.NonceTooLow, 'min'),
  OVERLOADED,
  DB_FAILURE,
];
export const NOT_DELEGATED = documentedError(AuthCode.NotDelegated);
export const DELEGATION_NOT_ALLOWED = documentedError(AuthCode.DelegationNotAllowed);
/** The one rule of docs/auth.md: no grant on the subaccount, or a delegate without the scope. */
export const ACCESS_DENIED: Errors = [NOT_DELEGATED, DELEGATION_NOT_ALLOWED];
export const PUBLIC_BUDGET: DocumentedError = [429, 'Too many requests: at most 200 per second per source address, retry after the cool-down'];
export const OPERATOR_KEY: Errors = [
  [401, 'Operator key missing or wrong: send X-Operator-Key'],
  [429, 'Too many wrong operator keys from this address, retry after <n> s'],
];
/**
 * What the exchange answers a submitted order that passed the gateway's checks: the ledger's
 * margin and liquidation refusals, the account limits, and every rule of the conditional-order
 * core (triggers, TP/SL pairs, TWAP and iceberg slices).
 */
export const ORDER_REFUSALS: Errors = [
  documentedError(LedgerCode.InsufficientMargin),
  documentedError(LedgerCode.InLiquidation),
  documentedError(LedgerCode.InvalidOrder),
  documentedError(LedgerCode.OrderExists),
  documentedError(ExchangeCode.OrderTypeNotSupported, 'orderType'),
  documentedError(ExchangeCode.DuplicateClientId),
  documentedError(ExchangeCode.OriginatorNotFound),
  documentedError(ExchangeCode.OriginatorFeeTooHigh),
  documentedError(ExchangeCode.TooManyOpenOrders, 'max'),
  ...Object.values(ConditionalCode)
    .filter((code) => code !== ConditionalCode.Ok)
    .map((code) => documentedError(code)),
];
