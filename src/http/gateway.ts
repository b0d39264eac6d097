/**
 * @module http/gateway
 *
 * The route table of the REST API and what happens around every request: public routes run
 * under the per-source-address budget, /account/* routes behind the account guard (token,
 * per-account budget, read authorization); unknown paths get 404, known paths with another
 * method 405, a thrown error (a broken invariant) 500 with the error logged; during a drain
 * (shutdown) 503 `Service overloaded: shutting down` with `Retry-After`, and while the exchange
 * starts (`starting`: the journal replay) the same refusal naming the step, on every route but
 * the probes. Routes themselves live one concept per file in ./routes/; the table is
 * http/endpoints' list, one route per declared name, and what sets a route apart here (a probe,
 * the operator listener, answering during the start) is read from its declaration.
 *
 * Every answer is counted (`GatewayMetrics`: route pattern, method, status, latency; a refused
 * order submission by its reason) and logged as the operator asked: a refused write at debug,
 * every 503 at warn, every request at info with the access log on. /health, /ready and
 * /metrics are outside the per-address budget.
 *
 * With an operator port, the operator API and /metrics are served only by a second listener on
 * 127.0.0.1 (the probes on both); the public listener answers them 404. A listener that cannot
 * listen is a `ConfigError` naming its port setting.
 *
 * On a replicated node (`cluster`, routes/cluster) every route is wrapped: GET /cluster is
 * added, writes are refused with 421 naming the primary while this node is not it, and every
 * reply carries the replica's lag.
 *
 * All of that is one value, built by `gatewayDispatch`: per listener, the routes, the fallback,
 * the error answer and the observer (`Dispatch`). `startGateway` only listens over it; a test
 * harness answers requests in process with the same value (test/harness/inject).
 *
 * The markets served are `marketData.markets`, read as the table is built: the primary's are
 * its markets file's, which its start made the journal's. A replica's change as the primary's
 * markets records reach it, and it swaps in the table built again over them (`serveMarkets`): the
 * same `routes`, so nothing lists the routes a second time.
 * May import: http/, config/market, pino (types). The application and the sequencer only through
 * ports.ts.
 */
import type { Logger } from 'pino';
import { ConfigError, type MarketSpec } from '../config/market.ts';
import { CorsPolicy } from './cors.ts';
import { failure, GatewayCode } from './errors.ts';
import { startHttpServer, type HttpReply, type HttpServer, type HttpServerOptions, type Route, type HttpRequest } from './uws.ts';
import { bookRoutes } from './routes/book.ts';
import type { DeclaredRoute } from './endpoint.ts';
import { ENDPOINT_BY_NAME, ENDPOINTS, type EndpointName } from './endpoints.ts';
import { configRoute, marketsRoute, timeRoute } from './routes/markets.ts';
import { candlesRoute } from './routes/candles.ts';
import { tradesRoute } from './routes/trades.ts';
import { pricesRoute, summaryRoute } from './routes/price.ts';
import { docsRoutes, type FeedsDocument } from './routes/openapi.ts';
import { webRoutes } from './routes/web.ts';
import { orderRoutes } from './routes/orders.ts';
import { operatorRoutes, type OperatorPort } from './routes/operator.ts';
import { healthRoutes, metricsRoute } from './routes/operations.ts';
import { faucetRoute } from './routes/faucet.ts';
import { clusterRoute, clusterRoutes, type ClusterPort } from './routes/cluster.ts';
import { AccountGuard } from './auth-guard.ts';
import { accountRoutes, loginRoutes, type AccountApiOptions } from './account-routes.ts';
import type { Clock, GatewayMetrics, HistoryRead, MarketDataPort, MarketHistory, OperationsPort, OrdersPort, PriceSource } from './ports.ts';
import type { SocketEndpoint } from './uws.ts';

