/**
 * @module bench/load/autocannon
 *
 * The load generator's autocannon sender (`--sender autocannon`), the parent's side: a child
 * process (./autocannon-child.ts, `fork`) that runs one `LoadJob` at a time and answers one
 * `LoadResult`, so autocannon never shares an event loop with the caller (bench:http runs the
 * exchange in its own process) and costs far less CPU per request than `fetch`: on 2 cores the
 * load generator shares the machine with the exchange it measures. Also used for plain GET
 * floods (bench:http's GET /book, bench:feeds).
 *
 * The child runs its module's bundle (src/transport/source-bundle), without tsx: loading the
 * sources through tsx's hooks cost it about 2 s of CPU, at every run.
 *
 * May import: node:child_process, node:fs, node:os, node:path, ../report (percentile), ../../src/transport/source-bundle.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from '../report.ts';
import { execArgvWithoutTsx, runnableModule } from '../../src/transport/source-bundle.ts';

/**
 * GET `path` for `seconds`, or POST every body of `bodiesFile` once (JSON `[token, body][]`),
 * stopping after `maxSeconds` if given (autocannon stops at its next one-second tick).
 */
export type LoadJob =
  | { kind: 'get'; url: string; path: string; connections: number; seconds: number }
  | { kind: 'post'; url: string; path: string; connections: number; bodiesFile: string; maxSeconds?: number };

export interface LoadResult {
  /** 2xx responses, and their number per second of the run. */
  ok: number;
  rate: number;
  responses: number;
  seconds: number;
  /** Latency percentiles of the 2xx responses, ms. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  /** The first non-2xx body seen, to say why requests were refused. */
  firstRefusal: string | null;
  /** CPU time of the sender during the run, in core-seconds. */
  cpuSeconds: number;
  /** POST: by body (its index in the file), the `orderId` of a 2xx reply, else null (not sent, or refused). */
  orderIds: (string | null)[];
}

/** A run's `LoadResult` from what either sender counted (autocannon's child, the fetch workers). */
export function loadResult(run: {
  latencies: number[];
  seconds: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  firstRefusal: string | null;
  cpu: NodeJS.CpuUsage;
  orderIds: (string | null)[];
}): LoadResult {
  const { latencies, seconds, statusCodes } = run;
  return {
    ok: latencies.length,
    rate: latencies.length / seconds,
    responses: Object.values(statusCodes).reduce((a, b) => a + b, 0),
    seconds,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: percentile(latencies, 100),
    statusCodes,
    errors: run.errors,
    timeouts: run.timeouts,
    firstRefusal: run.firstRefusal,
    cpuSeconds: (run.cpu.user + run.cpu.system) / 1e6,
    orderIds: run.orderIds,
  };
}

export interface Autocannon {
  run(job: LoadJob): Promise<LoadResult>;
  close(): void;
}

/** A temporary bodies file of a POST job. */
export interface BodiesFile {
  path: string;
  remove(): void;
}

/** Writes `bodies` (`[token, body text]`) to a temporary bodies file: before the clock starts, it costs the caller's CPU. */
export function writeBodies(bodies: readonly (readonly [string, string])[]): BodiesFile {
  const dir = mkdtempSync(join(tmpdir(), 'perp-load-'));
  const path = join(dir, 'bodies.json');
  writeFileSync(path, JSON.stringify(bodies));
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

type Reply = { ok: true; result: LoadResult } | { ok: false; error: string };

/** Forks the sender (close it when done: the child lives until then). */
export function forkAutocannon(): Autocannon {
  const child: ChildProcess = fork(runnableModule(new URL('./autocannon-child.ts', import.meta.url)), { execArgv: execArgvWithoutTsx(), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const run = async (job: LoadJob): Promise<LoadResult> => {
    const reply = await new Promise<Reply>((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`the autocannon sender exited with ${code}`));
      child.once('exit', onExit);
      child.once('message', (message: Reply) => {
        child.off('exit', onExit);
        resolve(message);
      });
      child.send(job);
    });
    if (!reply.ok) throw new Error(`autocannon sender: ${reply.error}`);
    return reply.result;
  };
  return {
    run,
    close: () => {
      if (child.connected) child.disconnect();
    },
  };
}
