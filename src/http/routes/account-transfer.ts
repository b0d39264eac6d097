/**
 * POST /account/transfer (signed `Transfer`) moves collateral between subaccounts or users;
 * success body `null` once durable. Only `accountFrom` itself may move its money: the token
 * must be its own, `target` must be `accountFrom`, and the signature must be its own — a
 * delegate anywhere in this is 403 `Delegation not allowed for request`. More than the
 * sender's `freeCollateral` → 400 `Transfer amount exceeds available balance`. To the zero
 * address → 400 (nobody could ever move it again).
 *
 * GET /account/transfer/history?account=&subaccountIndex=&direction=&from=&to=&limit= → the
 * subaccount's transfers in and out, newest first (`{transfers: [...]}`), from the transfers
 * projection: `direction` `in` or `out` narrows; `from`/`to` ms; `limit` 1–5000, default 50.
 */
import { COLLATERAL_SCALE } from '../../config/market.ts';
import { formatDecimal } from '../../numeric/decimal.ts';
import { AuthCode } from '../../auth/codes.ts';
import { recoverRequestSigner } from '../../auth/signed-request.ts';
import { LedgerCode } from '../../ledger/codes.ts';
import type { TransferHistoryReader, TransferRecord } from '../../history/transfers.ts';
import type { OwnerIndex } from '../../types/ids.ts';
import { documentedError, failure, GatewayCode, MAX_LIMIT, refuse, type DocumentedError } from '../errors.ts';
import { ExchangeCode } from '../../app/codes.ts';
import { signedWriteFailure } from '../signature-refusal.ts';
import type { CallContext, SubaccountContext } from '../auth-guard.ts';
import { isReply, NOT_MILLISECONDS, rangeParams, WINDOW_PARAMS, type QueryParam } from '../query.ts';
import { SUBACCOUNT_PARAMS } from '../account-query.ts';
import type { AccountReadPort, AccountWritePort, AuthPort } from '../ports.ts';
import { TRANSFER_AMOUNT_TEXT, transferIntent, TRANSFER_REQUEST_SCHEMA, type TransferBody } from '../requests/transfer.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import { DEFAULT_FILLS_LIMIT } from './account-fills.ts';
import type { Endpoint } from '../endpoint.ts';
import { ACCESS_DENIED, ACCOUNT_NOT_FOUND, BAD_BODY, BAD_QUERY, DB_FAILURE, DELEGATION_NOT_ALLOWED, INSUFFICIENT_BALANCE, LIMIT_5000, TOO_MANY_SUBACCOUNTS } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';
import { BAD_CURSOR, CURSOR_PARAM, cursorParam, withNextCursor } from '../cursor.ts';
import { lowercaseAddress, ZERO_ADDRESS } from '../../auth/address.ts';

/**
 * `accountTo` the zero address: nobody holds its key, so the money could never move again —
 * always a client's mistake (an unset variable), as a delegation to it is (account-delegates).
 */
const ZERO_RECIPIENT = 'Cannot transfer to the zero address: nobody holds its key';

/** A `direction` other than `in` or `out`. */
const UNKNOWN_DIRECTION: DocumentedError = [400, 'direction must be in or out, got <value>'];

const TRANSFER_HISTORY_QUERY: readonly QueryParam[] = [
  ...SUBACCOUNT_PARAMS,
  { name: 'direction', required: false, schema: { type: 'string', enum: ['in', 'out'] }, description: 'in: credited to this subaccount; out: debited from it; both when absent' },
  ...WINDOW_PARAMS,
  { name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_FILLS_LIMIT }, description: '1 to 5000, default 50; the newest are kept' },
  CURSOR_PARAM,
];

