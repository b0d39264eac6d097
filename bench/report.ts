/**
 * Benchmark figures: printed as a table and written to `bench/results/<name>.json` as an array of
 * `{name, value, unit, baseline?: {name, value}}` (the convention in docs/benchmarks.md).
 * Every figure should carry a baseline measured in the same run: these machines are noisy.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  baseline?: { name: string; value: number };
}

/** Percentiles of a sample (sorted copy; `p` in 0..100). */
export function percentile(samples: ArrayLike<number>, p: number): number {
  const sorted = Float64Array.from(samples).sort();
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** A sample of latencies, ms: how many, p50, p99, the worst, and every value (to pool samples). */
export interface Latency {
  samples: number;
  p50: number;
  p99: number;
  max: number;
  values: number[];
}

export function latency(values: number[]): Latency {
  return { samples: values.length, p50: percentile(values, 50), p99: percentile(values, 99), max: values.length === 0 ? NaN : Math.max(...values), values };
}

function round(value: number): number {
  return Math.abs(value) >= 100 ? Math.round(value) : Number(value.toPrecision(4));
}

/** Prints the figures and writes them to bench/results/<suite>.json. */
export function report(suite: string, figures: Figure[]): void {
  const rows = figures.map((f) => ({
    figure: f.name,
    value: round(f.value),
    unit: f.unit,
    baseline: f.baseline ? `${f.baseline.name}: ${round(f.baseline.value)}` : '',
    ratio: f.baseline && f.baseline.value !== 0 ? `${(f.value / f.baseline.value).toFixed(2)}×` : '',
  }));
  console.log(`\n== ${suite} ==`);
  console.table(rows);
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const json = figures.map((f) => ({ ...f, value: round(f.value), ...(f.baseline ? { baseline: { ...f.baseline, value: round(f.baseline.value) } } : {}) }));
  writeFileSync(`${dir}${suite}.json`, JSON.stringify(json, null, 2) + '\n');
}
