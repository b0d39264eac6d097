/**
 * @module http/uws
 *
 * The one module that serves with uWebSockets.js (loaded by http/uws-native, which picks the
 * build). Everything else sees `HttpRequest` → `HttpReply` handlers.
 *
 * uWebSockets.js rules honoured here (its own examples): everything needed from `req` is copied
 * at once, because `req` is only valid inside the callback; every response registers
 * `onAborted` before it goes asynchronous; every asynchronous reply is written inside
 * `res.cork`; a body larger than `maxBodyBytes` is refused with 413 without buffering it.
 *
 * Pipelining (requests written before the previous answer arrived). uWS answers pipelined
 * requests in order only while each is answered inside its own callback; when it parses a
 * request while an earlier one on the connection is still unanswered, it closes the connection
 * (uWebSockets HttpContext.h: "denying async pipelining") and the earlier one is aborted. Writes
 * are answered asynchronously (after the journal's flush), so two rules keep "every request is
 * answered in order, or it took no effect" true:
 *  - a request with a body runs only after uWS has parsed the rest of the bytes it read with it
 *    (the handler is deferred to the end of the event-loop turn, `setImmediate`): if a later
 *    request was among them, uWS has closed the connection by then, and the aborted request is
 *    never run;
 *  - while a request is unanswered its connection is not read (`res.pause()` until the reply is
 *    written), so a request that arrives later waits in the kernel and cannot close the
 *    connection under a request that is already running.
 * So a pipelined request is answered when it is the last of what one read brought; a read that
 * brings several unanswered requests closes the connection with none of them applied, and the
 * client sends them again (RFC 9112 §9.3.2). Requests answered inside their callback (reads that
 * need no other thread, refusals) are answered in order however many a read brings.
 *
 * Around every answer: `onReply` (metrics and logs) once it is written; HEAD on every GET
 * route (the GET's headers and length, no body); the origin's CORS headers (`cors`); a large
 * GET body compressed as `Accept-Encoding` asks (`compress`, http/compression), which makes
 * that answer asynchronous like a write's. A WebSocket upgrade refused is written plainly.
 *
 * Drain (`drain`): the listener closes; every request that starts from then on is answered with
 * the `shuttingDown` reply and `Connection: close`, every answer still due closes its connection,
 * and the drain resolves once every request that started before has been answered (or its client
 * went away) and its handler has finished — so what a handler started (a journaled write) is done
 * before the pipeline behind it closes — and no request has come for `DRAIN_QUIET_MS` (one that
 * was already in a socket's buffer is read and answered). Then the remaining (idle) connections
 * are closed.
 * WebSockets (`sockets`): one endpoint on the same app and port, for the streaming feeds. The
 * upgrade is decided at once (`admit`, from the client's address); a connection is seen as a
 * `SocketConnection` (send, subscribe to a topic, buffered amount, close with a reason), and
 * `publish` serializes nothing: uWS writes the one string to every subscriber of the topic.
 * uWS drops a published message for a socket over `maxBackpressure`; the endpoint sets it far
 * above the slow-consumer limit the feeds enforce themselves (with a reason), and closes such a
 * socket instead of dropping (`closeOnBackpressureLimit`), so no subscriber ever sees a gap. A
 * drain closes every socket with 1001 and the `shuttingDown` text.
 * May import: @btc-vision/uwebsockets.js (types), http/uws-native, http/client-address,
 * http/compression, http/cors, config/ip-address; nothing from the cores.
 */
import type * as Uws from '@btc-vision/uwebsockets.js';
import { uwsNative } from './uws-native.ts';
import { clientAddress } from './client-address.ts';
import { COMPRESS_MIN_BYTES, compressBody, negotiateEncoding, type Encoding } from './compression.ts';
import type { CorsPolicy } from './cors.ts';
import { canonicalIp } from '../config/ip-address.ts';

/**
 * `ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT` (a type-only enum in the typings): listen without
 * SO_REUSEPORT. By default uSockets sets it, and the kernel then splits new connections between
 * every process listening on the port — a second server started by mistake would silently take
 * a share of the clients. SO_REUSEADDR stays set either way: a restart listens at once while the
 * old process's connections wait in TIME_WAIT.
 */
const LISTEN_EXCLUSIVE_PORT = 1;
/** `listen(host, port, options, cb)`: the build takes it, its typings list only `listen(port, options, cb)`. */
type ListenWithOptions = (host: string, port: number, options: number, cb: (socket: Uws.us_listen_socket | false) => void) => unknown;

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
  contentType: string;
  /** `Origin` (browsers), for CORS; empty when absent. */
  origin: string;
  /** `Accept-Encoding`, for compression; empty when absent. */
  acceptEncoding: string;
  /** The client's address: the socket peer, or the client a trusted proxy forwarded for. */
  remoteAddress: string;
  body: Buffer | null;
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