export interface GatewayOptions {
  host: string;
  port: number;
  clock: Clock;
  logger: Logger;
  marketData: MarketDataPort;
  history: MarketHistory;
  /** What the routes declared `readsHistory` wait for before they run; none: they never wait (a history written before it is read). */
  historyRead?: HistoryRead;
  prices: PriceSource;
  /** Login and the /account/* routes; without it the gateway serves public market data only. */
  accounts?: Omit<AccountApiOptions, 'markets' | 'clock'>;
  orders?: OrdersPort;
  operator?: { port: OperatorPort; key: string };
  maxBodyBytes?: number;
  /** Proxies whose `X-Forwarded-For` is believed for the per-address budget; default none. */
  trustedProxies?: readonly string[];
  /** /health, /ready and /metrics. */
  operations?: OperationsPort;
  metrics?: GatewayMetrics;
  /** One info line per request (method, path, status, milliseconds, client). */
  accessLog?: boolean;
  /** Serve the operator API and /metrics on 127.0.0.1:operatorPort instead of the public listener (0 picks a free port). */
  operatorPort?: number;
  /** Origins browsers may call the public API from (`*` for any); none by default. */
  corsOrigins?: readonly string[];
  /** The streaming feeds' WebSocket endpoint (ws/feeds), on the public port. */
  sockets?: SocketEndpoint<any>;
  /** The streaming feeds' AsyncAPI document (ws/asyncapi), served at GET /asyncapi.json; none: not served. */
  feedsDocument?: FeedsDocument;
  /** A replicated node (routes/cluster): GET /cluster, writes refused while not the primary, the lag header. */
  cluster?: ClusterPort;
  /**
   * What the start is still doing (`replaying journal (seq 1200 of 90000)`), or null once it
   * serves: until then every route but /health, /ready and /metrics, and every WebSocket
   * upgrade, is refused as a drain refuses (503 `Service overloaded: <it>`, `Retry-After`).
   */
  starting?: () => string | null;
}

/** The address a client on this machine reaches the server at: `localhost` for a wildcard listen address. */
export function localUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/**
 * What serves each declared route (http/endpoints), by its name: the type asks for every name, so
 * a route declared is a route served — or `undefined`, when the part that serves it is not there
 * (no account API, no operator key, not a replicated node).
 */
type Served = { readonly [N in EndpointName]: DeclaredRoute | undefined };

/** The route table, in the document's order; `boundUrl` is where this server answers, known once it listens (the API document's first server). */
export function routes(options: GatewayOptions, boundUrl: () => string = () => localUrl(options.host, options.port)): DeclaredRoute[] {
  const { marketData, clock, history } = options;
  const markets = marketData.markets;
  const guard = options.accounts === undefined ? undefined : new AccountGuard({ tokens: options.accounts.auth.login.tokens, delegations: options.accounts.accounts.delegations, clock });
  // The per-address budget lives in the account guard: without the account API, public routes are not budgeted.
  const open = (r: DeclaredRoute) => (guard === undefined ? r : guard.publicLimited(r));
  const book = bookRoutes(marketData, clock);
  const docs = docsRoutes(ENDPOINTS, () => [
    { url: boundUrl(), description: 'this server' },
    { url: marketData.profile.baseUrl, description: `the public ${marketData.profile.name}` },
  ], options.feedsDocument);
  const web = webRoutes();
  const health = options.operations === undefined ? undefined : healthRoutes(options.operations);
  const accounts = guard === undefined || options.accounts === undefined ? undefined : { ...options.accounts, markets, clock };
  const login = accounts === undefined ? undefined : loginRoutes(accounts.auth, guard!);
  const account = accounts === undefined ? undefined : accountRoutes(accounts, guard!);
  const orders = accounts === undefined || options.orders === undefined ? undefined : orderRoutes({ markets, orders: options.orders, guard: guard!, domain: accounts.auth.domain, recover: accounts.auth.recover, clock, metrics: options.metrics, historyRead: options.historyRead });
  const operator = options.operator === undefined ? undefined : operatorRoutes({ markets, operator: options.operator.port, operatorKey: options.operator.key, clock });
  const served: Served = {
    config: open(configRoute(marketData)),
    markets: open(marketsRoute(marketData)),
    time: open(timeRoute(clock)),
    book: open(book.book),
    orderbook: open(book.orderbook),
    candles: open(candlesRoute(marketData, history)),
    trades: open(tradesRoute(marketData, history)),
    prices: open(pricesRoute(marketData, history, options.prices, clock)),
    summary: open(summaryRoute(marketData, history, clock)),
    challenge: login?.challenge,
    login: login?.login,
    stats: account?.stats,
    balance: account?.balance,
    positions: account?.positions,
    fills: account?.fills,
    marginSettings: account?.marginSettings,
    marginUpdate: account?.marginUpdate,
    nonce: account?.nonce,
    transfer: account?.transfer,
    transferHistory: account?.transferHistory,
    delegates: account?.delegates,
    delegation: account?.delegation,
    signers: account?.signers,
    submitOrder: orders?.submitOrder,
    submitBatch: orders?.submitBatch,
    getOrder: orders?.getOrder,
    cancelOrder: orders?.cancelOrder,
    cancelBatch: orders?.cancelBatch,
    cancelAll: orders?.cancelAll,
    listOrders: orders?.listOrders,
    // The testnet faucet funds the logged-in account: it needs the login the account API brings.
    faucet: options.operator !== undefined && marketData.profile.faucet && guard !== undefined ? faucetRoute(options.operator.port, guard, clock) : undefined,
    deposit: operator?.deposit,
    withdraw: operator?.withdraw,
    indexPrice: operator?.indexPrice,
    indexPriceRelease: operator?.indexPriceRelease,
    snapshot: operator?.snapshot,
    stateHash: operator?.stateHash,
    health: health?.health,
    ready: health?.ready,
    metrics: options.operations === undefined ? undefined : metricsRoute(options.operations),
    cluster: options.cluster === undefined ? undefined : clusterRoute(options.cluster),
    openApi: open(docs.openApi),
    asyncApi: docs.asyncApi === undefined ? undefined : open(docs.asyncApi),
    docs: open(docs.docs),
    page: open(web.page),
    pageStyle: open(web.pageStyle),
    pageIcon: open(web.pageIcon),
    pageScript: open(web.pageScript),
  };
  const table = (Object.keys(ENDPOINT_BY_NAME) as EndpointName[]).flatMap((name) => {
    const r = served[name];
    if (r === undefined) return [];
    // A name serving another name's declaration would be served under the wrong path, and documented under the right one.
    if (r.endpoint !== ENDPOINT_BY_NAME[name]) throw new Error(`the route named ${name} serves the declaration of ${r.endpoint.method.toUpperCase()} ${r.endpoint.path}`);
    return [r];
  });
  const historyRead = options.historyRead;
  const read = historyRead === undefined ? table : table.map((r) => (r.endpoint.readsHistory === true ? afterHistory(r, historyRead) : r));
  const wrapped = options.cluster === undefined ? read : clusterRoutes(read, options.cluster);
  const starting = options.starting;
  return starting === undefined ? wrapped : wrapped.map((r) => (r.endpoint.answersWhileStarting === true ? r : { ...r, handler: (req: HttpRequest) => refusalWhileStarting(starting) ?? r.handler(req) }));
}

