/**
 * @module http/account-query
 *
 * The query parameters of the /account/* routes that read a subaccount: `account` is a 0x
 * address (any letter case, lowercase inside); `subaccountIndex` an int32 ≥ 0 (`Invalid
 * subaccount index` otherwise). The query itself is read strictly by http/query, so a typo such
 * as `subAccountIndex` is a 400 naming it, never silently ignored (a bot would otherwise read
 * subaccount 0's data).
 * May import: http/, auth/address, auth/codes, auth/delegation.
 */
import { toAddress, type Address } from '../auth/address.ts';
import { AuthCode } from '../auth/codes.ts';
import { MAX_SUBACCOUNT_INDEX } from '../auth/delegation.ts';
import { failure, refuse, type DocumentedError } from './errors.ts';
import { MISSING_PARAMETER, strictInteger, type Query, type QueryParam } from './query.ts';
import type { HttpReply } from './uws.ts';

export const NOT_AN_ADDRESS: DocumentedError = [400, '<name> must be a 0x-prefixed 20-byte hex address'];

/** A required `0x` address parameter. */
export function addressParam(query: Query, name: string, required = true): Address | undefined | HttpReply {
  const text = query.get(name);
  if (text === undefined) return required ? refuse(MISSING_PARAMETER, name) : undefined;
  return toAddress(text) ?? refuse(NOT_AN_ADDRESS, name);
}

/** `subaccountIndex`: required, an integer from 0 to 2^31 − 1. */
export function subaccountParam(query: Query): number | HttpReply {
  const text = query.get('subaccountIndex');
  if (text === undefined) return refuse(MISSING_PARAMETER, 'subaccountIndex');
  const n = strictInteger(text);
  return n === undefined || n < 0 || n > MAX_SUBACCOUNT_INDEX ? failure(AuthCode.InvalidSubaccountIndex) : n;
}

/** The two parameters every subaccount read takes. */
export const SUBACCOUNT_PARAMS: readonly QueryParam[] = [
  { name: 'account', required: true, schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' }, description: 'the account read (the caller, or an account that delegated `read` to the caller for this subaccount)' },
  { name: 'subaccountIndex', required: true, schema: { type: 'integer', minimum: 0, maximum: 2147483647 }, description: 'int32 ≥ 0, else 400 `Invalid subaccount index`' },
];

export const SYMBOL_PARAM: QueryParam = { name: 'symbol', required: false, schema: { type: 'string' }, description: 'one market (`BASE-QUOTE-PERP` or a bare base); unknown → 404 `Symbol not found`' };
