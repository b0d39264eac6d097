/**
 * @module cli/usage
 *
 * Bad input on the command line: a `UsageError` is printed as one line and exits with status 2
 * (the exchange's refusals exit 1, with its status and text).
 *
 * May import: nothing.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A decimal string (no exponent), else a usage error naming `what`. */
export function decimal(what: string, value: string | undefined, signed = false): string {
  if (value === undefined) throw new UsageError(`missing ${what}`);
  if (!(signed ? /^-?\d+(\.\d+)?$/ : /^\d+(\.\d+)?$/).test(value)) throw new UsageError(`${what} must be a ${signed ? '' : 'positive '}decimal such as 0.001, got ${value}`);
  return value;
}

/** A non-negative integer, else a usage error naming `what`. */
export function integer(what: string, value: string | undefined, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`missing ${what}`);
    return fallback;
  }
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new UsageError(`${what} must be a whole number, got ${value}`);
  return Number(value);
}
