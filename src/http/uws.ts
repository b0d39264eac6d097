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
 *
 * Files: the contract's types (http/uws-types, re-exported here), one request's life
 * (http/uws-serve), writing a reply (http/uws-reply), the WebSocket endpoint (http/uws-sockets);
 * this file starts the server: routes, listening, publish, drain and close.
 * May import: @btc-vision/uwebsockets.js (types), http/uws-native, http/uws-serve,
 * http/uws-sockets, http/uws-types (types). Nothing from the cores.
 */
import type * as Uws from '@btc-vision/uwebsockets.js';
import { uwsNative } from './uws-native.ts';
import { requestServer, type ServeState } from './uws-serve.ts';
import { openSockets } from './uws-sockets.ts';
import type { HttpServer, HttpServerOptions, SocketConnection, SocketCounts } from './uws-types.ts';

export type {
  Handler,
  HttpReply,
  HttpRequest,
  HttpServer,
  HttpServerOptions,
  Method,
  Route,
  SocketConnection,
  SocketCounts,
  SocketEndpoint,
} from './uws-types.ts';

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

/**
 * A drain ends once no request has started or finished for this long: requests that reached a
 * connection's buffer before the drain are read (and answered 503) before the connection closes.
 */
const DRAIN_QUIET_MS = 100;

export function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const { uws } = uwsNative();
  const app = uws.App();
  const trusted = options.trustedProxies ?? new Set<string>();
  const state: ServeState = { unfinished: 0, draining: false, onDrainActivity: null };
  const serve = requestServer(options, trusted, state);

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
          state.draining = true;
          stopListening();
          closeSockets();
          return new Promise<number>((resolveDrain) => {
            let quiet: NodeJS.Timeout | undefined;
            const done = (): void => {
              clearTimeout(grace);
              clearTimeout(quiet);
              state.onDrainActivity = null;
              app.close();
              resolveDrain(state.unfinished);
            };
            const grace = setTimeout(done, graceMs);
            // Done once nothing is unfinished and the connections have been quiet for a while:
            // a request already in a socket's buffer is read, and answered, before its connection closes.
            state.onDrainActivity = () => {
              clearTimeout(quiet);
              if (state.unfinished === 0) quiet = setTimeout(done, DRAIN_QUIET_MS);
            };
            state.onDrainActivity();
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
