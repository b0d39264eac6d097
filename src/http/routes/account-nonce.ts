/**
 * GET /account/nonce?account=&subaccountIndex=&signer= → `{account, subaccountIndex, signer,
 * nonce}`: the next nonce to sign for (account, subaccountIndex, signer) — one above the
 * highest accepted, 0 when none. `signer` defaults to the account (a delegate has its own
 * window in the account). Any unused nonce above the window's floor is accepted too (concurrent
 * clients); this is the one that is certainly fresh.
 */
import type { SubaccountContext } from '../auth-guard.ts';
import { isReply, type QueryParam } from '../query.ts';
import { addressParam, NOT_AN_ADDRESS, SUBACCOUNT_PARAMS } from '../account-query.ts';
import { saying } from '../errors.ts';
import type { AccountReadPort } from '../ports.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import type { Endpoint } from '../endpoint.ts';
import { ACCESS_DENIED, BAD_QUERY } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';

const NONCE_QUERY: readonly QueryParam[] = [
  ...SUBACCOUNT_PARAMS,
  { name: 'signer', required: false, schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' }, description: 'the address that signs (the account or a delegate); default the account' },
];

export function nonceRoute(accounts: AccountReadPort) {
  return (_req: HttpRequest, ctx: SubaccountContext): HttpReply => {
    const signer = addressParam(ctx.query, 'signer', false);
    if (isReply(signer)) return signer;
    const key = { account: ctx.account, subaccountIndex: ctx.subaccountIndex, signer: signer ?? ctx.account };
    return { status: 200, body: ctx.serialize({ ...key, nonce: accounts.nonces.nextNonce(key) }) };
  };
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const NONCE: Endpoint = { method: 'get', path: '/account/nonce', tag: 'Account', summary: 'Next nonce', description: 'The next nonce to sign for (account, subaccountIndex, signer).', auth: true, query: NONCE_QUERY, response: S.NONCE_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, saying(NOT_AN_ADDRESS, 'signer')] };
