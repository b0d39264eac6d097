/**
 * `npm run load` against a test exchange: 120 signed orders from a few accounts, all
 * acknowledged (200) and read back by the exchange as sent, with a rate and latency percentiles
 * reported; the crossing pairs traded (the exchange's public trades show them). Bad input exits 2.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ExchangeClient } from '../../src/client/index.ts';
import type { LoadReport } from '../../bench/load/generator.ts';
import { startTestExchange } from './harness.ts';
import { nodeArgsFor } from './processes.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const ex = await startTestExchange();
/** `npm run load`: its code from its bundle (test/e2e/processes), without the 2 s of CPU tsx spends loading it. */
const load = (args: string[]) => promisify(execFile)(process.execPath, [...nodeArgsFor('bench/load/main.ts'), ...args], { cwd: ROOT, timeout: 120_000 });

test('120 signed orders from 6 accounts: every one acknowledged and read back, rate and percentiles reported', async () => {
  const { stdout } = await load(['--orders', '120', '--accounts', '6', '--concurrency', '8', '--url', ex.url, '--json']);
  const report = JSON.parse(stdout) as LoadReport;
  assert.deepEqual(report.statuses, { '200': 120 });
  assert.equal(report.readBack, 120);
  assert.deepEqual(report.mismatches, []);
  assert.ok(report.rate > 0 && report.latencyMs.p50 > 0 && report.latencyMs.p50 <= report.latencyMs.p99 && report.latencyMs.p99 <= report.latencyMs.max);
  // 60 crossing pairs at one price, sent 8 at a time in any order: every buy met a sell of
  // another account, so each of the 120 orders took part in exactly one trade. The public
  // trades come from the history projection, which may follow the acknowledgements by a batch.
  const client = new ExchangeClient({ url: ex.url });
  let traded = 0;
  for (const until = Date.now() + 10_000; traded < 60 && Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    traded = (await client.trades('BTC-USD-PERP', { limit: 5000 })).filter((t) => t.price === report.price).length;
  }
  assert.equal(traded, 60);
});

test('bad input is refused with exit status 2 and the usage', async () => {
  await assert.rejects(load(['--orders', 'many', '--url', ex.url]), (e: { code: number; stderr: string }) => e.code === 2 && /--orders must be a whole number/.test(e.stderr));
});
