/**
 * @module http/errors
 *
 * The one place where a rejection becomes an HTTP status and the spec's exact text. Every
 * part returns codes from its own table (engine 3000s, ledger 2000s, auth 1000s); the gateway's
 * own codes (9000s) are here. Bodies of errors are plain text, as the spec says.
 */
import type { HttpReply } from './uws.ts';

export const GatewayCode = {
  SymbolNotFound: 9001,
  DepthOutOfRange: 9002,
  TickSizeNotAllowed: 9003,
  RouteNotFound: 9004,
  MethodNotAllowed: 9005,
  BodyNotJson: 9006,
  InvalidField: 9007,
  MarketNotFound: 9008,
  LimitOutOfRange: 9009,
  DatabaseFailure: 9010,
  Overloaded: 9011,
  Internal: 9012,
} as const;
export type GatewayCode = (typeof GatewayCode)[keyof typeof GatewayCode];

/** `Retry-After` of a 503: the backlog of any stage clears within about a second at full load. */
const OVERLOADED_RETRY_SECONDS = 1;

interface Entry {
  status: number;
  text: (detail: string) => string;
}

const TABLE: Record<number, Entry> = {
  [GatewayCode.SymbolNotFound]: { status: 404, text: () => 'Symbol not found' },
  [GatewayCode.MarketNotFound]: { status: 404, text: (symbol) => `Market ${symbol} not found` },
  [GatewayCode.DepthOutOfRange]: { status: 400, text: () => 'Depth must be between 1 and 5000' },
  [GatewayCode.LimitOutOfRange]: { status: 400, text: (got) => `Limit must be between 1 and 5000, got ${got}` },
  [GatewayCode.TickSizeNotAllowed]: { status: 400, text: (tick) => `tickSize must be the market's tick size ${tick} times 1, 2, 5, 10, 100 or 1000` },
  [GatewayCode.RouteNotFound]: { status: 404, text: (path) => `Route not found: ${path}` },
  [GatewayCode.MethodNotAllowed]: { status: 405, text: (method) => `Method ${method} not allowed on this route` },
  [GatewayCode.BodyNotJson]: { status: 400, text: () => 'Request body must be valid JSON' },
  [GatewayCode.InvalidField]: { status: 400, text: (detail) => detail },
  [GatewayCode.DatabaseFailure]: { status: 500, text: () => 'Internal server error: Database connection failed' },
  [GatewayCode.Overloaded]: { status: 503, text: (why) => `Service overloaded: ${why}` },
  [GatewayCode.Internal]: { status: 500, text: () => 'Internal server error' },
};

/** The reply for a rejection; `detail` fills the text's slot (a symbol, a number, a field message). */
export function failure(code: number, detail = ''): HttpReply {
  const entry = TABLE[code] ?? TABLE[GatewayCode.Internal];
  const reply: HttpReply = { status: entry.status, body: entry.text(detail), contentType: 'text/plain; charset=utf-8', code };
  // A 503 is a moment's overload (a stage behind, too many login challenges): say when to retry.
  if (entry.status === 503) reply.headers = { 'retry-after': String(OVERLOADED_RETRY_SECONDS) };
  return reply;
}

/** Registers another part's code table (auth, ledger, engine) under the same mapping. */
export function registerCodes(entries: Record<number, { status: number; text: string | ((detail: string) => string) }>): void {
  for (const [code, entry] of Object.entries(entries)) {
    const text = entry.text;
    TABLE[Number(code)] = { status: entry.status, text: typeof text === 'string' ? () => text : text };
  }
}
