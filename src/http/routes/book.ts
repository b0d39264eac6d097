/**
 * GET /book/{symbol}: an L2 snapshot, asks ascending and bids descending, aggregated to a
 * multiple of the market's tick (asks rounded up, bids rounded down).
 */
import { findMarket, lotsToQuantity, ticksToPrice, type MarketSpec } from '../../config/market.ts';
import { parseDecimal } from '../../numeric/decimal.ts';
import { Side, type Level } from '../../engine/types.ts';
import { documentedError, failure, GatewayCode, MAX_BOOK_DEPTH, refuse, saying } from '../errors.ts';
import { MISSING_PARAMETER, strictInteger, type Query, type QueryParam } from '../query.ts';
import type { Clock, MarketDataPort } from '../ports.ts';
import type { HttpReply, HttpRequest } from '../uws.ts';
import { marketInPath, route, SYMBOL_PATH, type DeclaredRoute, type Endpoint, type Serializer } from '../endpoint.ts';
import { PUBLIC_BUDGET, SYMBOL_NOT_FOUND } from '../endpoint-errors.ts';
import * as S from '../schemas.ts';

export const DEFAULT_BOOK_DEPTH = 100;
const BOOK_CACHE_ENTRIES = 64;
export const TICK_MULTIPLIERS = [1, 2, 5, 10, 100, 1000] as const;

/** The tick multiple a `tickSize` query names, or undefined when it is not an allowed multiple. */
function tickMultipleOf(market: MarketSpec, text: string): number | undefined {
  const parsed = parseDecimal(text, market.priceScale);
  if (!parsed.ok || parsed.value <= 0n || parsed.value % market.tickUnits !== 0n) return undefined;
  const multiple = Number(parsed.value / market.tickUnits);
  return (TICK_MULTIPLIERS as readonly number[]).includes(multiple) ? multiple : undefined;
}

function levels(market: MarketSpec, list: Level[]): { price: string; quantity: string }[] {
  return list.map((l) => ({ price: ticksToPrice(market, l.price), quantity: lotsToQuantity(market, l.quantity) }));
}

/**
 * The last body served per (market, depth, tick multiple): reused while the book's sequence
 * and the second are unchanged, because bots poll far more often than a book changes and
 * formatting decimals is most of a request's cost. A body is the declared response's
 * serialization (`serialize`, from `route()`), kept already serialized.
 */
interface CachedBook {
  sequence: number;
  second: number;
  body: string;
}

const DEPTH: QueryParam = { name: 'depth', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_BOOK_DEPTH }, description: `levels per side, 1 to ${MAX_BOOK_DEPTH}, default ${DEFAULT_BOOK_DEPTH}` };
const TICK_SIZE: QueryParam = { name: 'tickSize', required: false, schema: { type: 'string' }, description: 'aggregate to the base tick times 1, 2, 5, 10, 100 or 1000' };
const BOOK_QUERY: readonly QueryParam[] = [DEPTH, TICK_SIZE];
/** GET /orderbook: the market in the query. */
const ORDERBOOK_QUERY: readonly QueryParam[] = [{ name: 'symbol', required: true, schema: { type: 'string' }, description: 'market, e.g. BTC-USD-PERP or BTC' }, DEPTH, TICK_SIZE];

/**
 * GET /book/{symbol}, and GET /orderbook?symbol= with the market in the query string. There
 * `symbol` is required: absent (or empty) is a 400 naming it, not `Symbol not found` — the
 * client forgot a parameter, it did not name an unknown market.
 */
export function bookRoutes(port: MarketDataPort, clock: Clock): { book: DeclaredRoute; orderbook: DeclaredRoute } {
  const cache = new Map<string, CachedBook>();
  const snapshot = (market: MarketSpec, query: Query, serialize: Serializer): HttpReply => {
    let depth = DEFAULT_BOOK_DEPTH;
    const depthText = query.get('depth');
    if (depthText !== undefined) {
      const n = strictInteger(depthText);
      if (n === undefined || n < 1 || n > MAX_BOOK_DEPTH) return failure(GatewayCode.DepthOutOfRange);
      depth = n;
    }
    let multiple = 1;
    const tickText = query.get('tickSize');
    if (tickText !== undefined) {
      const m = tickMultipleOf(market, tickText);
      if (m === undefined) return failure(GatewayCode.TickSizeNotAllowed, market.tickSize);
      multiple = m;
    }
    const book = port.book(market.index);
    const sequence = book.sequence;
    const second = Math.floor(clock() / 1000);
    const key = `${market.index}:${depth}:${multiple}`;
    const cached = cache.get(key);
    if (cached !== undefined && cached.sequence === sequence && cached.second === second) return { status: 200, body: cached.body };
    const body = serialize({
      asks: levels(market, book.depth(Side.Sell, depth, multiple)),
      bids: levels(market, book.depth(Side.Buy, depth, multiple)),
      sequence_number: sequence,
      time: second,
    });
    // A client cycling through depths must not grow memory: a few dozen entries are plenty.
    if (cache.size >= BOOK_CACHE_ENTRIES && !cache.has(key)) cache.clear();
    cache.set(key, { sequence, second, body });
    return { status: 200, body };
  };
  return {
    // An unknown market is named first, whatever the query holds.
    book: route(BOOK, (_req: HttpRequest, query: Query, serialize: Serializer, market: MarketSpec) => snapshot(market, query, serialize), marketInPath(port.markets, GatewayCode.SymbolNotFound)),
    orderbook: route(ORDERBOOK, (_req, query, serialize) => {
      const symbol = query.get('symbol');
      if (symbol === undefined || symbol === '') return refuse(MISSING_PARAMETER, 'symbol');
      const market = findMarket(port.markets, symbol);
      return market === undefined ? failure(GatewayCode.SymbolNotFound) : snapshot(market, query, serialize);
    }),
  };
}

// ── declarations (http/endpoint): what the API document says of each route ──

const DEPTH_OUT_OF_RANGE = documentedError(GatewayCode.DepthOutOfRange);
const TICK_SIZE_NOT_ALLOWED = documentedError(GatewayCode.TickSizeNotAllowed, 'tick');

export const BOOK: Endpoint = {
  method: 'get', path: '/book/{symbol}', tag: 'Market data', summary: 'Order book', description: 'L2 snapshot: asks ascending, bids descending, `time` in seconds.', auth: false, pathParams: SYMBOL_PATH,
  query: BOOK_QUERY,
  response: S.BOOK_SCHEMA, errors: [SYMBOL_NOT_FOUND, DEPTH_OUT_OF_RANGE, TICK_SIZE_NOT_ALLOWED, PUBLIC_BUDGET],
};

export const ORDERBOOK: Endpoint = {
  method: 'get', path: '/orderbook', tag: 'Market data', summary: 'Order book (query form)', description: 'The same snapshot as GET /book/{symbol}, with the market in the `symbol` query parameter.', auth: false,
  query: ORDERBOOK_QUERY,
  response: S.BOOK_SCHEMA, errors: [saying(MISSING_PARAMETER, 'symbol'), SYMBOL_NOT_FOUND, DEPTH_OUT_OF_RANGE, TICK_SIZE_NOT_ALLOWED, PUBLIC_BUDGET],
};