const STATUS_LINE: Record<number, string> = {
  200: '200 OK', 204: '204 No Content', 400: '400 Bad Request', 401: '401 Unauthorized',
  403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed', 409: '409 Conflict',
  413: '413 Payload Too Large', 415: '415 Unsupported Media Type', 421: '421 Misdirected Request', 429: '429 Too Many Requests',
  500: '500 Internal Server Error', 503: '503 Service Unavailable',
};

function statusLine(status: number): string {
  return STATUS_LINE[status] ?? `${status} Status`;
}

/** A successful GET (or HEAD) answer large enough to be sent compressed to a client that asks. */
function compressible(request: HttpRequest, reply: HttpReply): boolean {
  return reply.status === 200 && (request.method === 'get' || request.method === 'head') && reply.body.length >= COMPRESS_MIN_BYTES;
}

/**
 * Writes the reply; `closeConnection` adds `Connection: close` and closes once it is sent. With
 * the request: its origin's CORS headers, and for HEAD the headers only (the length the body
 * would have). `request` is null for a drain's refusal written before the request was read.
 */
function write(res: Uws.HttpResponse, reply: HttpReply, closeConnection: boolean, request: HttpRequest | null = null, options: Pick<HttpServerOptions, 'cors' | 'compress'> = {}): void {
  res.writeStatus(statusLine(reply.status));
  // A 204 has no content, so no content type.
  if (reply.status !== 204) res.writeHeader('content-type', reply.contentType ?? (reply.status < 400 ? 'application/json' : 'text/plain; charset=utf-8'));
  if (reply.headers) for (const key in reply.headers) res.writeHeader(key, reply.headers[key]);
  if (request === null) {
    res.end(reply.body, closeConnection);
    return;
  }
  const cors = request.origin === '' ? null : (options.cors?.headers(request.origin) ?? null);
  if (cors !== null) for (const key in cors) res.writeHeader(key, cors[key]);
  if (options.compress && compressible(request, reply)) res.writeHeader('vary', 'Accept-Encoding');
  const body = reply.encoded === undefined ? reply.body : reply.encoded.bytes;
  if (reply.encoded !== undefined) res.writeHeader('content-encoding', reply.encoded.encoding);
  if (request.method === 'head') {
    // This build's endWithoutBody takes no arguments (given a length it leaves the response
    // unfinished, and the connection's next request is refused as async pipelining): the length
    // is a plain header, and a drain's close is asked of the client (the drain closes it after).
    res.writeHeader('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.length));
    if (closeConnection) res.writeHeader('connection', 'close');
    res.endWithoutBody();
  } else res.end(body, closeConnection);
}

/** The reply with its body compressed as the client asked, when it is worth it; else the reply itself. */
function encoded(request: HttpRequest, reply: HttpReply): HttpReply | Promise<HttpReply> {
  if (!compressible(request, reply)) return reply;
  const encoding = negotiateEncoding(request.acceptEncoding);
  if (encoding === null) return reply;
  return compressBody(reply.body, encoding).then((bytes) => ({ ...reply, encoded: { encoding, bytes } }));
}

/**
 * Runs what was queued at the end of the event-loop turn, after uWS has parsed everything the
 * turn's reads brought (see "Pipelining" above). One queue and one `setImmediate` per turn.
 */
const afterReads: Array<() => void> = [];
function runAfterReads(): void {
  // Entries queued while these run (none expected: they come from uWS callbacks) wait for the next turn.
  const due = afterReads.splice(0, afterReads.length);
  for (const run of due) run();
}
function deferToEndOfTurn(run: () => void): void {
  if (afterReads.push(run) === 1) setImmediate(runAfterReads);
}

/**
 * A drain ends once no request has started or finished for this long: requests that reached a
 * connection's buffer before the drain are read (and answered 503) before the connection closes.
 */
const DRAIN_QUIET_MS = 100;

const NEEDS_BODY = new Set(['post', 'put', 'patch', 'delete']);

/**
 * A path parameter, percent-decoded; a malformed escape (`%`, `%ZZ`, a broken UTF-8 sequence)
 * is kept as written, so the route answers it like any unknown name instead of throwing
 * inside the server's callback.
 */
function decodeParameter(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const { uws } = uwsNative();
  const app = uws.App();
  const trusted = options.trustedProxies ?? new Set<string>();
  /** Requests started and not yet finished: unanswered, or answered while their handler still runs. */
  let unfinished = 0;
  let draining = false;
  /** During a drain: called whenever a request starts or finishes. */
  let onDrainActivity: (() => void) | null = null;

  const onReply = options.onReply;
  const serve = (res: Uws.HttpResponse, req: Uws.HttpRequest, handler: Handler, paramCount: number, routeIndex: number): void => {
    const arrived = performance.now();
    if (draining) {
      write(res, options.shuttingDown, true, null, options);
      onDrainActivity?.();
      return;
    }
    // req is only valid in this callback: copy everything now.
    const params: string[] = [];
    for (let i = 0; i < paramCount; i++) params.push(decodeParameter(req.getParameter(i) ?? ''));
    const peer = Buffer.from(res.getRemoteAddressAsText()).toString();
    const request: HttpRequest = {
      method: req.getMethod(),
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      params,
      authorization: req.getHeader('authorization'),
      operatorKey: req.getHeader('x-operator-key'),
      contentType: req.getHeader('content-type'),
      origin: req.getHeader('origin'),
      acceptEncoding: req.getHeader('accept-encoding'),
      remoteAddress: trusted.size === 0 ? peer : clientAddress(canonicalIp(peer) ?? peer, req.getHeader('x-forwarded-for'), trusted),
      body: null,
    };
    const declaredLength = Number(req.getHeader('content-length') || '0');
    unfinished++;
    let aborted = false;
    let running = false;
    let paused = false;
    let finished = false;
    const release = (): void => {
      if (finished) return;
      finished = true;
      unfinished--;
      onDrainActivity?.();
    };
    res.onAborted(() => {
      aborted = true;
      // A handler already running finishes its work (a write it started is completed) first.
      if (!running) release();
    });

    const finish = (reply: HttpReply): void => {
      running = false;
      if (!aborted) {
        res.cork(() => {
          if (paused) res.resume();
          write(res, reply, draining, request, options);
        });
        onReply?.(routeIndex, request, reply, (performance.now() - arrived) / 1000);
      }
      release();
    };
    const run = (): void => {
      if (aborted) return;
      if (draining) {
        finish(options.shuttingDown);
        return;
      }
      running = true;
      let result: HttpReply | Promise<HttpReply>;
      try {
        result = handler(request);
      } catch (error) {
        finish(options.onHandlerError(error, request));
        return;
      }
      // Reads only: a write's answer is small, and its promise gets no extra step.
      if (options.compress && request.acceptEncoding !== '' && (request.method === 'get' || request.method === 'head')) {
        result = result instanceof Promise ? result.then((reply) => encoded(request, reply)) : encoded(request, result);
      }
      if (result instanceof Promise) {
        // Nothing more is read from this connection until the answer is written.
        if (!paused) {
          paused = true;
          res.pause();
        }
        result.then(finish, (error) => finish(options.onHandlerError(error, request)));
      } else finish(result);
    };

    // A body comes with every write, and may come with a read: one a read carries is read (and
    // dropped) before the answer, since a server that closes a connection (`Connection: close`)
    // with bytes of it unread resets it, and the client loses the answer with the reset.
    if (!NEEDS_BODY.has(request.method) && declaredLength === 0 && req.getHeader('transfer-encoding') === '') {
      run();
      return;
    }
    if (declaredLength > options.maxBodyBytes) {
      finish({ status: 413, body: `Request body too large: at most ${options.maxBodyBytes} bytes` });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    res.onData((chunk, isLast) => {
      if (refused) return;
      size += chunk.byteLength;
      if (size > options.maxBodyBytes) {
        refused = true;
        finish({ status: 413, body: `Request body too large: at most ${options.maxBodyBytes} bytes` });
        return;
      }
      // uWS neuters the ArrayBuffer after this callback returns: copy it.
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) {
        request.body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        // A write: stop reading, and run it only once uWS has parsed what came with it.
        paused = true;
        res.pause();
        deferToEndOfTurn(run);
      }
    });
  };

  const sockets = new Set<SocketConnection<unknown>>();
  // Plain numbers: counted per message, read when the metrics are scraped.
  const counts: SocketCounts = { open: 0, received: 0, sent: 0, published: 0 };
  if (options.sockets !== undefined) openSockets(app, options.sockets, trusted, sockets, counts);
  const closeSockets = (): void => {
    for (const conn of [...sockets]) conn.close(1001, options.shuttingDown.body);
  };

  options.routes.forEach((route, index) => {
    const paramCount = (route.pattern.match(/\/:/g) ?? []).length;
    const register = app[route.method === 'delete' ? 'del' : route.method].bind(app) as (
      pattern: string,
      h: (res: Uws.HttpResponse, req: Uws.HttpRequest) => void,
    ) => unknown;
    register(route.pattern, (res, req) => serve(res, req, route.handler, paramCount, index));
    // HEAD is GET without the body (RFC 9110 §9.3.2): the same handler, written headers only.
    if (route.method === 'get') app.head(route.pattern, (res, req) => serve(res, req, route.handler, paramCount, index));
  });
  const fallbackIndex = options.routes.length;
  app.any('/*', (res, req) => serve(res, req, options.fallback, 0, fallbackIndex));

  return new Promise((resolve, reject) => {
    (app as unknown as { listen: ListenWithOptions }).listen(options.host, options.port, LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (!socket) {
        reject(new Error(`Cannot listen on ${options.host}:${options.port}`));
        return;
      }
      let listening = true;
      const stopListening = (): void => {
        if (listening) uws.us_listen_socket_close(socket);
        listening = false;
      };
      resolve({
        port: uws.us_socket_local_port(socket as unknown as Uws.us_socket),
        publish: (topic, text) => {
          counts.published++;
          app.publish(topic, text, false, false);
        },
        subscribers: (topic) => app.numSubscribers(topic),
        socketCounts: () => ({ ...counts, open: sockets.size }),
        drain: (graceMs) => {
          draining = true;
          stopListening();
          closeSockets();
          return new Promise<number>((resolveDrain) => {
            let quiet: NodeJS.Timeout | undefined;
            const done = (): void => {
              clearTimeout(grace);
              clearTimeout(quiet);
              onDrainActivity = null;
              app.close();
              resolveDrain(unfinished);
            };
            const grace = setTimeout(done, graceMs);
            // Done once nothing is unfinished and the connections have been quiet for a while:
            // a request already in a socket's buffer is read, and answered, before its connection closes.
            onDrainActivity = () => {
              clearTimeout(quiet);
              if (unfinished === 0) quiet = setTimeout(done, DRAIN_QUIET_MS);
            };
            onDrainActivity();
          });
        },
        close: () => {
          stopListening();
          closeSockets();
          app.close();
        },
      });
    });
  });
}

