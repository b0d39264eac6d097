/**
 * @module cli/output
 *
 * How the command line shows things: aligned tables for people (numbers right-aligned, empty
 * cells as `-`), or the exchange's JSON as it came for scripts (`--json`), one document per
 * command (one line per message for `feed follow`).
 *
 * May import: nothing.
 */

export type Column<T> = readonly [header: string, cell: (row: T) => unknown];

const NUMERIC = /^-?\d+(\.\d+)?%?$/;

/** The rows as a table under `columns`' headers; `(none)` when there are none. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) => columns.map(([, cell]) => {
    const value = cell(row);
    return value === null || value === undefined || value === '' ? '-' : String(value);
  }));
  const widths = columns.map(([header], i) => Math.max(header.length, ...cells.map((r) => r[i].length)));
  const line = (values: readonly string[], numeric: (i: number) => boolean) =>
    values.map((v, i) => (numeric(i) ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join('  ').trimEnd();
  const numericColumn = columns.map((_, i) => cells.every((r) => r[i] === '-' || NUMERIC.test(r[i])));
  return [line(columns.map(([h]) => h), (i) => numericColumn[i]), ...cells.map((r) => line(r, (i) => numericColumn[i]))].join('\n');
}

/** `label  value` lines, aligned. */
export function fields(entries: ReadonlyArray<readonly [string, unknown]>): string {
  const width = Math.max(...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${k.padEnd(width)}  ${v === null || v === undefined ? '-' : String(v)}`).join('\n');
}
