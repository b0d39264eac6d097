/**
 * GET /candles/{symbol}?interval=&from=&to=&limit=: candles of one interval, ascending by
 * start. `interval` one of 1m … 1d, default 1m; `from` (started on or after) and `to` (started
 * before) in milliseconds; `limit` 1–5000, default 1000, keeping the newest when more match;
 * each candle's `time` (its start) in seconds.
 */
import type { MarketSpec } from '../../config/market.ts';
import { CANDLE_INTERVALS, INTERVAL_1M, intervalByName } from '../../history/candles.ts';
import type { MarketHistory } from '../../history/types.ts';
import { candleView } from '../../history/views.ts';
import { documentedError, failure, GatewayCode, MAX_LIMIT, refuse, type DocumentedError } from '../errors.ts';
import { isReply, NOT_MILLISECONDS, rangeParams, WINDOW_PARAMS, type Query, type QueryParam } from '../query.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import type { MarketList } from './trades.ts';
import { marketInPath, route, SYMBOL_PATH, type DeclaredRoute, type Endpoint, type Serializer } from '../endpoint.ts';
import { DB_FAILURE, LIMIT_5000, PUBLIC_BUDGET } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';

export const DEFAULT_CANDLES_LIMIT = 1000;

const UNKNOWN_INTERVAL: DocumentedError = [400, `Interval must be one of ${CANDLE_INTERVALS.map((i) => i.name).join(', ')}, got <interval>`];

const CANDLES_QUERY: readonly QueryParam[] = [
  { name: 'interval', required: false, schema: { type: 'string', enum: CANDLE_INTERVALS.map((i) => i.name) }, description: 'default 1m' },
  ...WINDOW_PARAMS,
  { name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT }, description: '1 to 5000, default 1000; the newest are kept' },
];

export function candlesRoute(marketData: MarketList, history: MarketHistory): DeclaredRoute {
  const handler = (_req: HttpRequest, query: Query, serialize: Serializer, market: MarketSpec): HttpReply => {
    const intervalText = query.get('interval');
    const interval = intervalText === undefined ? INTERVAL_1M : intervalByName(intervalText);
    if (interval === undefined) return refuse(UNKNOWN_INTERVAL, intervalText!);
    const window = rangeParams(query, DEFAULT_CANDLES_LIMIT, MAX_LIMIT);
    if (isReply(window)) return window;
    let candles;
    try {
      candles = history.candles(market.index, interval, window);
    } catch {
      return failure(GatewayCode.DatabaseFailure);
    }
    return { status: 200, body: serialize(candles.map((c) => candleView(market, c))) };
  };
  return route(CANDLES, handler, marketInPath(marketData.markets, GatewayCode.MarketNotFound));
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const CANDLES: Endpoint = {
  method: 'get', path: '/candles/{symbol}', tag: 'Market data', summary: 'Candles', description: 'Candles of one interval, ascending by start (`time` in seconds); periods without trades are absent.', auth: false, pathParams: SYMBOL_PATH,
  query: CANDLES_QUERY,
  response: S.CANDLES_SCHEMA, errors: [documentedError(GatewayCode.MarketNotFound, 'symbol'), UNKNOWN_INTERVAL, LIMIT_5000, NOT_MILLISECONDS, DB_FAILURE, PUBLIC_BUDGET],
  readsHistory: true,
};