export function transferRoute(accounts: AccountReadPort, auth: AuthPort, writes: AccountWritePort) {
  return async (_req: HttpRequest, ctx: CallContext<TransferBody>): Promise<HttpReply> => {
    const { body } = ctx;
    const intent = transferIntent(body);
    if (!intent.ok) return intent.reply;
    const from = lowercaseAddress(body.accountFrom);
    if (ctx.caller !== from || body.target.toLowerCase() !== from) return failure(AuthCode.DelegationNotAllowed);
    if (body.accountTo.toLowerCase() === ZERO_ADDRESS) return failure(GatewayCode.InvalidField, ZERO_RECIPIENT);
    if (accounts.ledger.findOwner(from, body.subaccountIndexFrom) === undefined) return failure(LedgerCode.AccountNotFound);
    const signer = await recoverRequestSigner(auth.recover, auth.domain, 'Transfer', intent.message, body.signatures);
    if (!signer.ok) return signedWriteFailure(signer, () => ({ primaryType: 'Transfer', message: intent.message }));
    if (intent.aboveAnyBalance) {
      // More than any balance can hold: refused as the exchange refuses its signer, else as above the balance.
      const allowed = accounts.delegations.authorizeWrite({ action: 'transfer', accountFrom: from, subaccountIndexFrom: body.subaccountIndexFrom, subaccountIndexTo: body.subaccountIndexTo, target: lowercaseAddress(body.target), signer: signer.value });
      return allowed.ok ? failure(LedgerCode.InsufficientBalance) : signedWriteFailure(allowed, () => ({ primaryType: 'Transfer', message: intent.message, recovered: signer.value }));
    }
    const result = await writes.transfer({
      accountFrom: from,
      accountTo: lowercaseAddress(body.accountTo),
      subaccountIndexFrom: body.subaccountIndexFrom,
      subaccountIndexTo: body.subaccountIndexTo,
      amount: intent.amount,
      feedId: body.feedId,
      nonce: body.nonce,
      expiresAt: body.expiresAt,
      target: lowercaseAddress(body.target),
      signer: signer.value,
      signature: body.signatures[0],
    });
    return result.ok ? { status: 200, body: 'null' } : signedWriteFailure(result, () => ({ primaryType: 'Transfer', message: intent.message, recovered: signer.value }));
  };
}

function transferView(owner: OwnerIndex, t: TransferRecord) {
  return {
    id: t.id,
    time: t.time,
    direction: t.fromOwner === owner ? 'out' : 'in',
    accountFrom: t.accountFrom,
    subaccountIndexFrom: t.subaccountIndexFrom,
    accountTo: t.accountTo,
    subaccountIndexTo: t.subaccountIndexTo,
    amount: formatDecimal(t.amount, COLLATERAL_SCALE),
  };
}

export function transferHistoryRoute(accounts: AccountReadPort, history: TransferHistoryReader) {
  return (_req: HttpRequest, ctx: SubaccountContext): HttpReply => {
    const direction = ctx.query.get('direction');
    if (direction !== undefined && direction !== 'in' && direction !== 'out') return refuse(UNKNOWN_DIRECTION, direction);
    const range = rangeParams(ctx.query, DEFAULT_FILLS_LIMIT, MAX_LIMIT);
    if (isReply(range)) return range;
    const { limit, from, to } = range;
    const after = cursorParam(ctx.query, 2);
    if (isReply(after)) return after;
    const owner = accounts.ledger.findOwner(ctx.account, ctx.subaccountIndex);
    if (owner === undefined) return { status: 200, body: ctx.serialize({ transfers: [] }) };
    let list;
    try {
      list = history.transfers(owner, { direction, from, to, limit, after });
    } catch {
      return failure(GatewayCode.DatabaseFailure);
    }
    const last = list.at(-1);
    return withNextCursor({ status: 200, body: ctx.serialize({ transfers: list.map((t) => transferView(owner, t)) }) }, list.length === limit, last && [last.time, last.id]);
  };
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const TRANSFER: Endpoint<TransferBody> = {
  method: 'post', path: '/account/transfer', tag: 'Transfers', summary: 'Transfer collateral', description: 'Signed `Transfer` by `accountFrom` (= `target`, = the token’s account); delegates are forbidden. At most the sender’s freeCollateral.', auth: true, signed: true, body: TRANSFER_REQUEST_SCHEMA, response: S.NULL_SCHEMA,
  errors: [...BAD_BODY, [400, TRANSFER_AMOUNT_TEXT], INSUFFICIENT_BALANCE, documentedError(LedgerCode.SameAccount), documentedError(ExchangeCode.TransferBelowMinimum, 'minimum'), [400, ZERO_RECIPIENT], TOO_MANY_SUBACCOUNTS, DELEGATION_NOT_ALLOWED, ACCOUNT_NOT_FOUND],
};

export const TRANSFER_HISTORY: Endpoint = { method: 'get', path: '/account/transfer/history', tag: 'Transfers', summary: 'Transfer history', description: 'Transfers in and out of the subaccount, newest first; `time` in ms. A full page answers `X-Next-Cursor`: send it as `cursor` for the transfers that follow.', auth: true, query: TRANSFER_HISTORY_QUERY, response: S.TRANSFERS_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, UNKNOWN_DIRECTION, LIMIT_5000, NOT_MILLISECONDS, BAD_CURSOR, DB_FAILURE], readsHistory: true, pages: true };
