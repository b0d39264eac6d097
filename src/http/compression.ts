/**
 * @module http/compression
 *
 * Compressed bodies for clients that ask (`Accept-Encoding`, negotiated by `negotiator`):
 * brotli or gzip for a successful GET whose body is at least `COMPRESS_MIN_BYTES` — a book of
 * 5,000 levels, the OpenAPI document, candles, trades. Smaller bodies go as they are: the
 * headers would outweigh the saving.
 *
 * Compression runs on libuv's thread pool (node:zlib's asynchronous calls), never on the main
 * thread, which matches orders. The same body is often sent many times (the book's is cached
 * per sequence and second; /config, /markets and /docs change only with the markets), so the last bodies
 * compressed are kept (`CACHED_BODIES` per encoding) and sent again without compressing.
 * May import: node:zlib, negotiator.
 */
import { brotliCompress, constants, gzip } from 'node:zlib';
import Negotiator from 'negotiator';

/** Bodies below this many bytes are sent uncompressed. */
export const COMPRESS_MIN_BYTES = 1024;
/** Brotli quality 5: most of quality 11's saving on JSON at a small fraction of its time. */
const BROTLI_QUALITY = 5;
const CACHED_BODIES = 32;

export type Encoding = 'br' | 'gzip';
const OFFERED: readonly Encoding[] = ['br', 'gzip'];

/** negotiator 1.x takes a server preference for ties; its typings predate it. */
type EncodingNegotiator = { encoding(available: readonly string[], options?: { preferred: readonly string[] }): string | undefined };

/** The encoding to send for this `Accept-Encoding`, or null for none. Brotli wins a tie. */
export function negotiateEncoding(acceptEncoding: string): Encoding | null {
  if (acceptEncoding === '') return null;
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as unknown as EncodingNegotiator;
  return (negotiator.encoding(OFFERED, { preferred: OFFERED }) as Encoding | undefined) ?? null;
}

const cache: Record<Encoding, Map<string, Buffer>> = { br: new Map(), gzip: new Map() };

/** `body` compressed with `encoding`, from the cache when it was compressed lately. */
export function compressBody(body: string, encoding: Encoding): Promise<Buffer> {
  const cached = cache[encoding].get(body);
  if (cached !== undefined) return Promise.resolve(cached);
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, bytes: Buffer) => {
      if (error !== null) return reject(error);
      const entries = cache[encoding];
      if (entries.size >= CACHED_BODIES) entries.delete(entries.keys().next().value!);
      entries.set(body, bytes);
      resolve(bytes);
    };
    if (encoding === 'br') brotliCompress(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }, done);
    else gzip(body, done);
  });
}
