/**
 * @module http/cors
 *
 * Cross-origin access for browser clients, off unless the operator lists origins
 * (`--cors-origins`): an allowed `Origin` gets `Access-Control-Allow-Origin` on every answer,
 * with the rate-limit headers exposed, and a preflight (`OPTIONS`) is answered 204 with the
 * path's methods and the headers a client sends (`Authorization`, `Content-Type`). The operator
 * key is not among them: a browser on another origin cannot call the operator API.
 * Credentials (cookies) are never allowed: the API authenticates with a bearer token.
 * May import: nothing.
 */

/** What browsers may read from an answer besides the simple headers. */
const EXPOSED = 'X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, X-Next-Cursor';
const ALLOWED_HEADERS = 'Authorization, Content-Type';
/** How long a browser may reuse a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE = '600';

export class CorsPolicy {
  private readonly any: boolean;
  private readonly origins: ReadonlySet<string>;
  /** The headers of an answer to an allowed origin, made once per origin. */
  private readonly made = new Map<string, Readonly<Record<string, string>>>();

  /** `origins`: exact origins (`https://app.example`), or `['*']` for any. */
  constructor(origins: readonly string[]) {
    this.any = origins.includes('*');
    this.origins = new Set(origins);
  }

  /** The CORS headers of an answer to a request from `origin`, or null when it is not allowed. */
  headers(origin: string): Readonly<Record<string, string>> | null {
    if (origin === '' || (!this.any && !this.origins.has(origin))) return null;
    let headers = this.made.get(origin);
    if (headers === undefined) {
      // A list names the origin back, so a cache must keep answers per Origin.
      headers = this.any
        ? { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED }
        : { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED, vary: 'Origin' };
      if (this.made.size < 1024) this.made.set(origin, headers);
    }
    return headers;
  }

  /**
   * What a preflight's 204 adds for a path that takes `methods` (the origin's headers are added
   * to every answer), or null when the origin is not allowed.
   */
  preflight(origin: string, methods: string): Record<string, string> | null {
    if (this.headers(origin) === null) return null;
    return { 'access-control-allow-methods': methods, 'access-control-allow-headers': ALLOWED_HEADERS, 'access-control-max-age': PREFLIGHT_MAX_AGE };
  }
}
