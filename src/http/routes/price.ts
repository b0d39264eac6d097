/**
 * GET /price and GET /summary: every market's prices, and its last 24 hours.
 *
 * GET /price → `{time, prices: [{symbol, markPrice, indexPrice, lastPrice, indexHeld}]}`: mark
 * and index from the ledger's price source, last from the trade history; null when not known
 * yet; `indexHeld` true while an operator-set index holds the market (testnet feed paused).
 * GET /summary → `{time, markets: [{symbol, open, high, low, close, lastPrice, volume,
 * quoteVolume, change, changePercent, trades, openTime}]}` over the 1440 minutes ending with
 * the current one (see `history/views` summaryView). `time` and `openTime` in seconds.
 * Both take an optional `symbol` to answer one market (404 `Symbol not found` when unknown).
 */
import { findMarket, ticksToPrice, type MarketSpec } from '../../config/market.ts';
import type { MarketHistory, PriceSource } from '../../history/types.ts';
import { secondsOf, summaryView } from '../../history/views.ts';
import { failure, GatewayCode } from '../errors.ts';
import type { Clock } from '../ports.ts';
import type { Query, QueryParam } from '../query.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import type { MarketList } from './trades.ts';
import { route, type DeclaredRoute, type Endpoint, type Serializer } from '../endpoint.ts';
import { DB_FAILURE, PUBLIC_BUDGET, SYMBOL_NOT_FOUND } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';

/** GET /price and GET /summary: every market, or the one `symbol` names. */
const ONE_MARKET_QUERY: readonly QueryParam[] = [{ name: 'symbol', required: false, schema: { type: 'string' }, description: 'only this market; all markets when absent' }];

/** The markets a request asks about: all, or the one `symbol` names; a 404 reply when unknown. */
function selected(marketData: MarketList, query: Query): readonly MarketSpec[] | HttpReply {
  const symbol = query.get('symbol');
  if (symbol === undefined) return marketData.markets;
  const market = findMarket(marketData.markets, symbol);
  return market === undefined ? failure(GatewayCode.SymbolNotFound) : [market];
}

function priceText(market: MarketSpec, ticks: number | undefined): string | null {
  return ticks === undefined || ticks <= 0 ? null : ticksToPrice(market, ticks);
}

export function pricesRoute(marketData: MarketList, history: MarketHistory, prices: PriceSource, clock: Clock): DeclaredRoute {
  return route(PRICES, (_req: HttpRequest, query: Query, serialize: Serializer): HttpReply => {
    const markets = selected(marketData, query);
    if (!Array.isArray(markets)) return markets as HttpReply;
    let last;
    try {
      last = markets.map((market) => history.lastPrice(market.index));
    } catch {
      return failure(GatewayCode.DatabaseFailure);
    }
    const list = markets.map((market, i) => {
      const { mark, index, held } = prices(market.index);
      return { symbol: market.symbol, markPrice: priceText(market, mark), indexPrice: priceText(market, index), lastPrice: priceText(market, last[i]), indexHeld: held === true };
    });
    return { status: 200, body: serialize({ time: secondsOf(clock()), prices: list }) };
  });
}

export function summaryRoute(marketData: MarketList, history: MarketHistory, clock: Clock): DeclaredRoute {
  return route(SUMMARY, (_req: HttpRequest, query: Query, serialize: Serializer): HttpReply => {
    const markets = selected(marketData, query);
    if (!Array.isArray(markets)) return markets as HttpReply;
    const now = clock();
    let list;
    try {
      list = markets.map((market) => summaryView(market, history.summary24h(market.index, now)));
    } catch {
      return failure(GatewayCode.DatabaseFailure);
    }
    return { status: 200, body: serialize({ time: secondsOf(now), markets: list }) };
  });
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const PRICES: Endpoint = { method: 'get', path: '/price', tag: 'Market data', summary: 'Mark, index and last prices', description: 'One entry per market (or the one `symbol` names); null when not known yet.', auth: false, query: ONE_MARKET_QUERY, response: S.PRICES_SCHEMA, errors: [SYMBOL_NOT_FOUND, DB_FAILURE, PUBLIC_BUDGET], readsHistory: true };

export const SUMMARY: Endpoint = { method: 'get', path: '/summary', tag: 'Market data', summary: '24-hour summary', description: 'Open, high, low, close, volume and change over the 1440 minutes ending now.', auth: false, query: ONE_MARKET_QUERY, response: S.SUMMARY_SCHEMA, errors: [SYMBOL_NOT_FOUND, DB_FAILURE, PUBLIC_BUDGET], readsHistory: true };
