/**
 * @module http/gateway
 *
 * The route table of the REST API and what happens around every request: public routes run
 * under the per-source-address budget, /account/* routes behind the account guard (token,
 * per-account budget, read authorization); unknown paths get 404, known paths with another
 * method 405, a thrown error (a broken invariant) 500 with the error logged; during a drain
 * (shutdown) 503 `Service overloaded: shutting down` with `Retry-After`. Routes themselves
 * live one concept per file in ./routes/.
 * May import: http/, config/, engine/types (values it formats); the runtime only via ports.ts.
 */
import type { Logger } from 'pino';
import { failure, GatewayCode } from './errors.ts';
import { startHttpServer, type HttpServer, type Route, type HttpRequest } from './uws.ts';
import { bookRoute, orderbookRoute } from './routes/book.ts';
import { configRoute, marketsRoute, timeRoute } from './routes/markets.ts';
import { candlesRoute } from './routes/candles.ts';
import { tradesRoute } from './routes/trades.ts';
import { pricesRoute, summaryRoute } from './routes/price.ts';
import { docsRoutes } from './routes/openapi.ts';
import { orderRoutes } from './routes/orders.ts';
import { operatorRoutes, type OperatorPort } from './routes/operator.ts';
import { faucetRoute } from './routes/faucet.ts';
import { clusterRoutes, type ClusterPort } from './routes/cluster.ts';
import { AccountGuard } from './auth-guard.ts';
import { accountRoutes, loginRoutes, type AccountApiOptions } from './account-routes.ts';
import type { Clock, MarketDataPort, MarketHistory, OrdersPort, PriceSource } from './ports.ts';
import type { SocketEndpoint } from './uws.ts';

export interface GatewayOptions {
  host: string;
  port: number;
  clock: Clock;
  logger: Logger;
  marketData: MarketDataPort;
  history: MarketHistory;
  prices: PriceSource;
  /** Login and the /account/* routes; without it the gateway serves public market data only. */
  accounts?: Omit<AccountApiOptions, 'markets' | 'clock'>;
  orders?: OrdersPort;
  operator?: { port: OperatorPort; key: string };
  maxBodyBytes?: number;
  /** Proxies whose `X-Forwarded-For` is believed for the per-address budget; default none. */
  trustedProxies?: readonly string[];
  /** The streaming feeds' WebSocket endpoint (ws/feeds), on the same port. */
  sockets?: SocketEndpoint<any>;
  /** A replicated node (routes/cluster): GET /cluster, writes refused while not the primary, the lag header. */
  cluster?: ClusterPort;
}

/** The address a client on this machine reaches the server at: `localhost` for a wildcard listen address. */
export function localUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** The route table; `boundUrl` is where this server answers, known once it listens (the API document's first server). */
export function routes(options: GatewayOptions, boundUrl: () => string = () => localUrl(options.host, options.port)): Route[] {
  const { marketData, clock } = options;
  const markets = marketData.markets;
  const guard = options.accounts === undefined ? undefined : new AccountGuard({ tokens: options.accounts.auth.login.tokens, delegations: options.accounts.accounts.delegations, clock });
  const open = guard === undefined ? (r: Route) => r : (r: Route) => ({ ...r, handler: guard.publicLimited(r.handler) });
  const publicRoutes: Route[] = [
    { method: 'get', pattern: '/config', handler: configRoute(marketData) },
    { method: 'get', pattern: '/markets', handler: marketsRoute(marketData) },
    { method: 'get', pattern: '/time', handler: timeRoute(clock) },
    { method: 'get', pattern: '/book/:symbol', handler: bookRoute(marketData, clock) },
    { method: 'get', pattern: '/orderbook', handler: orderbookRoute(bookRoute(marketData, clock)) },
    { method: 'get', pattern: '/candles/:symbol', handler: candlesRoute(marketData, options.history) },
    { method: 'get', pattern: '/trades/:symbol', handler: tradesRoute(marketData, options.history) },
    { method: 'get', pattern: '/price', handler: pricesRoute(marketData, options.history, options.prices, clock) },
    { method: 'get', pattern: '/summary', handler: summaryRoute(marketData, options.history, clock) },
    ...docsRoutes(() => [
      { url: boundUrl(), description: 'this server' },
      { url: marketData.profile.baseUrl, description: `the public ${marketData.profile.name}` },
    ]),
  ];
  const table = publicRoutes.map(open);
  if (guard !== undefined && options.accounts !== undefined) {
    const accounts = { ...options.accounts, markets, clock };
    table.push(...loginRoutes(accounts.auth, guard), ...accountRoutes(accounts, guard));
    if (options.orders !== undefined) {
      table.push(...orderRoutes({ markets, orders: options.orders, guard, domain: accounts.auth.domain, recover: accounts.auth.recover, clock }));
    }
  }
  if (options.operator !== undefined) {
    table.push(...operatorRoutes({ markets, operator: options.operator.port, operatorKey: options.operator.key, clock }));
    // The testnet faucet funds the logged-in account: it needs the login the account API brings.
    if (marketData.profile.faucet && guard !== undefined) table.push(faucetRoute(options.operator.port, guard, clock));
  }
  return options.cluster === undefined ? table : clusterRoutes(table, options.cluster);
}

/** A path pattern as a RegExp, to tell 405 (known path) from 404. */
function patternRegExp(pattern: string): RegExp {
  return new RegExp('^' + pattern.replace(/:[^/]+/g, '[^/]+') + '/?$');
}

export async function startGateway(options: GatewayOptions): Promise<HttpServer> {
  let bound = localUrl(options.host, options.port);
  const table = routes(options, () => bound);
  const known = table.map((r) => ({ method: r.method, path: patternRegExp(r.pattern) }));
  const server = await startHttpServer({
    host: options.host,
    port: options.port,
    routes: table,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
    trustedProxies: new Set(options.trustedProxies ?? []),
    sockets: options.sockets,
    // A stopping exchange refuses like an overloaded one: nothing done, retry (elsewhere or after the restart).
    shuttingDown: failure(GatewayCode.Overloaded, 'shutting down'),
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
  // Port 0 picks a free port: the document names the one it got (no request arrives before this).
  bound = localUrl(options.host, server.port);
  return server;
}