/** The route, run once history holds what the journal had flushed when the request came (read-your-writes). */
function afterHistory(r: DeclaredRoute, historyRead: HistoryRead): DeclaredRoute {
  const handler = r.handler;
  return {
    ...r,
    handler: (req) => {
      const wait = historyRead();
      return wait === null ? handler(req) : wait.then(() => handler(req));
    },
  };
}

/** While the exchange starts, the refusal a drain gives, naming the start's step; null once it serves. */
function refusalWhileStarting(starting: () => string | null): HttpReply | null {
  const step = starting();
  return step === null ? null : failure(GatewayCode.Overloaded, step);
}

/**
 * A path pattern as a RegExp, to tell 405 (known path) from 404. Exact, as uWebSockets.js
 * matches: a path with a trailing slash is not served, so it is unknown (404), not a 405.
 */
function patternRegExp(pattern: string): RegExp {
  return new RegExp('^' + pattern.replace(/:[^/]+/g, '[^/]+') + '$');
}

/** The text a refusal log line quotes: the reply's own, cut short (a field message can be long). */
const REASON_CHARS = 200;

/** Counts and logs every answer (see the module header); called once per request, so it allocates only to log. */
function replyObserver(table: readonly DeclaredRoute[], options: GatewayOptions): NonNullable<HttpServerOptions['onReply']> {
  const { metrics, logger } = options;
  const labels = [...table.map((r) => ({ method: r.method.toUpperCase(), pattern: r.pattern })), { method: 'ANY', pattern: 'unmatched' }];
  metrics?.observeRoutes(labels);
  const writes = labels.map((l) => l.method !== 'GET' && l.method !== 'ANY');
  const takesOrders = [...table.map((r) => r.submitsOrders === true), false];
  // A probe's 503 is its answer, asked every few seconds for as long as it holds (a long replay): what it reports is logged where it happens.
  const probes = [...table.map((r) => r.endpoint.probe === true), false];
  const accessLog = options.accessLog === true;
  return (index, req, reply, seconds) => {
    const status = reply.status;
    metrics?.request(index, status, seconds);
    if (status >= 400) {
      if (takesOrders[index]) metrics?.orderRefused(reply.code, status);
      // A 503 is the exchange refusing for its own sake (a stage behind, shutting down): the operator hears of each.
      if (status === 503 && !probes[index]) logger.warn({ method: req.method, route: labels[index].pattern, reason: reply.body.slice(0, REASON_CHARS), client: req.remoteAddress }, 'overloaded: answered 503');
      else if (writes[index] && logger.isLevelEnabled('debug')) {
        logger.debug({ method: req.method, route: labels[index].pattern, status, code: reply.code, reason: reply.body.slice(0, REASON_CHARS), client: req.remoteAddress }, 'write refused');
      }
    }
    if (accessLog) logger.info({ method: req.method, path: req.path, status, ms: Math.round(seconds * 1e6) / 1000, client: req.remoteAddress }, 'request');
  };
}

