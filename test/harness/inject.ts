/**
 * Requests answered in process, as fastify's `inject`: `inject(dispatch, request)` answers an
 * `HttpRequest` with the `HttpReply` the gateway's listener would write, over the gateway's own
 * `Dispatch` (http/gateway `gatewayDispatch`): the same routes, guards, validation, error texts,
 * serializers, fallback (404, 405) and observer (metrics, refusal logs) — no socket.
 *
 * Invariants: a route is found as uWebSockets.js finds it — the exact path, a `:param` one
 * segment, percent-decoded (a malformed escape kept as written, http/uws-serve); HEAD wherever
 * GET answers; anything else is the fallback's. No path matches two routes of one method: uWS's
 * preference between overlapping patterns is not reproduced here, so an injector over routes
 * that overlap refuses to be made (`overlapping`). A handler that throws or rejects is answered by
 * the dispatch's `onHandlerError` (500, logged). `onReply` hears every answer once, with the
 * route's index (the routes' count for the fallback), as the listener reports it.
 *
 * Not covered (the socket's, checked end to end in test/e2e): pipelining and the end-of-turn
 * deferral of writes, the drain, CORS headers, compression, the body size bound (413), the
 * client address behind proxies, HEAD's content-length.
 */
import type { Dispatch } from '../../src/http/gateway.ts';
import type { Handler, HttpReply, HttpRequest } from '../../src/http/uws.ts';

/** A route's pattern as a RegExp capturing its parameters (`/book/:symbol` → `^/book/([^/]+)$`). */
function patternRegExp(pattern: string): RegExp {
  return new RegExp('^' + pattern.replace(/:[^/]+/g, '([^/]+)') + '$');
}

/** Whether some path matches both patterns: as many segments, each pair equal or one a parameter. */
function overlap(a: string, b: string): boolean {
  const [x, y] = [a.split('/'), b.split('/')];
  return x.length === y.length && x.every((s, i) => s === y[i] || s.startsWith(':') || y[i]!.startsWith(':'));
}

/** Pairs of routes (same method) that one path could match both of, named. */
export function overlapping(routes: readonly { method: string; pattern: string }[]): string[] {
  const found: string[] = [];
  routes.forEach((a, i) => {
    for (const b of routes.slice(i + 1)) if (a.method === b.method && overlap(a.pattern, b.pattern)) found.push(`${a.method.toUpperCase()} ${a.pattern} / ${b.pattern}`);
  });
  return found;
}

/** As http/uws-serve decodes a path parameter. */
function decodeParameter(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The answering function over `dispatch`, its routes' patterns compiled once. */
export function injector(dispatch: Dispatch): (request: Omit<HttpRequest, 'params'>) => Promise<HttpReply> {
  const ambiguous = overlapping(dispatch.routes);
  if (ambiguous.length > 0) throw new Error(`inject: routes that one path could match both of (uWS's choice between them is not reproduced): ${ambiguous.join(', ')}`);
  const routes = dispatch.routes.map((r, index) => ({ method: r.method, path: patternRegExp(r.pattern), handler: r.handler, index }));
  const fallbackIndex = routes.length;
  return async (incoming) => {
    const arrived = performance.now();
    const method = incoming.method === 'head' ? 'get' : incoming.method;
    let handler: Handler = dispatch.fallback;
    let index = fallbackIndex;
    let params: string[] = [];
    for (const r of routes) {
      if (r.method !== method) continue;
      const match = r.path.exec(incoming.path);
      if (match === null) continue;
      handler = r.handler;
      index = r.index;
      params = match.slice(1).map(decodeParameter);
      break;
    }
    const request: HttpRequest = { ...incoming, params };
    let reply: HttpReply;
    try {
      reply = await handler(request);
    } catch (error) {
      reply = dispatch.onHandlerError(error, request);
    }
    dispatch.onReply?.(index, request, reply, (performance.now() - arrived) / 1000);
    return reply;
  };
}
