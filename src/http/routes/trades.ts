/**
 * GET /trades/{symbol}?limit=&from=&to=: the market's public trades, newest first.
 * `limit` 1–5000, default 100; `from` (on or after) and `to` (before) in milliseconds, ≥ 0;
 * each trade's `time` in seconds.
 */
import { BAD_CURSOR, CURSOR_PARAM, cursorParam, withNextCursor } from '../cursor.ts';
import type { MarketSpec } from '../../config/market.ts';
import type { MarketHistory } from '../../history/types.ts';
import { tradeView } from '../../history/views.ts';
import { failure, GatewayCode, MAX_LIMIT } from '../errors.ts';
import { int, isReply, NOT_MILLISECONDS, rangeParams, WINDOW_PARAMS, type Query, type QueryParam } from '../query.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import { marketInPath, route, SYMBOL_PATH, type DeclaredRoute, type Endpoint, type Serializer } from '../endpoint.ts';
import { DB_FAILURE, LIMIT_5000, PUBLIC_BUDGET, SYMBOL_NOT_FOUND } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';

export const DEFAULT_TRADES_LIMIT = 100;

/** What the history routes need of the market data port. */
export interface MarketList {
  readonly markets: readonly MarketSpec[];
}

const TRADES_QUERY: readonly QueryParam[] = [{ name: 'limit', required: false, schema: int(1, MAX_LIMIT), description: '1 to 5000, default 100' }, ...WINDOW_PARAMS, CURSOR_PARAM];

export function tradesRoute(marketData: MarketList, history: MarketHistory): DeclaredRoute {
  const handler = (_req: HttpRequest, query: Query, serialize: Serializer, market: MarketSpec): HttpReply => {
    const window = rangeParams(query, DEFAULT_TRADES_LIMIT, MAX_LIMIT);
    if (isReply(window)) return window;
    const after = cursorParam(query, 2);
    if (isReply(after)) return after;
    let trades;
    try {
      trades = history.trades(market.index, { ...window, after });
    } catch {
      return failure(GatewayCode.DatabaseFailure);
    }
    const last = trades.at(-1);
    return withNextCursor({ status: 200, body: serialize(trades.map((t) => tradeView(market, t))) }, trades.length === window.limit, last && [last.time, last.seq]);
  };
  return route(TRADES, handler, marketInPath(marketData.markets, GatewayCode.SymbolNotFound));
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const TRADES: Endpoint = {
  method: 'get', path: '/trades/{symbol}', tag: 'Market data', summary: 'Public trades', description: 'Trades of a market, newest first (`time` in seconds, `side` of the aggressor). A full page answers `X-Next-Cursor`: send it as `cursor` for the trades that follow.', auth: false, pathParams: SYMBOL_PATH,
  query: TRADES_QUERY,
  response: S.PUBLIC_TRADES_SCHEMA, errors: [SYMBOL_NOT_FOUND, LIMIT_5000, NOT_MILLISECONDS, BAD_CURSOR, DB_FAILURE, PUBLIC_BUDGET],
  readsHistory: true,
  pages: true,
};
