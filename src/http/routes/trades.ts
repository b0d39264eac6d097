/**
 * GET /trades/{symbol}?limit=&from=&to=: the market's public trades, newest first.
 * `limit` 1–5000, default 100; `from` (on or after) and `to` (before) in milliseconds, ≥ 0;
 * each trade's `time` in seconds. Also the window parameters' parser that GET /candles shares.
 */
import { serializer } from '../serializer.ts';
import { BAD_CURSOR, CURSOR_PARAM, cursorParam, withNextCursor } from '../cursor.ts';
import { findMarket, type MarketSpec } from '../../config/market.ts';
import type { MarketHistory, RangeQuery } from '../../history/types.ts';
import { tradeView } from '../../history/views.ts';
import { failure, GatewayCode } from '../errors.ts';
import { int, isReply, strictInteger, strictQuery, paramNames, type Query, type QueryParam } from '../query.ts';
import { PUBLIC_TRADES_SCHEMA } from '../schemas.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import { SYMBOL_PATH, type Endpoint } from '../endpoint.ts';
import { DB_FAILURE, LIMIT_5000, PUBLIC_BUDGET, STRICT_QUERY, SYMBOL_NOT_FOUND, WINDOW } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';

const DEFAULT_TRADES_LIMIT = 100;
const MAX_HISTORY_LIMIT = 5000;

const serialize = serializer(PUBLIC_TRADES_SCHEMA);

/** What the history routes need of the market data port. */
export interface MarketList {
  readonly markets: readonly MarketSpec[];
}

/** `from` and `to` of the public history routes. */
export const MS_WINDOW: readonly QueryParam[] = [
  { name: 'from', required: false, schema: int(0), description: 'milliseconds: on or after' },
  { name: 'to', required: false, schema: int(0), description: 'milliseconds: before' },
];

const TRADES_QUERY: readonly QueryParam[] = [{ name: 'limit', required: false, schema: int(1, 5000), description: '1 to 5000, default 100' }, ...MS_WINDOW, CURSOR_PARAM];
const TRADES_PARAMS = paramNames(TRADES_QUERY);

/** `limit`, `from` and `to` of a history query, or the 400 that refuses them. */
export function parseWindow(query: Query, defaultLimit: number): RangeQuery | HttpReply {
  let limit = defaultLimit;
  const limitText = query.get('limit');
  if (limitText !== undefined) {
    const n = strictInteger(limitText);
    if (n === undefined || n < 1 || n > MAX_HISTORY_LIMIT) return failure(GatewayCode.LimitOutOfRange, limitText);
    limit = n;
  }
  const window: RangeQuery = { limit };
  for (const name of ['from', 'to'] as const) {
    const text = query.get(name);
    if (text === undefined) continue;
    const n = strictInteger(text);
    if (n === undefined || n < 0) return failure(GatewayCode.InvalidField, `${name} must be an integer >= 0 (milliseconds), got ${text}`);
    window[name] = n;
  }
  return window;
}

export function tradesRoute(marketData: MarketList, history: MarketHistory) {
  return (req: HttpRequest): HttpReply => {
    const market = findMarket(marketData.markets, req.params[0]);
    if (market === undefined) return failure(GatewayCode.SymbolNotFound);
    const query = strictQuery(req.query, TRADES_PARAMS);
    if (isReply(query)) return query;
    const window = parseWindow(query, DEFAULT_TRADES_LIMIT);
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
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const TRADES: Endpoint = {
  method: 'get', path: '/trades/{symbol}', tag: 'Market data', summary: 'Public trades', description: 'Trades of a market, newest first (`time` in seconds, `side` of the aggressor). A full page answers `X-Next-Cursor`: send it as `cursor` for the trades that follow.', auth: false, pathParams: SYMBOL_PATH,
  query: TRADES_QUERY,
  response: S.PUBLIC_TRADES_SCHEMA, errors: [SYMBOL_NOT_FOUND, ...STRICT_QUERY, LIMIT_5000, WINDOW, BAD_CURSOR, DB_FAILURE, PUBLIC_BUDGET],
  readsHistory: true,
  pages: true,
};
