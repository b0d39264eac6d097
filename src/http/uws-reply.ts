/**
 * @module http/uws-reply
 *
 * Writing a reply to a uWS response: status line, content type, the reply's headers, the
 * origin's CORS headers, HEAD as headers only (with the length the body would have), and a
 * large successful GET body compressed as the client's `Accept-Encoding` asks. Called inside
 * `res.cork` for every asynchronous answer (http/uws-serve).
 * May import: @btc-vision/uwebsockets.js (types), http/compression, http/uws-types (types).
 */
import type * as Uws from '@btc-vision/uwebsockets.js';
import { COMPRESS_MIN_BYTES, compressBody, negotiateEncoding } from './compression.ts';
import type { HttpReply, HttpRequest, HttpServerOptions } from './uws-types.ts';

const STATUS_LINE: Record<number, string> = {
  200: '200 OK', 204: '204 No Content', 400: '400 Bad Request', 401: '401 Unauthorized',
  403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed', 409: '409 Conflict',
  413: '413 Payload Too Large', 415: '415 Unsupported Media Type', 421: '421 Misdirected Request', 429: '429 Too Many Requests',
  500: '500 Internal Server Error', 503: '503 Service Unavailable',
};

function statusLine(status: number): string {
  return STATUS_LINE[status] ?? `${status} Status`;
}

/** The content type a reply is sent with: its own, else JSON below 400 and plain text from 400; none for a 204 (no content). */
export function contentTypeOf(reply: HttpReply): string | null {
  if (reply.status === 204) return null;
  return reply.contentType ?? (reply.status < 400 ? 'application/json' : 'text/plain; charset=utf-8');
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
export function write(res: Uws.HttpResponse, reply: HttpReply, closeConnection: boolean, request: HttpRequest | null = null, options: Pick<HttpServerOptions, 'cors' | 'compress'> = {}): void {
  res.writeStatus(statusLine(reply.status));
  const contentType = contentTypeOf(reply);
  if (contentType !== null) res.writeHeader('content-type', contentType);
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
export function encoded(request: HttpRequest, reply: HttpReply): HttpReply | Promise<HttpReply> {
  if (!compressible(request, reply)) return reply;
  const encoding = negotiateEncoding(request.acceptEncoding);
  if (encoding === null) return reply;
  return compressBody(reply.body, encoding).then((bytes) => ({ ...reply, encoded: { encoding, bytes } }));
}
