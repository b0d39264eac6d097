/**
 * @module http/query
 *
 * The one query-string parser of every route: a route declares its parameters (`QueryParam`,
 * which the OpenAPI document lists too) and `strictQuery` accepts exactly those, each given
 * once — a typo such as `subAccountIndex` or `dept` is a 400 naming it, never silently ignored.
 * http/endpoint `route()` runs it on every declared route before the handler, which is handed
 * the parsed query. Values are read strictly: an integer is digits only (no sign unless allowed,
 * no exponent, no decimal point), so `1e3`, `0x10`, ` 5` and `5.0` are refused, not coerced.
 * Also the values several routes read alike: a window of time (`from`, `to`) and a `limit`.
 * May import: http/errors, http/uws (types).
 */
import { failure, GatewayCode, LIMIT_OUT_OF_RANGE, MAX_LIMIT, refuse, type DocumentedError } from './errors.ts';
import type { HttpReply } from './uws.ts';

/** A query parameter as a route declares it: `strictQuery` accepts exactly these, OpenAPI lists them. */
export interface QueryParam {
  name: string;
  required: boolean;
  schema: Readonly<Record<string, unknown>>;
  description: string;
}

export const int = (minimum: number, maximum = Number.MAX_SAFE_INTEGER): Readonly<Record<string, unknown>> => ({ type: 'integer', minimum, maximum });

export const param = (name: string, schema: Readonly<Record<string, unknown>>, description: string, required = false): QueryParam => ({ name, required, schema, description });

export function isReply(value: unknown): value is HttpReply {
  return typeof value === 'object' && value !== null && 'status' in value && 'body' in value;
}

/** A parsed query: each declared parameter given, by name. */
export type Query = ReadonlyMap<string, string>;

/** What the strict parser refuses, on every route that reads its query; `<names>` is `none` on a route that takes none. */
export const UNKNOWN_PARAMETER: DocumentedError = [400, 'Unknown query parameter <name>; allowed: <names>'];
export const REPEATED_PARAMETER: DocumentedError = [400, 'Query parameter <name> given more than once'];
/** A parameter the route cannot answer without. */
export const MISSING_PARAMETER: DocumentedError = [400, 'Missing query parameter <name>'];

const NO_PARAMETERS: Query = new Map();

/** The query of a route that ignores its query string (http/endpoint `ignoresQuery`): nothing read. */
export const ignoredQuery = (): Query => NO_PARAMETERS;

/**
 * The parser of a route declaring `params`: the query as a map of single values, or the 400 for
 * an unknown or repeated parameter; an array parameter given several times (`a=x&a=y`, as
 * OpenAPI's form style explodes it) reads as its values joined by commas.
 */
export function strictQuery(params: readonly QueryParam[]): (raw: string) => Query | HttpReply {
  const allowed = params.map((p) => p.name);
  const repeatable = params.filter((p) => p.schema.type === 'array').map((p) => p.name);
  const names = allowed.length === 0 ? 'none' : allowed.join(', ');
  return (raw) => {
    // Most requests carry none: no parse, no allocation.
    if (raw === '') return NO_PARAMETERS;
    const out = new Map<string, string>();
    for (const [name, value] of new URLSearchParams(raw)) {
      if (!allowed.includes(name)) return refuse(UNKNOWN_PARAMETER, name, names);
      const earlier = out.get(name);
      if (earlier === undefined) out.set(name, value);
      else if (repeatable.includes(name)) out.set(name, `${earlier},${value}`);
      else return refuse(REPEATED_PARAMETER, name);
    }
    return out;
  };
}

/** The integer value of `text`, or undefined when it is not a plain safe integer. */
export function strictInteger(text: string): number | undefined {
  if (!/^-?\d{1,16}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

// ── a window of time and a limit: the history listings' parameters ──

/** `from` (on or after) and `to` (before), in milliseconds. */
export const WINDOW_PARAMS: readonly QueryParam[] = [param('from', int(0), 'milliseconds: on or after'), param('to', int(0), 'milliseconds: before')];
export const NOT_MILLISECONDS: DocumentedError = [400, '<from|to> must be an integer >= 0 (milliseconds), got <value>'];

/** An optional integer ≥ 0 in milliseconds (`from`, `to`, `createdFrom`, …). */
export function millisParam(query: Query, name: string): number | undefined | HttpReply {
  const text = query.get(name);
  if (text === undefined) return undefined;
  const n = strictInteger(text);
  return n === undefined || n < 0 ? refuse(NOT_MILLISECONDS, name, text) : n;
}

/** `limit` in 1..max (default when absent), else `Limit must be between 1 and <max>, got <n>`. */
export function limitParam(query: Query, fallback: number, max: number): number | HttpReply {
  const text = query.get('limit');
  if (text === undefined) return fallback;
  const n = strictInteger(text);
  if (n !== undefined && n >= 1 && n <= max) return n;
  return max === MAX_LIMIT ? failure(GatewayCode.LimitOutOfRange, text) : refuse(LIMIT_OUT_OF_RANGE, max, text);
}

/** `limit`, `from` and `to` of a history read, or the refusal of the first that is wrong. */
export function rangeParams(query: Query, fallback: number, max: number): { limit: number; from: number | undefined; to: number | undefined } | HttpReply {
  const limit = limitParam(query, fallback, max);
  if (isReply(limit)) return limit;
  const from = millisParam(query, 'from');
  if (isReply(from)) return from;
  const to = millisParam(query, 'to');
  if (isReply(to)) return to;
  return { limit, from, to };
}
