/**
 * GET /account/stats and GET /account/balance: one subaccount's valuation at the mark price.
 *
 * /account/stats → the spec's Account statistics: money as decimal USD strings (6 decimals at
 * most), ratios (crossLeverage, crossMarginRatio, crossMarginUsage) as decimal fractions
 * (8 decimals, truncated: 0.5 = 50 %), plus account and subaccountIndex.
 * /account/balance → collateral, isolated margin, order holds, free collateral (transferable),
 * free collateral for orders, account value, unrealized PnL.
 * A subaccount the ledger has never seen (no deposit, no transfer in) → 404 `Account not found`.
 */
import { COLLATERAL_SCALE, RATE_SCALE, type MarketSpec } from '../../config/market.ts';
import { formatDecimal } from '../../numeric/decimal.ts';
import { LedgerCode } from '../../ledger/codes.ts';
import { initialMargin } from '../../ledger/margin.ts';
import { notionalScale, valueAt, abs, type NotionalScale } from '../../ledger/units.ts';
import { failure } from '../errors.ts';
import type { SubaccountContext } from '../auth-guard.ts';
import type { QueryParam } from '../query.ts';
import { SUBACCOUNT_PARAMS } from '../account-query.ts';
import type { AccountReadPort } from '../ports.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import type { Endpoint } from '../endpoint.ts';
import { ACCESS_DENIED, ACCOUNT_NOT_FOUND, BAD_QUERY, DELEGATION_NOT_ALLOWED } from '../endpoint-errors.ts';
import { AuthCode } from '../../auth/codes.ts';
import * as S from '../schemas.ts';

const STATS_QUERY: readonly QueryParam[] = SUBACCOUNT_PARAMS;
const BALANCE_QUERY: readonly QueryParam[] = SUBACCOUNT_PARAMS;

export const usd = (units: bigint): string => formatDecimal(units, COLLATERAL_SCALE);
export const fraction = (rate: bigint): string => formatDecimal(rate, RATE_SCALE);

/** The spec's Account statistics of one subaccount (also the private feed's `stats` message). */
export function statsView(account: string, subaccountIndex: number, stats: NonNullable<ReturnType<AccountReadPort['ledger']['stats']>>) {
  return {
    account,
    subaccountIndex,
    accountValue: usd(stats.accountValue),
    crossEquity: usd(stats.crossEquity),
    crossLeverage: fraction(stats.crossLeverage),
    crossMarginRatio: fraction(stats.crossMarginRatio),
    crossMarginUsage: fraction(stats.crossMarginUsage),
    freeCollateral: usd(stats.freeCollateral),
    freeCollateralCross: usd(stats.freeCollateralCross),
    initialMarginRequirement: usd(stats.initialMarginRequirement),
    maintMargin: usd(stats.maintMargin),
    upnl: usd(stats.upnl),
  };
}

export function statsRoute(accounts: AccountReadPort) {
  return (_req: HttpRequest, ctx: SubaccountContext): HttpReply => {
    const owner = accounts.ledger.findOwner(ctx.account, ctx.subaccountIndex);
    const stats = owner === undefined ? undefined : accounts.ledger.stats(owner);
    if (stats === undefined) return failure(LedgerCode.AccountNotFound);
    return { status: 200, body: ctx.serialize(statsView(ctx.account, ctx.subaccountIndex, stats)) };
  };
}

/**
 * Open-order holds are the part of the initial margin requirement that cross positions do not
 * explain: IMR − Σ cross IM (the ledger's own formula for IM, at the same marks).
 */
export function balanceRoute(accounts: AccountReadPort, markets: readonly MarketSpec[]) {
  const scales: NotionalScale[] = markets.map(notionalScale);
  return (_req: HttpRequest, ctx: SubaccountContext): HttpReply => {
    const ledger = accounts.ledger;
    const owner = ledger.findOwner(ctx.account, ctx.subaccountIndex);
    const stats = owner === undefined ? undefined : ledger.stats(owner);
    if (owner === undefined || stats === undefined) return failure(LedgerCode.AccountNotFound);
    let isolatedMargin = 0n;
    let crossIM = 0n;
    for (const p of ledger.positionsOf(owner)) {
      if (p.isolated) {
        isolatedMargin += p.margin;
        continue;
      }
      const market = markets[p.market];
      const notional = abs(valueAt(scales[p.market], ledger.prices(p.market).mark, p.quantity));
      crossIM += initialMargin(market, notional, ledger.marginSetting(owner, p.market).fraction);
    }
    return {
      status: 200,
      body: ctx.serialize({
        account: ctx.account,
        subaccountIndex: ctx.subaccountIndex,
        collateral: usd(ledger.collateral(owner)),
        isolatedMargin: usd(isolatedMargin),
        orderHolds: usd(stats.initialMarginRequirement - crossIM),
        initialMarginRequirement: usd(stats.initialMarginRequirement),
        freeCollateral: usd(stats.freeCollateral),
        freeCollateralCross: usd(stats.freeCollateralCross),
        accountValue: usd(stats.accountValue),
        upnl: usd(stats.upnl),
      }),
    };
  };
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const STATS: Endpoint = { method: 'get', path: '/account/stats', tag: 'Account', summary: 'Account statistics', description: 'Valuation of the subaccount at the mark price. Money in USD decimal strings; ratios as decimal fractions (0.5 = 50 %).', auth: true, accessRefused: AuthCode.DelegationNotAllowed, query: STATS_QUERY, response: S.ACCOUNT_STATS_SCHEMA, errors: [...BAD_QUERY, DELEGATION_NOT_ALLOWED, ACCOUNT_NOT_FOUND] };

export const BALANCE: Endpoint = { method: 'get', path: '/account/balance', tag: 'Account', summary: 'Balance', description: 'Collateral, isolated margin, order holds and what is free to transfer or to trade.', auth: true, query: BALANCE_QUERY, response: S.BALANCE_SCHEMA, errors: [...BAD_QUERY, ...ACCESS_DENIED, ACCOUNT_NOT_FOUND] };