/** The exchange's listeners: the public one and, when `operatorPort` is set, the operator's. */
export interface Gateway extends HttpServer {
  /** The operator listener's port (on 127.0.0.1), or null when the operator API is on the public port. */
  readonly operatorPort: number | null;
  /**
   * Serves `markets` from now on: the route table built again as at the start, with them in the
   * place of `marketData.markets` (a replica that applied a markets record: new parameters, an
   * appended market's routes). Every other part of the options stays, and so does the table's
   * shape — which routes there are depends on the parts given, not on the markets. The request
   * budgets (the account guard's) start afresh with the new table: at most one more second's
   * budget, once per markets record.
   */
  serveMarkets(markets: readonly MarketSpec[]): void;
}

/** Routes that move to the operator listener when there is one: the operator API and the metrics. */
const forOperator = (route: DeclaredRoute): boolean => route.endpoint.operator === true || route.endpoint.operatorListener === true;
/** The operator listener's address: this machine only. */
export const OPERATOR_HOST = '127.0.0.1';

/**
 * What answers the requests of one listener, however they arrive: the routes it serves, the
 * fallback (404, 405, a CORS preflight), a handler's failure (500, logged), the drain's refusal,
 * the body bound, and the observer that counts and logs each answer. `startGateway` listens
 * over it; an in-process caller (test/harness/inject) answers a request with it, without a socket.
 */
export type Dispatch = Pick<HttpServerOptions, 'routes' | 'fallback' | 'onHandlerError' | 'onReply' | 'shuttingDown' | 'maxBodyBytes' | 'cors' | 'compress'>;

/** The gateway's answers: per listener, its dispatch over the one route table (counted under one set of metrics). */
export interface GatewayDispatch {
  /** The public listener's: every route, or, with an operator listener, every route but the operator's and /metrics. */
  readonly public: Dispatch;
  /** The operator listener's (`operatorPort` set): the operator API, /metrics and the probes; null without one. */
  readonly operator: Dispatch | null;
}

/** The route table (by default `routes`' over `options`) and what answers over it (see `Dispatch`); `boundUrl` as for `routes`. */
export function gatewayDispatch(options: GatewayOptions, boundUrl: () => string = () => localUrl(options.host, options.port), table: DeclaredRoute[] = routes(options, boundUrl)): GatewayDispatch {
  const observe = replyObserver(table, options);
  const all = table.map((_, index) => index);
  const cors = options.corsOrigins === undefined || options.corsOrigins.length === 0 ? undefined : new CorsPolicy(options.corsOrigins);
  const socketPath = options.sockets?.path;
  if (options.operatorPort === undefined) return { public: dispatchOf(options, table, observe, all, cors, socketPath), operator: null };
  // Probes answer on the operator listener too: a process manager on this machine may check either port.
  const operatorRoutes = all.filter((i) => forOperator(table[i]) || table[i].endpoint.probe === true);
  return {
    public: dispatchOf(options, table, observe, all.filter((i) => !forOperator(table[i])), cors, socketPath),
    operator: dispatchOf(options, table, observe, operatorRoutes, undefined, undefined),
  };
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { sockets, starting } = options;
  // A WebSocket upgrade during the start is refused like a request.
  if (sockets !== undefined && starting !== undefined) {
    const admit = (address: string) => {
      const refuse = refusalWhileStarting(starting);
      return refuse === null ? sockets.admit(address) : { refuse };
    };
    options = { ...options, sockets: { ...sockets, admit } };
  }
  let bound = localUrl(options.host, options.port);
  const boundUrl = () => bound;
  // The listeners call each route's handler through `table`, which `serveMarkets` builds again:
  // one call more per request, and the listeners, their sockets and their metrics stay as they are.
  let table = routes(options, boundUrl);
  const dispatch = gatewayDispatch(options, boundUrl, table.map((r, i) => ({ ...r, handler: (req: HttpRequest) => table[i].handler(req) })));
  const serveMarkets = (markets: readonly MarketSpec[]): void => {
    table = routes({ ...options, marketData: { ...options.marketData, markets } }, boundUrl);
  };
  const publicServer = await listen(options, dispatch.public, 'PORT', options.host, options.port, options.sockets);
  // Port 0 picks a free port: the API document names the one it got (no request arrives before this).
  bound = localUrl(options.host, publicServer.port);
  if (dispatch.operator === null) return { ...publicServer, operatorPort: null, serveMarkets };
  let operatorServer: HttpServer;
  try {
    operatorServer = await listen(options, dispatch.operator, 'OPERATOR_PORT', OPERATOR_HOST, options.operatorPort!, undefined);
  } catch (error) {
    publicServer.close();
    throw error;
  }
  return {
    port: publicServer.port,
    operatorPort: operatorServer.port,
    serveMarkets,
    // The feeds' WebSocket endpoint is on the public listener.
    publish: publicServer.publish,
    subscribers: publicServer.subscribers,
    socketCounts: publicServer.socketCounts,
    drain: async (graceMs) => (await Promise.all([publicServer.drain(graceMs), operatorServer.drain(graceMs)])).reduce((a, b) => a + b, 0),
    close: () => {
      publicServer.close();
      operatorServer.close();
    },
  };
}

