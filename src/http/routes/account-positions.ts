/**
 * GET /account/positions?account=&subaccountIndex=&symbol=: the subaccount's open positions
 * (`{positions: [...]}`, markets-file order), each with the spec's fields — quantity a signed
 * decimal (positive long), basis/fees/funding/margin decimal USD, updatedAt ms — plus
 * `isolated`, `markPrice` and `unrealizedPnl`. An unknown symbol is 404 `Symbol not found`;
 * a subaccount never seen has no positions (empty list).
 */
import { findMarket, lotsToQuantity, ticksToPrice, type MarketSpec } from '../../config/market.ts';
import type { Position } from '../../ledger/position.ts';
import { notionalScale, valueAt, type NotionalScale } from '../../ledger/units.ts';
import { failure, GatewayCode } from '../errors.ts';
import type { SubaccountContext } from '../auth-guard.ts';
import { SUBACCOUNT_PARAMS, SYMBOL_PARAM } from '../account-query.ts';
import type { QueryParam } from '../query.ts';
import type { AccountReadPort } from '../ports.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import { usd } from './account-stats.ts';
import type { Endpoint } from '../endpoint.ts';
import { BAD_QUERY, SYMBOL_NOT_FOUND, DELEGATION_NOT_ALLOWED } from '../endpoint-errors.ts';
import { AuthCode } from '../../auth/codes.ts';
import * as S from '../schemas.ts';

const POSITIONS_QUERY: readonly QueryParam[] = [...SUBACCOUNT_PARAMS, SYMBOL_PARAM];

export function positionsRoute(accounts: AccountReadPort, markets: readonly MarketSpec[]) {
  const scales: NotionalScale[] = markets.map(notionalScale);
  const view = (ctx: SubaccountContext, p: Position) => {
    const market = markets[p.market];
    const mark = accounts.ledger.prices(p.market).mark;
    return {
      account: ctx.account,
      subaccountIndex: ctx.subaccountIndex,
      symbol: market.symbol,
      quantity: lotsToQuantity(market, p.quantity),
      basis: usd(p.basis),
      fees: usd(p.fees),
      funding: usd(p.funding),
      margin: usd(p.margin),
      isolated: p.isolated,
      markPrice: mark > 0 ? ticksToPrice(market, mark) : null,
      unrealizedPnl: mark > 0 ? usd(valueAt(scales[p.market], mark, p.quantity) - p.basis) : '0',
      updatedAt: p.updatedAt,
    };
  };
  return (_req: HttpRequest, ctx: SubaccountContext): HttpReply => {
    const symbol = ctx.query.get('symbol');
    const market = symbol === undefined ? undefined : findMarket(markets, symbol);
    if (symbol !== undefined && market === undefined) return failure(GatewayCode.SymbolNotFound);
    const owner = accounts.ledger.findOwner(ctx.account, ctx.subaccountIndex);
    const positions = owner === undefined ? [] : accounts.ledger.positionsOf(owner).filter((p) => market === undefined || p.market === market.index);
    return { status: 200, body: ctx.serialize({ positions: positions.map((p) => view(ctx, p)) }) };
  };
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const POSITIONS: Endpoint = { method: 'get', path: '/account/positions', tag: 'Account', summary: 'Open positions', description: 'Quantity signed (positive long); basis, fees, funding and margin in USD; updatedAt in ms.', auth: true, accessRefused: AuthCode.DelegationNotAllowed, query: POSITIONS_QUERY, response: S.POSITIONS_SCHEMA, errors: [...BAD_QUERY, DELEGATION_NOT_ALLOWED, SYMBOL_NOT_FOUND] };
