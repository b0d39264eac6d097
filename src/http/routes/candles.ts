/**
 * GET /candles/{symbol}?interval=&from=&to=&limit=: candles of one interval, ascending by
 * start. `interval` one of 1m … 1d, default 1m; `from` (started on or after) and `to` (started
 * before) in milliseconds; `limit` 1–5000, default 1000, keeping the newest when more match;
 * each candle's `time` (its start) in seconds.
 */
import { serializer } from '../serializer.ts';
import { findMarket } from '../../config/market.ts';
import { CANDLE_INTERVALS, INTERVAL_1M, intervalByName } from '../../history/candles.ts';
import type { MarketHistory } from '../../history/types.ts';
import { candleView } from '../../history/views.ts';
import { failure, GatewayCode } from '../errors.ts';
import { isReply, paramNames, strictQuery, type QueryParam } from '../query.ts';
import { CANDLES_SCHEMA } from '../schemas.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import { MS_WINDOW, parseWindow, type MarketList } from './trades.ts';
import { SYMBOL_PATH, type Endpoint } from '../endpoint.ts';
import { DB_FAILURE, LIMIT_5000, PUBLIC_BUDGET, STRICT_QUERY, WINDOW } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';

const DEFAULT_CANDLES_LIMIT = 1000;

const INTERVAL_NAMES = CANDLE_INTERVALS.map((i) => i.name).join(', ');
const serialize = serializer(CANDLES_SCHEMA);

const CANDLES_QUERY: readonly QueryParam[] = [
  { name: 'interval', required: false, schema: { type: 'string', enum: CANDLE_INTERVALS.map((i) => i.name) }, description: 'default 1m' },
  ...MS_WINDOW,
  { name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 5000 }, description: '1 to 5000, default 1000; the newest are kept' },
];
const CANDLES_PARAMS = paramNames(CANDLES_QUERY);

export function candlesRoute(marketData: MarketList, history: MarketHistory) {
  return (req: HttpRequest): HttpReply => {
    const symbol = req.params[0];
    const market = findMarket(marketData.markets, symbol);
    if (market === undefined) return failure(GatewayCode.MarketNotFound, symbol);
    const query = strictQuery(req.query, CANDLES_PARAMS);
    if (isReply(query)) return query;
    const intervalText = query.get('interval');
    const interval = intervalText === undefined ? INTERVAL_1M : intervalByName(intervalText);
    if (interval === undefined) {
      return failure(GatewayCode.InvalidField, `Interval must be one of ${INTERVAL_NAMES}, got ${intervalText}`);
    }
    const window = parseWindow(query, DEFAULT_CANDLES_LIMIT);
    if (isReply(window)) return window;
    let candles;
    try {
      candles = history.candles(market.index, interval, window);
    } catch {
      return failure(GatewayCode.DatabaseFailure);
    }
    return { status: 200, body: serialize(candles.map((c) => candleView(market, c))) };
  };
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const CANDLES: Endpoint = {
  method: 'get', path: '/candles/{symbol}', tag: 'Market data', summary: 'Candles', description: 'Candles of one interval, ascending by start (`time` in seconds); periods without trades are absent.', auth: false, pathParams: SYMBOL_PATH,
  query: CANDLES_QUERY,
  response: S.CANDLES_SCHEMA, errors: [[404, 'Market <symbol> not found'], ...STRICT_QUERY, [400, 'Interval must be one of 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, got <interval>'], LIMIT_5000, WINDOW, DB_FAILURE, PUBLIC_BUDGET],
  readsHistory: true,
};
