/**
 * @module http/query
 *
 * Strict readers of query-string values: an integer is digits only (no sign unless allowed,
 * no exponent, no decimal point), so `1e3`, `0x10`, ` 5` and `5.0` are refused, not coerced.
 */

export type Query = URLSearchParams;

export function parseQuery(raw: string): Query {
  return new URLSearchParams(raw);
}

/** The integer value of `text`, or undefined when it is not a plain safe integer. */
export function strictInteger(text: string): number | undefined {
  if (!/^-?\d{1,16}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}
