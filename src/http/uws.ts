/**
 * @module http/uws
 *
 * The one module that touches uWebSockets.js (npm `@trufflesuite/uws-js-unofficial`, a build
 * that loads on Node 20). Everything else sees `HttpRequest` → `HttpReply` handlers.
 *
 * uWebSockets.js rules honoured here (its own examples): everything needed from `req` is copied
 * at once, because `req` is only valid inside the callback; every response registers
 * `onAborted` before it goes asynchronous; every asynchronous reply is written inside
 * `res.cork`; a body larger than `maxBodyBytes` is refused with 413 without buffering it.
 * May import: nothing from the cores.
 */
import { createRequire } from 'node:module';
import type * as Uws from '@trufflesuite/uws-js-unofficial';
import { clientAddress } from './client-address.ts';
import { canonicalIp } from '../config/ip-address.ts';

const uws = createRequire(import.meta.url)('@trufflesuite/uws-js-unofficial') as typeof Uws;

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
  /** The client's address: the socket peer, or the client a trusted proxy forwarded for. */
  remoteAddress: string;
  body: Buffer | null;
}

export interface HttpReply {
  status: number;
  /** JSON text for `application/json`, or a plain-text message. */
  body: string;
  contentType?: 'application/json' | 'text/plain; charset=utf-8' | 'text/html; charset=utf-8';
  headers?: Record<string, string>;
}

export type Handler = (req: HttpRequest) => HttpReply | Promise<HttpReply>;

export interface Route {
  method: Method;
  /** uWebSockets.js pattern, e.g. `/book/:symbol`. */
  pattern: string;
  handler: Handler;
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
}

export interface HttpServer {
  readonly port: number;
  /** Stops accepting connections; open connections finish their current request. */
  close(): void;
}

const STATUS_LINE: Record<number, string> = {
  200: '200 OK', 204: '204 No Content', 400: '400 Bad Request', 401: '401 Unauthorized',
  403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed', 409: '409 Conflict',
  413: '413 Payload Too Large', 415: '415 Unsupported Media Type', 429: '429 Too Many Requests',
  500: '500 Internal Server Error', 503: '503 Service Unavailable',
};

function statusLine(status: number): string {
  return STATUS_LINE[status] ?? `${status} Status`;
}

function write(res: Uws.HttpResponse, reply: HttpReply): void {
  res.writeStatus(statusLine(reply.status));
  res.writeHeader('content-type', reply.contentType ?? (reply.status < 400 ? 'application/json' : 'text/plain; charset=utf-8'));
  if (reply.headers) for (const key in reply.headers) res.writeHeader(key, reply.headers[key]);
  res.end(reply.body);
}

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
  const app = uws.App();
  const trusted = options.trustedProxies ?? new Set<string>();

  const serve = (res: Uws.HttpResponse, req: Uws.HttpRequest, handler: Handler, paramCount: number): void => {
    // req is only valid in this callback: copy everything now.
    const params: string[] = [];
    for (let i = 0; i < paramCount; i++) params.push(decodeParameter(req.getParameter(i)));
    const peer = Buffer.from(res.getRemoteAddressAsText()).toString();
    const request: HttpRequest = {
      method: req.getMethod(),
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      params,
      authorization: req.getHeader('authorization'),
      operatorKey: req.getHeader('x-operator-key'),
      contentType: req.getHeader('content-type'),
      remoteAddress: trusted.size === 0 ? peer : clientAddress(canonicalIp(peer) ?? peer, req.getHeader('x-forwarded-for'), trusted),
      body: null,
    };
    const declaredLength = Number(req.getHeader('content-length') || '0');
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });

    const finish = (reply: HttpReply): void => {
      if (aborted) return;
      res.cork(() => write(res, reply));
    };
    const run = (): void => {
      let result: HttpReply | Promise<HttpReply>;
      try {
        result = handler(request);
      } catch (error) {
        finish(options.onHandlerError(error, request));
        return;
      }
      if (result instanceof Promise) result.then(finish, (error) => finish(options.onHandlerError(error, request)));
      else finish(result);
    };

    if (!NEEDS_BODY.has(request.method)) {
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
        run();
      }
    });
  };

  for (const route of options.routes) {
    const paramCount = (route.pattern.match(/\/:/g) ?? []).length;
    const register = app[route.method === 'delete' ? 'del' : route.method].bind(app) as (
      pattern: string,
      h: (res: Uws.HttpResponse, req: Uws.HttpRequest) => void,
    ) => unknown;
    register(route.pattern, (res, req) => serve(res, req, route.handler, paramCount));
  }
  app.any('/*', (res, req) => serve(res, req, options.fallback, 0));

  return new Promise((resolve, reject) => {
    app.listen(options.host, options.port, (socket) => {
      if (!socket) {
        reject(new Error(`Cannot listen on ${options.host}:${options.port}`));
        return;
      }
      resolve({
        port: uws.us_socket_local_port(socket as unknown as Uws.us_socket),
        close: () => uws.us_listen_socket_close(socket),
      });
    });
  });
}
