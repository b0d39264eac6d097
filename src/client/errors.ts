/**
 * @module client/errors
 *
 * The exchange answers errors in plain text with the spec's exact messages (400 bad input, 401
 * token, 403 not delegated, 404 unknown, 409 nonce reused, 429 over budget with `Retry-After`,
 * 503 overloaded). The client turns each into an `ExchangeError` carrying the status, that text
 * and the response headers (`Retry-After`; on `Invalid signature`, `X-Signed-Message` and
 * `X-Signature-Recovered`), so a caller branches on `status` and shows `message` as it is.
 *
 * May import: nothing.
 */
export class ExchangeError extends Error {
  override readonly name = 'ExchangeError';

  constructor(
    /** HTTP status of the refusal (0: the exchange could not be reached). */
    readonly status: number,
    /** The exchange's own text, as sent. */
    message: string,
    readonly headers: Headers = new Headers(),
    /** `METHOD /path` of the request refused. */
    readonly request = '',
  ) {
    super(message);
  }

  /** Seconds the exchange asked to wait (429, 503), or undefined. */
  get retryAfter(): number | undefined {
    const value = this.headers.get('retry-after');
    return value === null ? undefined : Number(value);
  }
}
