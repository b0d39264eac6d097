/**
 * @module http/gateway
 *
 * The route table of the REST API and what happens around every request: unknown paths get
 * 404, known paths with another method 405, a thrown error (a broken invariant) 500 with the
 * error logged. Routes themselves live one concept per file in ./routes/.
 * May import: http/, config/, engine/types (values it formats); the runtime only via ports.ts.
 */
import type { Logger } from 'pino';
import { failure, GatewayCode } from './errors.ts';
import { startHttpServer, type HttpServer, type Route, type HttpRequest } from './uws.ts';
import { bookRoute } from './routes/book.ts';
import { configRoute, marketsRoute, timeRoute } from './routes/markets.ts';
import { candlesRoute } from './routes/candles.ts';
import { tradesRoute } from './routes/trades.ts';
import { pricesRoute, summaryRoute } from './routes/price.ts';
import type { Clock, MarketDataPort, MarketHistory, PriceSource } from './ports.ts';

export interface GatewayOptions {
  host: string;
  port: number;
  clock: Clock;
  logger: Logger;
  marketData: MarketDataPort;
  history: MarketHistory;
  prices: PriceSource;
  maxBodyBytes?: number;
}

export function routes(options: GatewayOptions): Route[] {
  const { marketData, clock } = options;
  return [
    { method: 'get', pattern: '/config', handler: configRoute(marketData) },
    { method: 'get', pattern: '/markets', handler: marketsRoute(marketData) },
    { method: 'get', pattern: '/time', handler: timeRoute(clock) },
    { method: 'get', pattern: '/book/:symbol', handler: bookRoute(marketData, clock) },
    { method: 'get', pattern: '/candles/:symbol', handler: candlesRoute(marketData, options.history) },
    { method: 'get', pattern: '/trades/:symbol', handler: tradesRoute(marketData, options.history) },
    { method: 'get', pattern: '/price', handler: pricesRoute(marketData, options.history, options.prices, clock) },
    { method: 'get', pattern: '/summary', handler: summaryRoute(marketData, options.history, clock) },
  ];
}

/** A path pattern as a RegExp, to tell 405 (known path) from 404. */
function patternRegExp(pattern: string): RegExp {
  return new RegExp('^' + pattern.replace(/:[^/]+/g, '[^/]+') + '/?$');
}

export function startGateway(options: GatewayOptions): Promise<HttpServer> {
  const table = routes(options);
  const known = table.map((r) => ({ method: r.method, path: patternRegExp(r.pattern) }));
  return startHttpServer({
    host: options.host,
    port: options.port,
    routes: table,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
    fallback: (req: HttpRequest) => {
      const allowed = known.filter((k) => k.path.test(req.path)).map((k) => k.method.toUpperCase());
      if (allowed.length === 0) return failure(GatewayCode.RouteNotFound, req.path);
      const reply = failure(GatewayCode.MethodNotAllowed, req.method.toUpperCase());
      reply.headers = { allow: [...new Set(allowed)].join(', ') };
      return reply;
    },
    onHandlerError: (error, req) => {
      options.logger.error({ err: error, method: req.method, path: req.path }, 'handler failed');
      return failure(GatewayCode.Internal);
    },
  });
}
