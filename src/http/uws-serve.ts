/**
 * @module http/uws-serve
 *
 * One HTTP request's life in the adapter (the rules of http/uws's header, "Pipelining" and
 * "Drain"): everything needed from uWS's `req` copied at once (it is valid only inside the
 * callback); `onAborted` registered before anything goes asynchronous; the body read (and a
 * body over `maxBodyBytes` refused with 413 without buffering it); a request with a body run
 * only at the end of the event-loop turn; the connection paused while the request is
 * unanswered; the reply written inside `res.cork`, then `onReply`; and the counts a drain waits
 * on (`ServeState`).
 * May import: @btc-vision/uwebsockets.js (types), http/client-address, config/ip-address, http/uws-reply, http/uws-types (types).
 */
import type * as Uws from '@btc-vision/uwebsockets.js';
import { clientAddress } from './client-address.ts';
import { canonicalIp } from '../config/ip-address.ts';
import { encoded, write } from './uws-reply.ts';
import type { Handler, HttpReply, HttpRequest, HttpServerOptions } from './uws-types.ts';

/** What the requests and a drain share. */
export interface ServeState {
  /** Requests started and not yet finished: unanswered, or answered while their handler still runs. */
  unfinished: number;
  draining: boolean;
  /** During a drain: called whenever a request starts or finishes. */
  onDrainActivity: (() => void) | null;
}

export type Serve = (res: Uws.HttpResponse, req: Uws.HttpRequest, handler: Handler, paramCount: number, routeIndex: number) => void;

/**
 * Runs what was queued at the end of the event-loop turn, after uWS has parsed everything the
 * turn's reads brought (http/uws, "Pipelining"). One queue and one `setImmediate` per turn.
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

/** The function every route's uWS callback calls: `state` is the server's, shared with its drain. */
export function requestServer(options: HttpServerOptions, trusted: ReadonlySet<string>, state: ServeState): Serve {
  const onReply = options.onReply;
  /** A body over the limit, declared or streamed: refused without reading the rest. */
  const tooLarge = `Request body too large: at most ${options.maxBodyBytes} bytes`;
  return (res, req, handler, paramCount, routeIndex) => {
    const arrived = performance.now();
    if (state.draining) {
      write(res, options.shuttingDown, true, null, options);
      state.onDrainActivity?.();
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
      // Each header is a call into uWS: the two below only where something reads them.
      origin: options.cors === undefined ? '' : req.getHeader('origin'),
      acceptEncoding: options.compress ? req.getHeader('accept-encoding') : '',
      remoteAddress: trusted.size === 0 ? peer : clientAddress(canonicalIp(peer) ?? peer, req.getHeader('x-forwarded-for'), trusted),
      body: null,
    };
    const declaredLength = Number(req.getHeader('content-length') || '0');
    state.unfinished++;
    let aborted = false;
    let running = false;
    let paused = false;
    let finished = false;
    // True while uWS's callback runs: an answer written then needs no `cork` (uWS corks its own
    // callback) and no `onAborted` (nothing of it outlives the callback).
    let inCallback = true;
    const release = (): void => {
      if (finished) return;
      finished = true;
      state.unfinished--;
      state.onDrainActivity?.();
    };
    let watching = false;
    /** Before anything outlives the callback (a body to read, a handler's promise): uWS requires `onAborted` then. */
    const watchAbort = (): void => {
      if (watching) return;
      watching = true;
      res.onAborted(() => {
        aborted = true;
        // A handler already running finishes its work (a write it started is completed) first.
        if (!running) release();
      });
    };

    const finish = (reply: HttpReply): void => {
      running = false;
      if (!aborted) {
        if (inCallback) write(res, reply, state.draining, request, options);
        else
          res.cork(() => {
            if (paused) res.resume();
            write(res, reply, state.draining, request, options);
          });
        onReply?.(routeIndex, request, reply, (performance.now() - arrived) / 1000);
      }
      release();
    };
    const run = (): void => {
      if (aborted) return;
      if (state.draining) {
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
        watchAbort();
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
      inCallback = false;
      return;
    }
    if (declaredLength > options.maxBodyBytes) {
      finish({ status: 413, body: tooLarge });
      return;
    }
    inCallback = false;
    watchAbort();
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    res.onData((chunk, isLast) => {
      if (refused) return;
      size += chunk.byteLength;
      if (size > options.maxBodyBytes) {
        refused = true;
        finish({ status: 413, body: tooLarge });
        return;
      }
      if (isLast) {
        // uWS neuters the ArrayBuffer after this callback returns: a body in one chunk (almost
        // every one) is decoded from it now, without copying it first; one in several is copied
        // chunk by chunk, so a character split between two is decoded whole.
        request.body = chunks.length === 0 ? Buffer.from(chunk).toString('utf8') : Buffer.concat([...chunks, Buffer.from(chunk)]).toString('utf8');
        // A write: stop reading, and run it only once uWS has parsed what came with it.
        paused = true;
        res.pause();
        deferToEndOfTurn(run);
      } else chunks.push(Buffer.from(chunk.slice(0)));
    });
  };
}
