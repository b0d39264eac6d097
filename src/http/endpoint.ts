/**
 * @module http/endpoint
 *
 * A route of the REST API declared once, as fastify declares one: method, path, the schemas of
 * its path and query parameters, body and response, the errors it may answer (status and exact
 * text), and — given by `route()` — the handler. The route table (gateway), the strict query
 * parser (http/query), the body parser and the response serializer (`route()` compiles them from
 * the declared schemas), the OpenAPI document and the reference page (routes/openapi) all read
 * this one declaration: a route cannot be served without one, and nothing about it is typed twice.
 * A route's errors name their producers' texts (endpoint-errors).
 *
 * `route()` is the one way a route is served, and the one place a route's schemas are compiled:
 * it reads the request's query against the declared parameters, then the body against the
 * declared `body` schema (ajv, http/validation), before the handler runs, and hands the handler
 * the parsed query, the parsed body and the serializer of the declared `response` schema
 * (fast-json-stringify, http/serializer). No handler reads a query string or a body, or compiles
 * a schema of its own: what it answers on success is what its declaration documents (a success
 * body written otherwise — a cache of serialized bodies, HTML, Prometheus text — says why where
 * it is written). What must
 * be refused before the query is read — the bearer token and the account's budget
 * (http/auth-guard), the operator key (http/operator-key), an unknown market in the path
 * (`marketInPath`) — is the route's `Door`.
 * May import: config/market, http/errors, http/query, http/serializer, http/validation, http/uws (types), auth/codes (types).
 */
import { findMarket, type MarketSpec } from '../config/market.ts';
import { failure, GatewayCode, type DocumentedError } from './errors.ts';
import type { AuthCode } from '../auth/codes.ts';
import { ignoredQuery, isReply, param, strictQuery, type Query, type QueryParam } from './query.ts';
import { serializer, type Serializer } from './serializer.ts';
import { bodyParser } from './validation.ts';
import type { HttpReply, HttpRequest, Route } from './uws.ts';

export type { DocumentedError } from './errors.ts';
export type { Serializer } from './serializer.ts';

type Schema = Readonly<Record<string, unknown>>;

declare const describes: unique symbol;
/**
 * A body schema and the type of the value it accepts, stated once on the declaration
 * (`Endpoint<OrderBody>`): `route()` hands the handler the body its parser answered, of that type.
 */
export type BodySchema<B> = Schema & { readonly [describes]?: B };

/** The document's sections, in its order. */
export const ENDPOINT_TAGS = ['Market data', 'Login', 'Account', 'Transfers', 'Delegation', 'Orders', 'Testnet', 'Operator', 'Operations', 'Reference'] as const;
export type EndpointTag = (typeof ENDPOINT_TAGS)[number];

/** `B`: the type of the parsed body (`body` declared), `unknown` for a route without one. */
export interface Endpoint<B = unknown> {
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
  /** The request body's schema: `route()` refuses a body it does not accept before the handler runs. */
  body?: BodySchema<B>;
  /** Success schema, whose serializer `route()` hands the handler; `null` for a plain `null` body. */
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
  /**
   * The one refusal the spec names for this route for every caller refused the subaccount (GET
   * /account/stats, /positions, /fills: `Delegation not allowed for request`), where the guard's
   * rule tells a stranger from a delegate without the scope (http/auth-guard, docs/auth.md).
   */
  accessRefused?: AuthCode;
}

/** A route with its declaration: what the gateway serves and the document describes. */
export interface DeclaredRoute extends Route {
  readonly endpoint: Endpoint;
}

type Reply = HttpReply | Promise<HttpReply>;

/**
 * What stands before a route's query is read: it answers itself (a refusal), or calls `next`
 * with what it found — the caller a token names, the market a path names — and may add to the
 * answer (the budget's headers). Made once per route; a door that is synchronous keeps the
 * route synchronous (the market in a path, the operator key), the account guard's is not (the
 * token's check is async, and it adds the budget's headers to a copy of the answer).
 */
export type Door<T> = (req: HttpRequest, next: (req: HttpRequest, found: T) => Reply) => Reply;

/**
 * What a route's handler is given: the request, the query as the declaration reads it, the
 * serializer of the declared response (its success body), what the door found, and the body the
 * declared schema accepted (`undefined` when the route declares none). Positional, not an object:
 * nothing is allocated per request (GET /book is the hot public read).
 */
export type Handler<B, T> = (req: HttpRequest, query: Query, serialize: Serializer, found: T, body: B) => Reply;

/** The route that answers `endpoint` with `handler`. */
export function route<B>(endpoint: Endpoint<B>, handler: Handler<B, undefined>): DeclaredRoute;
/** The same, behind `door`: the handler is also given what the door found. */
export function route<B, T>(endpoint: Endpoint<B>, handler: Handler<B, T>, door: Door<T>): DeclaredRoute;
export function route<B, T>(endpoint: Endpoint<B>, handler: Handler<B, T | undefined>, door?: Door<T>): DeclaredRoute {
  const read = endpoint.ignoresQuery === true ? ignoredQuery : strictQuery(endpoint.query ?? []);
  // Compiled from the declaration, once per route (on first use: http/serializer, http/validation).
  const serialize = serializer(endpoint.response);
  const parse = endpoint.body === undefined ? undefined : bodyParser<B>(endpoint.body);
  // The order of refusals: the door, the query, the body, then whatever the handler checks.
  const answer = (req: HttpRequest, found: T | undefined): Reply => {
    const query = read(req.query);
    if (isReply(query)) return query;
    if (parse === undefined) return handler(req, query, serialize, found, undefined as B);
    const body = parse(req.body);
    return body.ok ? handler(req, query, serialize, found, body.value) : body.reply;
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
