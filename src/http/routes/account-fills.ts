/**
 * GET /account/fills?account=&subaccountIndex=&symbol=&from=&to=&limit=: the subaccount's
 * fills, newest first, from the fills projection. `from` (on or after) and `to` (before) in
 * milliseconds; `limit` 1–5000, default 50 (`Limit must be between 1 and 5000, got <n>`);
 * `symbol` narrows to one market (404 `Symbol not found` when unknown). A subaccount never
 * seen has no fills. A symbol traded rarely in a long history may make the listing read more
 * than history/reader's `SEARCH_LIMIT` entries: 400, narrow the window. A failed database read
 * is 500 `Internal server error: Database connection failed`.
 */
import { findMarket, type MarketSpec } from '../../config/market.ts';
import { SearchTooBroad, type HistoryReader } from '../../history/reader.ts';
import { accountFillView } from '../../history/views.ts';
import { failure, GatewayCode, MAX_LIMIT } from '../errors.ts';
import type { SubaccountContext } from '../auth-guard.ts';
import { isReply, NOT_MILLISECONDS, rangeParams, WINDOW_PARAMS, type QueryParam } from '../query.ts';
import { SUBACCOUNT_PARAMS, SYMBOL_PARAM } from '../account-query.ts';
import type { AccountReadPort } from '../ports.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import type { Endpoint } from '../endpoint.ts';
import { BAD_QUERY, DB_FAILURE, LIMIT_5000, SEARCH_TOO_BROAD, SYMBOL_NOT_FOUND, DELEGATION_NOT_ALLOWED } from '../endpoint-errors.ts';
import { AuthCode } from '../../auth/codes.ts';
import { BAD_CURSOR, CURSOR_PARAM, cursorParam, withNextCursor } from '../cursor.ts';
import * as S from '../schemas.ts';

export const DEFAULT_FILLS_LIMIT = 50;

const FILLS_QUERY: readonly QueryParam[] = [
  ...SUBACCOUNT_PARAMS,
  SYMBOL_PARAM,
  ...WINDOW_PARAMS,
  { name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_FILLS_LIMIT }, description: '1 to 5000, default 50; when more match, the newest are kept' },
  CURSOR_PARAM,
];

/** What the fills route reads: `HistoryReader` over LMDB, or a test double. */
export type FillHistory = Pick<HistoryReader, 'fills'>;

export function fillsRoute(accounts: AccountReadPort, markets: readonly MarketSpec[], history: FillHistory) {
  return (_req: HttpRequest, ctx: SubaccountContext): HttpReply => {
    const symbol = ctx.query.get('symbol');
    const market = symbol === undefined ? undefined : findMarket(markets, symbol);
    if (symbol !== undefined && market === undefined) return failure(GatewayCode.SymbolNotFound);
    const range = rangeParams(ctx.query, DEFAULT_FILLS_LIMIT, MAX_LIMIT);
    if (isReply(range)) return range;
    const { limit, from, to } = range;
    const after = cursorParam(ctx.query, 3);
    if (isReply(after)) return after;
    const owner = accounts.ledger.findOwner(ctx.account, ctx.subaccountIndex);
    if (owner === undefined) return { status: 200, body: '[]' };
    let fills;
    try {
      fills = history.fills(owner, { marketIndex: market?.index, from, to, limit, after });
    } catch (error) {
      return failure(error instanceof SearchTooBroad ? GatewayCode.SearchTooBroad : GatewayCode.DatabaseFailure, 'from and to');
    }
    const last = fills.at(-1);
    return withNextCursor({ status: 200, body: ctx.serialize(fills.map((f) => accountFillView(markets[f.marketIndex], f))) }, fills.length === limit, last && [last.time, last.marketIndex, last.seq]);
  };
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const FILLS: Endpoint = { method: 'get', path: '/account/fills', tag: 'Account', summary: 'Fills', description: 'The subaccount’s fills, newest first; `time` in ms. A full page answers `X-Next-Cursor`: send it as `cursor` for the fills that follow.', auth: true, accessRefused: AuthCode.DelegationNotAllowed, query: FILLS_QUERY, response: S.ACCOUNT_FILLS_SCHEMA, errors: [...BAD_QUERY, DELEGATION_NOT_ALLOWED, SYMBOL_NOT_FOUND, LIMIT_5000, NOT_MILLISECONDS, BAD_CURSOR, SEARCH_TOO_BROAD, DB_FAILURE], readsHistory: true, pages: true };