/**
 * The dispatch of a listener serving the routes of `table` at `indices`, and the WebSocket
 * endpoint at `socketPath` if it has one: uWebSockets.js hands a GET there without an upgrade to
 * the fallback, which answers 426 (other methods 405, `Allow: GET, HEAD, OPTIONS`).
 */
function dispatchOf(
  options: GatewayOptions,
  table: readonly Route[],
  observe: NonNullable<HttpServerOptions['onReply']>,
  indices: readonly number[],
  cors: CorsPolicy | undefined,
  socketPath: string | undefined,
): Dispatch {
  const served = indices.map((i) => table[i]);
  // HEAD answers wherever GET does; OPTIONS (a CORS preflight) on every known path.
  const known = served.flatMap((r) => [r.method, ...(r.method === 'get' ? ['head'] : [])].map((method) => ({ method, path: patternRegExp(r.pattern) })));
  if (socketPath !== undefined) known.push(...['get', 'head'].map((method) => ({ method, path: patternRegExp(socketPath) })));
  return {
    // Counted under the route's index in the whole table; this listener's fallback under the table's.
    onReply: (index, req, reply, seconds) => observe(index === indices.length ? table.length : indices[index], req, reply, seconds),
    routes: served,
    cors,
    compress: true,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
    // A stopping exchange refuses like an overloaded one: nothing done, retry (elsewhere or after the restart).
    shuttingDown: failure(GatewayCode.Overloaded, 'shutting down'),
    fallback: (req: HttpRequest) => {
      if (req.path === socketPath && (req.method === 'get' || req.method === 'head')) {
        const reply = failure(GatewayCode.UpgradeRequired, socketPath);
        reply.headers = { upgrade: 'websocket' };
        return reply;
      }
      const found = known.filter((k) => k.path.test(req.path)).map((k) => k.method.toUpperCase());
      if (found.length === 0) return failure(GatewayCode.RouteNotFound, req.path);
      const allow = [...new Set(found), 'OPTIONS'].join(', ');
      if (req.method === 'options') {
        const preflight = cors?.preflight(req.origin, allow) ?? null;
        return { status: 204, body: '', headers: preflight === null ? { allow } : { allow, ...preflight } };
      }
      const reply = failure(GatewayCode.MethodNotAllowed, req.method.toUpperCase());
      reply.headers = { allow };
      return reply;
    },
    onHandlerError: (error, req) => {
      options.logger.error({ err: error, method: req.method, path: req.path }, 'handler failed');
      return failure(GatewayCode.Internal);
    },
  };
}

/** One listener answering with `dispatch`; a failure to listen names `setting`. */
async function listen(options: GatewayOptions, dispatch: Dispatch, setting: string, host: string, port: number, sockets: SocketEndpoint<any> | undefined): Promise<HttpServer> {
  try {
    return await startHttpServer({ ...dispatch, host, port, sockets, trustedProxies: new Set(options.trustedProxies ?? []) });
  } catch (error) {
    // The preflight (config/preflight) found the address free a moment before: another process took it since.
    throw new ConfigError(setting, port, `must be a free port on ${host} (${(error as Error).message})`);
  }
}
