/**
 * A real exchange for black-box tests: the whole pipeline (journal, market threads, signature
 * pool, gateway) on a temporary data directory and a free loopback port. The traders that log
 * in and sign with viem are test/harness/traders' (re-exported here: they work on any `ApiClient`).
 */
import { after, type TestContext } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadSettings } from '../../src/config/process.ts';
import { startExchange, type RunningExchange } from '../../src/pipeline.ts';
import type { FeedLimits } from '../../src/ws/feeds.ts';
import { apiClient, type ApiClient } from '../harness/traders.ts';

export { apiClient, fundedTraders, orderTypedMessage, Trader, withinBudget, type ApiClient, type OrderFields, type Reply } from '../harness/traders.ts';

export interface TestExchange extends ApiClient {
  dataDir: string;
  exchange: RunningExchange;
  /** The exchange's clock: the wall clock. */
  now(): number;
  /** The clock moves `ms` on: the wall clock, waited out (the in-process exchange's moves at once). */
  advance(ms: number): Promise<void>;
  stop(options?: { snapshot?: boolean }): Promise<void>;
}

/** A real exchange's clock: the wall clock, whose `advance` is waited out. */
export const WALL_CLOCK = { now: Date.now, advance: (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms)) };

/** Exchanges started on a data directory of `tempDataDir`, so it is removed only once they have stopped. */
const runningOn = new Map<string, Array<() => Promise<void>>>();

/**
 * A data directory for a restart test: every exchange started on it is stopped after the test,
 * then it is removed (an exchange's threads hold its LMDB environments while it runs).
 */
export function tempDataDir(t: TestContext, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  runningOn.set(dir, []);
  t.after(async () => {
    for (const stop of runningOn.get(dir) ?? []) await stop();
    runningOn.delete(dir);
    // KEEP_DATA_DIRS=1 keeps them, to open a failed run's journal (`npm run journal -- inspect`).
    if (process.env.KEEP_DATA_DIRS === '1') t.diagnostic(`data directory kept: ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/**
 * `args`: command-line settings added to the harness's own (`--trusted-proxies …`, `--cors-origins …`), as the process takes them;
 * `clock`: the host's clock the pipeline reads (default `Date.now`), for a test that steps it.
 */
export async function startTestExchange(options: { dataDir?: string; tickMs?: number; args?: readonly string[]; feedLimits?: Partial<FeedLimits>; clock?: () => number } = {}): Promise<TestExchange> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'perp-e2e-'));
  const settings = loadSettings(['--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, ...(options.args ?? [])], {});
  const exchange = await startExchange(settings, pino({ level: 'silent' }), { tickMs: options.tickMs ?? 60_000, feedLimits: options.feedLimits, clock: options.clock });
  const client = apiClient(`http://127.0.0.1:${exchange.port}`);
  let stopped = false;
  const stop = async (stopOptions?: { snapshot?: boolean }) => {
    if (stopped) return;
    stopped = true;
    await exchange.stop(stopOptions);
  };
  runningOn.get(dataDir)?.push(stop);
  after(async () => {
    await stop();
    if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  });
  return { ...client, dataDir, exchange, ...WALL_CLOCK, stop };
}
