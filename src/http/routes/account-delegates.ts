/**
 * Delegation: who may act for a subaccount.
 *
 * GET /account/delegates?account=&subaccountIndex= → `{account, subaccountIndex, delegates:
 * [{subaccountIndex, delegate, scopes}]}`.
 * GET /account/signers?account=&subaccountIndex= → the addresses whose signature is accepted
 * for the subaccount's orders and margin updates: the account, then its `trade` delegates.
 * POST /account/delegates (signed `Delegation`, by the account itself) adds a delegate with
 * scopes `trade`, `read` or `trade,read`, or removes one; success body `null` once durable. The
 * token must be the account's own: a delegate → 403 `Delegation not allowed for request`.
 * Granting the zero address is refused: nobody holds its key, so such a grant is always a
 * client's mistake (an unset variable), and it would be listed among the signers. Checked here,
 * before the journal, so that a replay of an older journal that holds one applies it unchanged;
 * removing it is allowed. So is a `remove` that names scopes (`remove` with `trade`, meant to
 * keep the delegate's reads): a remove revokes every scope, and taking one for the other would
 * silently cut a delegate off; it is signed `""` (the journal's cores still apply one, as they did).
 */
import { AuthCode } from '../../auth/codes.ts';
import { recoverRequestSigner } from '../../auth/signed-request.ts';
import { documentedError, failure, GatewayCode } from '../errors.ts';
import { signedWriteFailure } from '../signature-refusal.ts';
import type { CallContext, SubaccountContext } from '../auth-guard.ts';
import { SUBACCOUNT_PARAMS } from '../account-query.ts';
import type { QueryParam } from '../query.ts';
import type { AccountReadPort, AccountWritePort, AuthPort } from '../ports.ts';
import { delegationMessage, DELEGATION_REQUEST_SCHEMA, type DelegationBody } from '../requests/delegation.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import type { Endpoint } from '../endpoint.ts';
import { ACCESS_DENIED, BAD_BODY, BAD_QUERY, DELEGATION_NOT_ALLOWED } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';
import { lowercaseAddress, ZERO_ADDRESS } from '../../auth/address.ts';

const ZERO_DELEGATE = 'Cannot delegate to the zero address: nobody holds its key';
const REMOVE_WITH_SCOPES = 'scopes must be "" for remove: a remove revokes every scope of the delegate (to keep some, add them instead)';

const DELEGATES_QUERY: readonly QueryParam[] = SUBACCOUNT_PARAMS;
const SIGNERS_QUERY: readonly QueryParam[] = SUBACCOUNT_PARAMS;

export function delegatesRoute(accounts: AccountReadPort) {
  return (_req: HttpRequest, ctx: SubaccountContext): HttpReply => {
    const delegates = accounts.delegations.delegates(ctx.account, ctx.subaccountIndex);
    return { status: 200, body: ctx.serialize({ account: ctx.account, subaccountIndex: ctx.subaccountIndex, delegates }) };
  };
}

export function signersRoute(accounts: AccountReadPort) {
  return (_req: HttpRequest, ctx: SubaccountContext): HttpReply => {
    const signers = accounts.delegations.signers(ctx.account, ctx.subaccountIndex);
    return { status: 200, body: ctx.serialize({ account: ctx.account, subaccountIndex: ctx.subaccountIndex, signers }) };
  };
}

export function delegationRoute(auth: AuthPort, writes: AccountWritePort) {
  return async (_req: HttpRequest, ctx: CallContext<DelegationBody>): Promise<HttpReply> => {
    const { body } = ctx;
    const account = lowercaseAddress(body.account);
    if (ctx.caller !== account) return failure(AuthCode.DelegationNotAllowed);
    if (body.action === 'add' && body.delegate.toLowerCase() === ZERO_ADDRESS) return failure(GatewayCode.InvalidField, ZERO_DELEGATE);
    if (body.action === 'remove' && body.scopes !== '') return failure(GatewayCode.InvalidField, REMOVE_WITH_SCOPES);
    const message = delegationMessage(body);
    const signer = await recoverRequestSigner(auth.recover, auth.domain, 'Delegation', message, body.signatures);
    if (!signer.ok) return signedWriteFailure(signer, () => ({ primaryType: 'Delegation', message }));
    const result = await writes.changeDelegation({
      account,
      subaccountIndex: body.subaccountIndex,
      delegate: lowercaseAddress(body.delegate),
      scopes: body.scopes,
      action: body.action,
      nonce: body.nonce,
      expiresAt: body.expiresAt,
      signer: signer.value,
      signature: body.signatures[0],
    });
    return result.ok ? { status: 200, body: 'null' } : signedWriteFailure(result, () => ({ primaryType: 'Delegation', message, recovered: signer.value }));
  };
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const DELEGATES: Endpoint = { method: 'get', path: '/account/delegates', tag: 'Delegation', summary: 'Delegates', description: 'Delegates of the subaccount and their scopes.', auth: true, query: DELEGATES_QUERY, response: S.DELEGATES_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED] };

export const DELEGATION: Endpoint<DelegationBody> = {
  method: 'post', path: '/account/delegates', tag: 'Delegation', summary: 'Add or remove a delegate', description: 'Signed `Delegation` by the account itself (token and signature). `add` grants `trade`, `read` or `trade,read` (replacing earlier scopes); `remove` revokes (sign `scopes: ""`).', auth: true, signed: true, body: DELEGATION_REQUEST_SCHEMA, response: S.NULL_SCHEMA,
  errors: [...BAD_BODY, documentedError(AuthCode.InvalidScopes), documentedError(AuthCode.SelfDelegation), [400, ZERO_DELEGATE], [400, REMOVE_WITH_SCOPES], DELEGATION_NOT_ALLOWED, documentedError(AuthCode.DelegateNotFound)],
};

export const SIGNERS: Endpoint = { method: 'get', path: '/account/signers', tag: 'Delegation', summary: 'Accepted signers', description: 'Addresses whose signature is accepted for the subaccount’s orders and margin updates.', auth: true, query: SIGNERS_QUERY, response: S.SIGNERS_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED] };