/** What uWS keeps per socket: the connection the feeds see. */
interface SocketData {
  conn: SocketConnection<unknown> | null;
  /** Closed (by either side): no call reaches uWS any more. */
  gone: boolean;
  state: unknown;
  remoteAddress: string;
}

/** Registers the WebSocket endpoint; `open` holds every open connection (a drain closes them). */
function openSockets(app: Uws.TemplatedApp, endpoint: SocketEndpoint<unknown>, trusted: ReadonlySet<string>, open: Set<SocketConnection<unknown>>, counts: SocketCounts): void {
  const decoder = new TextDecoder();
  app.ws<SocketData>(endpoint.path, {
    maxPayloadLength: endpoint.maxPayloadBytes,
    idleTimeout: endpoint.idleTimeoutSeconds,
    sendPingsAutomatically: true,
    maxBackpressure: endpoint.maxBackpressureBytes,
    closeOnBackpressureLimit: true,
    upgrade: (res, req, context) => {
      // req is only valid in this callback: copy everything now.
      const peer = Buffer.from(res.getRemoteAddressAsText()).toString();
      const remoteAddress = trusted.size === 0 ? peer : clientAddress(canonicalIp(peer) ?? peer, req.getHeader('x-forwarded-for'), trusted);
      const admitted = endpoint.admit(remoteAddress);
      if ('refuse' in admitted) {
        write(res, admitted.refuse, true);
        return;
      }
      const data: SocketData = { conn: null, gone: false, state: admitted.state, remoteAddress };
      res.upgrade(data, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
    },
    open: (ws) => {
      const data = ws.getUserData();
      // uWS throws on any call to a socket after its close: `gone` guards every call.
      const conn: SocketConnection<unknown> = {
        state: data.state,
        remoteAddress: data.remoteAddress,
        get closed() {
          return data.gone;
        },
        send: (text) => {
          if (data.gone) return false;
          counts.sent++;
          return ws.send(text, false, false) === 1;
        },
        subscribe: (topic) => {
          if (!data.gone) ws.subscribe(topic);
        },
        unsubscribe: (topic) => {
          if (!data.gone) ws.unsubscribe(topic);
        },
        bufferedAmount: () => (data.gone ? 0 : ws.getBufferedAmount()),
        close: (code, reason) => {
          if (data.gone) return;
          data.gone = true;
          ws.end(code, reason);
        },
      };
      data.conn = conn;
      open.add(conn);
      endpoint.open(conn);
    },
    message: (ws, message) => {
      const data = ws.getUserData();
      counts.received++;
      if (!data.gone) endpoint.message(data.conn!, decoder.decode(message));
    },
    close: (ws, code, message) => {
      const data = ws.getUserData();
      data.gone = true;
      open.delete(data.conn!);
      endpoint.close(data.conn!, code, Buffer.from(message).toString());
    },
  });
}
