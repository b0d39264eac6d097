/**
 * @module http/query
 *
 * The one query-string parser of every route: a route declares its parameters (`QueryParam`,
 * which the OpenAPI document lists too) and `strictQuery` accepts exactly those, each given
 * once — a typo such as `subAccountIndex` or `dept` is a 400 naming it, never silently ignored.
 * Values are read strictly: an integer is digits only (no sign unless allowed, no exponent, no
 * decimal point), so `1e3`, `0x10`, ` 5` and `5.0` are refused, not coerced.
 * May import: http/errors, http/uws (types).
 */
import { failure, GatewayCode } from './errors.ts';
import type { HttpReply } from './uws.ts';

/** A query parameter as a route declares it: `strictQuery` accepts exactly these, OpenAPI lists them. */
export interface QueryParam {
  name: string;
  required: boolean;
  schema: Readonly<Record<string, unknown>>;
  description: string;
}

export function paramNames(params: readonly QueryParam[]): string[] {
  return params.map((p) => p.name);
}

/** The parameters declared as arrays: given once comma-separated or repeated (`a=x&a=y`), as OpenAPI's form style explodes them. */
export function repeatableNames(params: readonly QueryParam[]): string[] {
  return params.filter((p) => p.schema.type === 'array').map((p) => p.name);
}

export const int = (minimum: number, maximum = Number.MAX_SAFE_INTEGER): Readonly<Record<string, unknown>> => ({ type: 'integer', minimum, maximum });

export const param = (name: string, schema: Readonly<Record<string, unknown>>, description: string, required = false): QueryParam => ({ name, required, schema, description });

export function isReply(value: unknown): value is HttpReply {
  return typeof value === 'object' && value !== null && 'status' in value && 'body' in value;
}

/** A parsed query: each declared parameter given, by name. */
export type Query = ReadonlyMap<string, string>;

const NO_PARAMETERS: Query = new Map();

/**
 * The query as a map of single values, or the 400 for an unknown or repeated parameter; a
 * `repeatable` one given several times reads as its values joined by commas.
 */
export function strictQuery(raw: string, allowed: readonly string[], repeatable: readonly string[] = []): Query | HttpReply {
  // Most requests carry none: no parse, no allocation.
  if (raw === '') return NO_PARAMETERS;
  const out = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(raw)) {
    if (!allowed.includes(name)) return failure(GatewayCode.InvalidField, `Unknown query parameter ${name}; allowed: ${allowed.join(', ')}`);
    const earlier = out.get(name);
    if (earlier === undefined) out.set(name, value);
    else if (repeatable.includes(name)) out.set(name, `${earlier},${value}`);
    else return failure(GatewayCode.InvalidField, `Query parameter ${name} given more than once`);
  }
  return out;
}

/** The integer value of `text`, or undefined when it is not a plain safe integer. */
export function strictInteger(text: string): number | undefined {
  if (!/^-?\d{1,16}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}
