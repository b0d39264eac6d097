/**
 * @module http/endpoint
 *
 * A route of the REST API declared once, as fastify declares one: method, path, the schemas of
 * its path and query parameters, body and response, the errors it may answer (status and exact
 * text), and — given by `route()` — the handler. The route table (gateway), the strict query
 * parser's accepted names (http/query), the request validators and response serializers (built
 * from the same schema objects), the OpenAPI document and the reference page (routes/openapi) all
 * read this one declaration: a route cannot be served without one, and nothing about it is typed
 * twice. A route's errors name the gateway's code table where there is one (endpoint-errors).
 * May import: http/query, http/uws (types).
 */
import { param, type QueryParam } from './query.ts';
import type { Handler, Route } from './uws.ts';

type Schema = Readonly<Record<string, unknown>>;
/** `[status, text]`; a `<name>` in a text stands for the value sent or the limit that applies. */
export type DocumentedError = readonly [number, string];

export type EndpointTag = 'Market data' | 'Login' | 'Account' | 'Orders' | 'Transfers' | 'Delegation' | 'Testnet' | 'Operator' | 'Operations' | 'Reference';

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
  /** The operator API: `X-Operator-Key` instead of a token. */
  operator?: boolean;
  pathParams?: readonly QueryParam[];
  /** What `strictQuery` accepts, each at most once (arrays repeated or comma-separated). */
  query?: readonly QueryParam[];
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
}

/** A route with its declaration: what the gateway serves and the document describes. */
export interface DeclaredRoute extends Route {
  readonly endpoint: Endpoint;
}

/** The route that answers `endpoint` with `handler`. */
export function route(endpoint: Endpoint, handler: Handler): DeclaredRoute {
  return {
    method: endpoint.method,
    pattern: endpoint.path.replace(/\{(\w+)\}/g, ':$1'),
    handler,
    endpoint,
    ...(endpoint.submitsOrders === true ? { submitsOrders: true } : {}),
  };
}

/** The market in the path of /book/{symbol}, /candles/{symbol} and /trades/{symbol}. */
export const SYMBOL_PATH: readonly QueryParam[] = [param('symbol', { type: 'string' }, 'market: `BASE-QUOTE-PERP` or a bare base such as `BTC`', true)];
