/**
 * @module http/account-query
 *
 * Strict query strings of the /account/* routes: every parameter is one the route declares,
 * given once; `account` is a 0x address (any letter case, lowercase inside); `subaccountIndex`
 * an int32 ≥ 0 (`Invalid subaccount index` otherwise). A typo such as `subAccountIndex` is a
 * 400 naming it, never silently ignored (a bot would otherwise read subaccount 0's data).
 * May import: http/, auth/address, auth/delegation.
 */
import { toAddress, type Address } from '../auth/address.ts';
import { MAX_SUBACCOUNT_INDEX } from '../auth/delegation.ts';
import { failure, GatewayCode } from './errors.ts';
import { isReply, strictInteger, type Query, type QueryParam } from './query.ts';
import type { HttpReply } from './uws.ts';

export const INVALID_SUBACCOUNT_INDEX = 'Invalid subaccount index';

const invalid = (text: string): HttpReply => failure(GatewayCode.InvalidField, text);

/** A required `0x` address parameter. */
export function addressParam(query: Query, name: string, required = true): Address | undefined | HttpReply {
  const text = query.get(name);
  if (text === undefined) return required ? invalid(`Missing query parameter ${name}`) : undefined;
  return toAddress(text) ?? invalid(`${name} must be a 0x-prefixed 20-byte hex address`);
}

/** `subaccountIndex`: required, an integer from 0 to 2^31 − 1. */
export function subaccountParam(query: Query): number | HttpReply {
  const text = query.get('subaccountIndex');
  if (text === undefined) return invalid('Missing query parameter subaccountIndex');
  const n = strictInteger(text);
  return n === undefined || n < 0 || n > MAX_SUBACCOUNT_INDEX ? invalid(INVALID_SUBACCOUNT_INDEX) : n;
}

/** An optional integer ≥ 0 in milliseconds (`from`, `to`). */
export function millisParam(query: Query, name: string): number | undefined | HttpReply {
  const text = query.get(name);
  if (text === undefined) return undefined;
  const n = strictInteger(text);
  return n === undefined || n < 0 ? invalid(`${name} must be an integer >= 0 (milliseconds), got ${text}`) : n;
}

/** `limit` in 1..max (default when absent), else `Limit must be between 1 and <max>, got <n>`. */
export function limitParam(query: Query, fallback: number, max: number): number | HttpReply {
  const text = query.get('limit');
  if (text === undefined) return fallback;
  const n = strictInteger(text);
  if (n !== undefined && n >= 1 && n <= max) return n;
  return max === 5000 ? failure(GatewayCode.LimitOutOfRange, text) : invalid(`Limit must be between 1 and ${max}, got ${text}`);
}

/** `limit`, `from` and `to` of a history read, or the refusal of the first that is wrong. */
export function rangeParams(query: Query, fallback: number, max: number): { limit: number; from: number | undefined; to: number | undefined } | HttpReply {
  const limit = limitParam(query, fallback, max);
  if (isReply(limit)) return limit;
  const from = millisParam(query, 'from');
  if (isReply(from)) return from;
  const to = millisParam(query, 'to');
  if (isReply(to)) return to;
  return { limit, from, to };
}

/** The two parameters every subaccount read takes. */
export const SUBACCOUNT_PARAMS: readonly QueryParam[] = [
  { name: 'account', required: true, schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' }, description: 'the account read (the caller, or an account that delegated `read` to the caller for this subaccount)' },
  { name: 'subaccountIndex', required: true, schema: { type: 'integer', minimum: 0, maximum: 2147483647 }, description: 'int32 ≥ 0, else 400 `Invalid subaccount index`' },
];

export const SYMBOL_PARAM: QueryParam = { name: 'symbol', required: false, schema: { type: 'string' }, description: 'one market (`BASE-QUOTE-PERP` or a bare base); unknown → 404 `Symbol not found`' };
