/**
 * @module http/uws-types
 *
 * The adapter's contract (http/uws): what a handler sees (`HttpRequest` → `HttpReply`), the
 * routes, the WebSocket endpoint and connection the feeds see, the server's options and the
 * running server. Types only: nothing here touches uWebSockets.js.
 * May import: http/compression (types), http/cors (types).
 */
import type { Encoding } from './compression.ts';
import type { CorsPolicy } from './cors.ts';

export type Method = 'get' | 'post' | 'delete' | 'put' | 'patch' | 'head' | 'options';

/** What a handler sees: a plain copy of the request. */
export interface HttpRequest {
  method: string;
  path: string;
  /** Raw query string (after '?'), undecoded. */
  query: string;
  /** Route parameters in pattern order (`/book/:symbol` → [symbol]). */
  params: string[];
  authorization: string;
  /** `X-Operator-Key`, for the operator API. */
  operatorKey: string;
  /** `Origin` (browsers), for CORS; empty when absent or when the server has no CORS policy. */
  origin: string;
  /** `Accept-Encoding`, for compression; empty when absent or when the server does not compress. */
  acceptEncoding: string;
  /** The client's address: the socket peer, or the client a trusted proxy forwarded for. */
  remoteAddress: string;
  /** The body as UTF-8 text (invalid sequences read as U+FFFD), or null when none came. */
  body: string | null;
}

export interface HttpReply {
  status: number;
  /** JSON text for `application/json`, or a plain-text message. */
  body: string;
  /** Default: JSON below 400, plain text from 400. */
  contentType?: string;
  headers?: Record<string, string>;
  /** The refusal's code (http/errors `failure`), for the refusal log and metrics; never sent. */
  code?: number;
  /** The body compressed for this request (set here, by the adapter): sent instead of `body`. */
  encoded?: { encoding: Encoding; bytes: Buffer };
}

export type Handler = (req: HttpRequest) => HttpReply | Promise<HttpReply>;

export interface Route {
  method: Method;
  /** uWebSockets.js pattern, e.g. `/book/:symbol`. */
  pattern: string;
  handler: Handler;
  /** Order entry (POST /account/order, /account/orders): its refusals are counted by reason. */
  submitsOrders?: boolean;
}

/** A WebSocket connection as the feeds see it; every call after it closed is a no-op. */
export interface SocketConnection<T> {
  readonly state: T;
  /** The client's address (as for HTTP requests: a trusted proxy's forwarded client). */
  readonly remoteAddress: string;
  readonly closed: boolean;
  /** Sends a text message; false when it waits behind others (backpressure) or the socket is closed. */
  send(text: string): boolean;
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
  /** Bytes written and not yet taken by the client. */
  bufferedAmount(): number;
  /** Closes with a code and a reason the client reads. */
  close(code: number, reason: string): void;
}

export interface SocketEndpoint<T> {
  path: string;
  /** At the upgrade: the new connection's state, or the HTTP reply that refuses it. */
  admit(remoteAddress: string): { state: T } | { refuse: HttpReply };
  open(conn: SocketConnection<T>): void;
  message(conn: SocketConnection<T>, text: string): void;
  close(conn: SocketConnection<T>, code: number, reason: string): void;
  maxPayloadBytes: number;
  /** A connection with no traffic for this long is closed; uWS pings it before then. */
  idleTimeoutSeconds: number;
  /** Above this uWS would drop messages: the socket is closed instead (set it above the feeds' own limit). */
  maxBackpressureBytes: number;
}

export interface HttpServerOptions {
  host: string;
  port: number;
  routes: Route[];
  /** Called for any path or method no route matches. */
  fallback: Handler;
  /** Called when a handler throws or rejects: a broken invariant, answered 500. */
  onHandlerError: (error: unknown, req: HttpRequest) => HttpReply;
  maxBodyBytes: number;
  /** Proxies whose `X-Forwarded-For` is believed (normalized IP addresses); default none. */
  trustedProxies?: ReadonlySet<string>;
  /** The answer to every request that starts during a drain (a 503 with `Retry-After`). */
  shuttingDown: HttpReply;
  /**
   * Called once per answer written: the route's index in `routes` (`routes.length` for the
   * fallback), the request, the reply and the seconds since the request arrived.
   */
  onReply?: (route: number, req: HttpRequest, reply: HttpReply, seconds: number) => void;
  /** Cross-origin access for the origins it allows; none without it. */
  cors?: CorsPolicy;
  /** Compress large GET bodies for clients that ask (http/compression). */
  compress?: boolean;
  /** A WebSocket endpoint on the same port. */
  sockets?: SocketEndpoint<any>;
}

export interface HttpServer {
  readonly port: number;
  /**
   * Stops accepting connections, answers new requests with `shuttingDown`, waits at most
   * `graceMs` for the requests already started, then closes every connection. Resolves with the
   * number of requests still unfinished when the grace ran out (0 normally).
   */
  drain(graceMs: number): Promise<number>;
  /** Closes the listener and every connection now; unanswered requests are aborted. */
  close(): void;
  /** Sends `text` to every socket subscribed to `topic` (one string, written to each). */
  publish(topic: string, text: string): void;
  /** Sockets subscribed to `topic`. */
  subscribers(topic: string): number;
  /** WebSocket figures for the metrics: connections open, messages received, sent to one socket, published to a topic. */
  socketCounts(): SocketCounts;
}

export interface SocketCounts {
  open: number;
  received: number;
  sent: number;
  published: number;
}
