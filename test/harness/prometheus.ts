/**
 * GET /metrics read as Prometheus reads it: parsed with a real parser of the exposition format
 * (parse-prometheus-text-format, prom2json's shape), by metric family.
 */
import assert from 'node:assert/strict';
import parsePrometheusTextFormat, { type MetricFamily, type Sample } from 'parse-prometheus-text-format';
import type { ApiClient } from './traders.ts';

export type Scrape = Map<string, MetricFamily>;

export async function scrape(ex: ApiClient): Promise<Scrape> {
  const reply = await ex.request('GET', '/metrics');
  assert.equal(reply.status, 200, reply.text);
  assert.match(reply.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return new Map(parsePrometheusTextFormat(reply.text).map((family) => [family.name, family]));
}

/** The sample of `name` whose labels include `labels`. */
export function sample(families: Scrape, name: string, labels: Record<string, string> = {}): Sample | undefined {
  const family = families.get(name);
  assert.ok(family, `${name} is exposed`);
  return family.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

export const value = (families: Scrape, name: string, labels?: Record<string, string>): number => Number(sample(families, name, labels)?.value ?? 0);
