/**
 * GET /account/margin?account=&subaccountIndex=&symbol= → the subaccount's margin setting per
 * market: `{symbol, isolated, margin, leverage, maxLeverage}` (the market's default fraction
 * until set; leverage = 1 / margin). Unknown subaccount → 404 `Account not found`.
 *
 * POST /account/margin (signed `MarginUpdate`) sets cross/isolated and the desired margin
 * fraction in one market; success body `null` once durable. The token's caller must be the
 * account or its `trade` delegate, and so must the signer (the sequencer checks the signer and
 * the nonce): otherwise 403 `Unauthorized to change margin for account <account>`.
 */
import { findMarket, RATE_ONE, type MarketSpec } from '../../config/market.ts';
import { AuthCode } from '../../auth/codes.ts';
import { recoverRequestSigner } from '../../auth/signed-request.ts';
import { LedgerCode } from '../../ledger/codes.ts';
import { codeFailure, documentedError, failure, GatewayCode } from '../errors.ts';
import { signedWriteFailure } from '../signature-refusal.ts';
import type { AccountGuard, CallContext, SubaccountContext } from '../auth-guard.ts';
import { SUBACCOUNT_PARAMS, SYMBOL_PARAM } from '../account-query.ts';
import type { QueryParam } from '../query.ts';
import type { AccountReadPort, AccountWritePort, AuthPort } from '../ports.ts';
import { MARGIN_FRACTION_TEXT, marginIntent, MARGIN_REQUEST_SCHEMA, type MarginBody } from '../requests/margin.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import { fraction } from './account-stats.ts';
import type { Endpoint } from '../endpoint.ts';
import { ACCESS_DENIED, ACCOUNT_NOT_FOUND, BAD_BODY, BAD_QUERY, SYMBOL_NOT_FOUND } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';
import { lowercaseAddress } from '../../auth/address.ts';

const MARGIN_QUERY: readonly QueryParam[] = [...SUBACCOUNT_PARAMS, SYMBOL_PARAM];

export function marginSettingsRoute(accounts: AccountReadPort, markets: readonly MarketSpec[]) {
  return (_req: HttpRequest, ctx: SubaccountContext): HttpReply => {
    const symbol = ctx.query.get('symbol');
    const market = symbol === undefined ? undefined : findMarket(markets, symbol);
    if (symbol !== undefined && market === undefined) return failure(GatewayCode.SymbolNotFound);
    const owner = accounts.ledger.findOwner(ctx.account, ctx.subaccountIndex);
    if (owner === undefined) return failure(LedgerCode.AccountNotFound);
    const list = (market === undefined ? markets : [market]).map((m) => {
      const setting = accounts.ledger.marginSetting(owner, m.index);
      return {
        symbol: m.symbol,
        isolated: setting.isolated,
        margin: fraction(setting.fraction),
        leverage: fraction((RATE_ONE * RATE_ONE) / setting.fraction),
        maxLeverage: m.maxLeverage,
      };
    });
    return { status: 200, body: ctx.serialize({ account: ctx.account, subaccountIndex: ctx.subaccountIndex, markets: list }) };
  };
}

export function marginUpdateRoute(accounts: AccountReadPort, markets: readonly MarketSpec[], guard: AccountGuard, auth: AuthPort, writes: AccountWritePort) {
  return async (_req: HttpRequest, ctx: CallContext<MarginBody>): Promise<HttpReply> => {
    const { body } = ctx;
    const intent = marginIntent(body, markets);
    if (!intent.ok) return intent.reply;
    const account = lowercaseAddress(body.account);
    // The spec's `<account>` is the account the request names, as it wrote it (a viem address is
    // checksummed): a client compares the text with the address it sent, not with our lowercase key.
    const unauthorized = { code: AuthCode.UnauthorizedMargin, params: { account: body.account } };
    if (guard.authorize(ctx.caller, account, body.subaccountIndex, 'trade') !== undefined) return codeFailure(unauthorized);
    const overBudget = guard.charge(ctx.caller, account);
    if (overBudget !== undefined) return overBudget;
    if (accounts.ledger.findOwner(account, body.subaccountIndex) === undefined) return failure(LedgerCode.AccountNotFound);
    const signer = await recoverRequestSigner(auth.recover, auth.domain, 'MarginUpdate', intent.message, body.signatures);
    if (!signer.ok) return signedWriteFailure(signer, () => ({ primaryType: 'MarginUpdate', message: intent.message }));
    const result = await writes.setMargin({
      account,
      subaccountIndex: body.subaccountIndex,
      market: intent.market.index,
      isolated: body.isolated,
      margin: intent.fraction,
      nonce: body.nonce,
      expiresAt: body.expiresAt,
      signer: signer.value,
      signature: body.signatures[0],
    });
    if (result.ok) return { status: 200, body: 'null' };
    // The sequencer's refusal of the signer names the account by its key: answered as the request wrote it, as above.
    return signedWriteFailure(result.code === AuthCode.UnauthorizedMargin ? unauthorized : result, () => ({ primaryType: 'MarginUpdate', message: intent.message, recovered: signer.value }));
  };
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const MARGIN_SETTINGS: Endpoint = { method: 'get', path: '/account/margin', tag: 'Account', summary: 'Margin settings', description: 'Cross or isolated, the margin fraction and the leverage it means, per market.', auth: true, query: MARGIN_QUERY, response: S.MARGIN_SETTINGS_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, SYMBOL_NOT_FOUND, ACCOUNT_NOT_FOUND] };

export const MARGIN_UPDATE: Endpoint<MarginBody> = {
  method: 'post', path: '/account/margin', tag: 'Account', summary: 'Set margin', description: 'Signed `MarginUpdate` (EIP-712) by the account or a `trade` delegate: cross/isolated and the desired margin fraction in one market (0.33 = 33 %, about 3× leverage), at least 1 / maxLeverage.', auth: true, signed: true, body: MARGIN_REQUEST_SCHEMA, response: S.NULL_SCHEMA,
  errors: [...BAD_BODY, [400, MARGIN_FRACTION_TEXT], documentedError(LedgerCode.MarginOutOfBounds), documentedError(LedgerCode.InsufficientMargin), documentedError(AuthCode.UnauthorizedMargin, 'account'), ACCOUNT_NOT_FOUND, SYMBOL_NOT_FOUND, documentedError(LedgerCode.InLiquidation), documentedError(LedgerCode.OrdersOpenInMarket)],
};
