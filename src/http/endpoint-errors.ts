/**
 * @module http/endpoint-errors
 *
 * The errors many routes share, as their declarations (http/endpoint) list them: the texts come
 * from the one code table (http/errors `documentedError`) wherever a code answers them, and
 * otherwise from the module that produces them (the query parser, the body validator, the
 * budgets, the operator key), so the API document shows what a client receives and no text is
 * typed twice. A `<name>` stands for the value sent or the limit.
 * Errors every route of a kind answers — the token's on /account/*, the signature's on a
 * signed write, the strict query parser's on every route that reads its query — are added by
 * the document from the declaration's `auth`, `signed`, `query` and `ignoresQuery`.
 * May import: http/errors, http/query, http/account-query, http/validation, http/auth-guard, http/operator-key, http/endpoint (types), auth/codes, ledger/codes, conditional/codes, app/codes.
 */
import { AuthCode } from '../auth/codes.ts';
import { LedgerCode } from '../ledger/codes.ts';
import { ConditionalCode } from '../conditional/codes.ts';
import { ExchangeCode } from '../app/codes.ts';
import { documentedError, GatewayCode, saying } from './errors.ts';
import { MISSING_PARAMETER } from './query.ts';
import { NOT_AN_ADDRESS } from './account-query.ts';
import { FIELD_RULE, MISSING_FIELD, UNKNOWN_FIELD } from './validation.ts';
import { ACCOUNT_REQUESTS_PER_SECOND, ADDRESS_REQUESTS_PER_SECOND, TOO_MANY_REQUESTS } from './auth-guard.ts';
import { OPERATOR_LOCKED_OUT, WRONG_OPERATOR_KEY } from './operator-key.ts';
import type { DocumentedError } from './endpoint.ts';

type Errors = readonly DocumentedError[];

export const SYMBOL_NOT_FOUND = documentedError(GatewayCode.SymbolNotFound);
export const DB_FAILURE = documentedError(GatewayCode.DatabaseFailure);
/** A history listing whose filters match little in a long history (history/reader `SEARCH_LIMIT`). */
export const SEARCH_TOO_BROAD = documentedError(GatewayCode.SearchTooBroad, 'window parameters');
export const ACCOUNT_NOT_FOUND = documentedError(LedgerCode.AccountNotFound);
/** A transfer or an operator's withdrawal of more than the subaccount may move. */
export const INSUFFICIENT_BALANCE = documentedError(LedgerCode.InsufficientBalance);
/** A credit (a transfer's, the faucet's) to a new subaccount of an address that holds the most it may. */
export const TOO_MANY_SUBACCOUNTS = documentedError(ExchangeCode.TooManySubaccounts, 'max');
export const ORDER_NOT_FOUND = documentedError(ExchangeCode.OrderNotFound);
export const LIMIT_5000 = documentedError(GatewayCode.LimitOutOfRange, 'n');
export const OVERLOADED = documentedError(GatewayCode.Overloaded, 'reason');
const NOT_JSON = documentedError(GatewayCode.BodyNotJson);
export const INVALID_SUBACCOUNT = documentedError(AuthCode.InvalidSubaccountIndex);
/** What a subaccount read refuses in its query, besides the strict parser's (added by the document). */
export const BAD_QUERY: Errors = [MISSING_PARAMETER, saying(NOT_AN_ADDRESS, 'account'), INVALID_SUBACCOUNT];
/** What the body validator (http/validation `describe`) refuses: the field's own message, in one of three forms. */
export const BAD_FIELDS: Errors = [NOT_JSON, MISSING_FIELD, UNKNOWN_FIELD, FIELD_RULE];
export const BAD_BODY: Errors = [...BAD_FIELDS, INVALID_SUBACCOUNT];
/** Every /account/* route: the bearer token and the per-account budget. */
export const TOKEN: Errors = [
  documentedError(AuthCode.MissingToken),
  documentedError(AuthCode.InvalidToken),
  documentedError(AuthCode.ExpiredToken),
  saying(TOO_MANY_REQUESTS, ACCOUNT_REQUESTS_PER_SECOND, 'account'),
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
export const PUBLIC_BUDGET = saying(TOO_MANY_REQUESTS, ADDRESS_REQUESTS_PER_SECOND, 'source address');
export const OPERATOR_KEY: Errors = [WRONG_OPERATOR_KEY, OPERATOR_LOCKED_OUT];
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
