/**
 * GET / (the market page of src/web/), GET /app/app.js, GET /app/page.css, GET /app/icon.svg:
 * the exchange serves its own web page, everything from this origin (no CDN: an exchange must
 * not depend on a third party's script, and its machines may have no internet).
 *
 * `app.js` is src/web/app.ts bundled by esbuild with what it imports from node_modules
 * (lightweight-charts, crc-32), once, at the first request for it: no build step before
 * `npm start`, no built file to keep in step with its source, and a server that never serves
 * the page pays nothing (docs/decisions.md). The other files are read once, at their first
 * request.
 *
 * A query string is ignored (`ignoresQuery`): a browser loads a page or a file with a
 * cache-buster (`?v=2`) or a shared link's tracking parameters, and a 400 would be a blank page.
 *
 * Every answer carries a Content-Security-Policy that allows only this origin (scripts, styles,
 * images, the feed's WebSocket: CSP 3 `'self'` covers ws: and wss: to the same host), no
 * inline script or style, no framing.
 * May import: http/ (endpoint, uws types), node:fs, node:url, esbuild. It reads src/web/ as files and
 * never imports it (browser code).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HttpReply } from '../uws.ts';
import { route, type DeclaredRoute, type Endpoint } from '../endpoint.ts';

/** src/web/ of the repository, from src/http/routes/ (tsx) and dist/http/routes/ (the compiled build) alike: the page is never compiled by tsc. */
const WEB_DIR = fileURLToPath(new URL('../../../src/web/', import.meta.url));

const CONTENT_SECURITY_POLICY = "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'";

const HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  // Small files, served from memory: the browser asks again each time rather than run an old page against a new server.
  'cache-control': 'no-cache',
};

function reply(body: string, contentType: string): HttpReply {
  return { status: 200, body, contentType, headers: HEADERS };
}

/** Bundles the page's script; a failure rejects, and the request that asked is answered 500 with it logged. */
async function bundle(): Promise<HttpReply> {
  // Loaded here, not with this module: esbuild's load cost every start 35–65 ms of CPU, and most
  // servers never serve the page.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [`${WEB_DIR}app.ts`],
    // No tsconfig file is read (src/web/tsconfig.json is for the type check, and extends one an image may not ship).
    tsconfigRaw: {},
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
    legalComments: 'inline',
    // The client's feed loads `ws` only where there is no WebSocket: never in a browser.
    external: ['ws'],
  });
  return reply(result.outputFiles[0].text, 'text/javascript; charset=utf-8');
}

/** A file of src/web/, read at its first request. */
function file(name: string, contentType: string): () => HttpReply {
  let cached: HttpReply | undefined;
  return () => (cached ??= reply(readFileSync(`${WEB_DIR}${name}`, 'utf8'), contentType));
}

export function webRoutes(): { page: DeclaredRoute; pageStyle: DeclaredRoute; pageIcon: DeclaredRoute; pageScript: DeclaredRoute } {
  let script: Promise<HttpReply> | undefined;
  return {
    page: route(PAGE, file('index.html', 'text/html; charset=utf-8')),
    pageStyle: route(PAGE_STYLE, file('page.css', 'text/css; charset=utf-8')),
    pageIcon: route(PAGE_ICON, file('icon.svg', 'image/svg+xml')),
    pageScript: route(PAGE_SCRIPT, () => {
      script ??= bundle();
      // A failed build is tried again at the next request rather than remembered.
      script.catch(() => (script = undefined));
      return script;
    }),
  };
}

// ── declarations (http/endpoint): what the API document says of each route ──

export const PAGE: Endpoint = { method: 'get', path: '/', tag: 'Reference', summary: 'The market page', description: 'A web page showing per market the book, recent trades, candles, mark, index and last price and the funding rate, live from the feeds at /ws; its script and style are served under /app/, everything from this origin (Content-Security-Policy: only `self`).', auth: false, response: { type: 'string' }, contentType: 'text/html', errors: [], ignoresQuery: true };
/** The page's script, style and icon: served, and part of the page rather than of the API. */
const asset = (path: string): Endpoint => ({ method: 'get', path, tag: 'Reference', summary: 'The market page: a file it loads', description: '', auth: false, response: { type: 'string' }, errors: [], hidden: true, ignoresQuery: true });
export const PAGE_STYLE = asset('/app/page.css');
export const PAGE_ICON = asset('/app/icon.svg');
export const PAGE_SCRIPT = asset('/app/app.js');
