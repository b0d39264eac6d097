/**
 * @module numeric/decimal
 *
 * Exact decimal strings ⇄ scaled integers. Every price, quantity and amount crosses the API
 * edge through here; inside the system they are integers (ticks, lots, collateral base units).
 *
 * Invariants: no float ever holds a value; a string that is finer than the requested scale is
 * refused, never rounded; exponent notation, signs other than a leading '-', leading '+', blank
 * and non-digit characters are refused.
 * May import: nothing.
 */

/** Why a decimal string was refused; the caller turns it into its own message. */
export type DecimalProblem = 'notDecimal' | 'tooPrecise' | 'tooLarge';

export interface ParsedDecimal {
  ok: true;
  value: bigint;
}
export interface RefusedDecimal {
  ok: false;
  problem: DecimalProblem;
}

const DECIMAL = /^(-?)(\d{1,40})(?:\.(\d{1,40}))?$/;

/**
 * Parses `text` as value × 10^scale. `maxAbs` bounds the scaled result (inclusive).
 * "1.50" at scale 1 is accepted (trailing zeros carry no precision); "1.55" at scale 1 is not.
 */
export function parseDecimal(text: string, scale: number, maxAbs?: bigint): ParsedDecimal | RefusedDecimal {
  const m = DECIMAL.exec(text);
  if (m === null) return { ok: false, problem: 'notDecimal' };
  const [, sign, whole, fraction = ''] = m;
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > scale) return { ok: false, problem: 'tooPrecise' };
  const digits = whole + significant.padEnd(scale, '0');
  let value = BigInt(digits);
  if (sign === '-') value = -value;
  if (maxAbs !== undefined && (value > maxAbs || value < -maxAbs)) return { ok: false, problem: 'tooLarge' };
  return { ok: true, value };
}

/** Formats value × 10^-scale with no exponent and no trailing zeros ("1.5", "-0.25", "3"). */
export function formatDecimal(value: bigint | number, scale: number): string {
  let v = typeof value === 'bigint' ? value : BigInt(value);
  const negative = v < 0n;
  if (negative) v = -v;
  let text = v.toString();
  if (scale > 0) {
    text = text.padStart(scale + 1, '0');
    const whole = text.slice(0, text.length - scale);
    const fraction = text.slice(text.length - scale).replace(/0+$/, '');
    text = fraction.length > 0 ? `${whole}.${fraction}` : whole;
  }
  return negative && text !== '0' ? `-${text}` : text;
}

/** Number of digits after the point that `text` needs ("0.010" → 2, "5" → 0). */
export function decimalPlaces(text: string): number {
  const dot = text.indexOf('.');
  if (dot < 0) return 0;
  return text.slice(dot + 1).replace(/0+$/, '').length;
}
