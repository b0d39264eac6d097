/**
 * @module http/endpoint
 *
 * A route of the REST API declared once, as fastify declares one: method, path, the schemas of
 * its path and query parameters, body and response, the errors it may answer (status and exact
 * text), and — given by `route()` — the handler. The route table (gateway), the strict query
 * parser (http/query), the request validators and response serializers (built from the same
 * schema objects), the OpenAPI document and the reference page (routes/openapi) all read this
 * one declaration: a route cannot be served without one, and nothing about it is typed twice.
 * A route's errors name their producers' texts (endpoint-errors).
 *
 * `route()` is the one way a route is served: it reads the request's query against the declared
 * parameters before the handler runs, and hands the handler the parsed query, so no handler
 * reads a query string itself. What must be refused before the query is read — the bearer token
 * and the account's budget (http/auth-guard), the operator key (http/operator-key), an unknown
 * market in the path (`marketInPath`) — is the route's `Door`.
 * May import: config/market, http/errors, http/query, http/uws (types).
 */
import { findMarket, type MarketSpec } from '../config/market.ts';
import { failure, GatewayCode, type DocumentedError } from './errors.ts';
import { ignoredQuery, isReply, param, strictQuery, type Query, type QueryParam } from './query.ts';
import type { HttpReply, HttpRequest, Route } from './uws.ts';

export type { DocumentedError } from './errors.ts';

type Schema = Readonly<Record<string, unknown>>;

/** The document's sections, in its order. */
export const ENDPOINT_TAGS = ['Market data', 'Login', 'Account', 'Transfers', 'Delegation', 'Orders', 'Testnet', 'Operator', 'Operations', 'Reference'] as const;
export type EndpointTag = (typeof ENDPOINT_TAGS)[number];

export interface Endpoint {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI form: `/book/{symbol}` (the route's uWebSockets.js pattern is derived: `/book/:symbol`). */
  path: string;
  tag: EndpointTag;
  summary: string;
  description: string;
  /** Bearer token and per-account budget (every /account/* route). */
  auth: boolean;
  /** A signed write: EIP-712 signature, nonce and expiry errors apply. */
  signed?: boolean;
  /** The operator API: `X-Operator-Key` instead of a token; served by the operator listener when there is one. */
  operator?: boolean;
  pathParams?: readonly QueryParam[];
  /** What the strict query parser accepts, each at most once (arrays repeated or comma-separated); none when absent. */
  query?: readonly QueryParam[];
  /**
   * A query string is ignored, not refused (docs/api.md "Queries are strict"): the probes and
   * /metrics — a load balancer's or a scraper's configured parameters must not turn a healthy
   * process into a failing target — and the web page, its files and /docs, which a browser
   * loads with a cache-buster (`?v=2`) or a shared link's tracking parameters.
   */
  ignoresQuery?: boolean;
  body?: Schema;
  /** Success schema; `null` for a plain `null` body. */
  response: Schema;
  contentType?: 'application/json' | 'text/html' | 'text/plain';
  errors: readonly DocumentedError[];
  /** Order entry: its refusals are counted by reason (metrics). */
  submitsOrders?: boolean;
  /**
   * Reads history (or may, for an order no longer in memory): it waits until history holds what
   * the journal had flushed when the request arrived (gateway `historyRead`), so a write that was
   * acknowledged shows in it — replies to writes wait for the journal only.
   */
  readsHistory?: boolean;
  /** A history listing paged by `cursor`: a full page answers `X-Next-Cursor` (http/cursor). */
  pages?: boolean;
  /** Served but not an API operation (the page's script and style): left out of the document. */
  hidden?: boolean;
  /**
   * A process manager's or load balancer's probe (/health, /ready): served by the operator
   * listener too, and its 503 is the answer it is asked for, not an overload to log.
   */
  probe?: boolean;
  /** Answered while the exchange starts (the journal replay), when every other route is refused 503: it reaches nothing the replay holds. */
  answersWhileStarting?: boolean;
  /** Served by the operator listener only, when there is one, like the operator API (/metrics). */
  operatorListener?: boolean;
}

/** A route with its declaration: what the gateway serves and the document describes. */
export interface DeclaredRoute extends Route {
  readonly endpoint: Endpoint;
}

type Reply = HttpReply | Promise<HttpReply>;

/**
 * What stands before a route's query is read: it answers itself (a refusal), or calls `next`
 * with what it found — the caller a token names, the market a path names — and may add to the
 * answer (the budget's headers). Made once per route: nothing is allocated per request.
 */
export type Door<T> = (req: HttpRequest, next: (req: HttpRequest, found: T) => Reply) => Reply;

/** The route that answers `endpoint` with `handler`, given the query as the declaration reads it. */
export function route(endpoint: Endpoint, handler: (req: HttpRequest, query: Query) => Reply): DeclaredRoute;
/** The same, behind `door`: the handler is also given what the door found. */
export function route<T>(endpoint: Endpoint, handler: (req: HttpRequest, query: Query, found: T) => Reply, door: Door<T>): DeclaredRoute;
export function route<T>(endpoint: Endpoint, handler: (req: HttpRequest, query: Query, found: T | undefined) => Reply, door?: Door<T>): DeclaredRoute {
  const read = endpoint.ignoresQuery === true ? ignoredQuery : strictQuery(endpoint.query ?? []);
  const answer = (req: HttpRequest, found: T | undefined): Reply => {
    const query = read(req.query);
    return isReply(query) ? query : handler(req, query, found);
  };
  return {
    method: endpoint.method,
    pattern: endpoint.path.replace(/\{(\w+)\}/g, ':$1'),
    handler: door === undefined ? (req) => answer(req, undefined) : (req) => door(req, answer),
    endpoint,
    ...(endpoint.submitsOrders === true ? { submitsOrders: true } : {}),
  };
}

/** The market in the path of /book/{symbol}, /candles/{symbol} and /trades/{symbol}. */
export const SYMBOL_PATH: readonly QueryParam[] = [param('symbol', { type: 'string' }, 'market: `BASE-QUOTE-PERP` or a bare base such as `BTC`', true)];

/**
 * The door of a route with the market in its path: an unknown market is named first, whatever
 * the query holds (`unknown`: `Symbol not found`, or `Market <symbol> not found`).
 */
export function marketInPath(markets: readonly MarketSpec[], unknown: typeof GatewayCode.SymbolNotFound | typeof GatewayCode.MarketNotFound): Door<MarketSpec> {
  return (req, next) => {
    const market = findMarket(markets, req.params[0]);
    return market === undefined ? failure(unknown, req.params[0]) : next(req, market);
  };
}
