/**
 * @module bench/load/autocannon-child
 *
 * The autocannon sender of the load generator, run as a CHILD process (`fork`, ./autocannon.ts)
 * so autocannon never shares an event loop with the server it measures. The parent sends one
 * `LoadJob` at a time over IPC and gets one `LoadResult` back. Every job is bounded (a duration,
 * or a fixed amount of requests).
 *
 * Latencies are taken from autocannon's per-response event (fractional milliseconds, 2xx only),
 * not from its histogram, which records whole milliseconds. The child also reports its own CPU
 * time: on a 2-core box the load generator is often the bottleneck (notes 2c).
 *
 * Each POST body is tagged with its index in the connection's context when autocannon builds the
 * request (one request in flight per connection, so the reply that follows is that body's), and
 * the reply's `orderId` is kept under that index, for the generator to read every order back.
 *
 * May import: autocannon (CommonJS, untyped: the part used is declared here), node:fs, ./autocannon
 * (its job and result types, `loadResult`).
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { EventEmitter } from 'node:events';
import { loadResult, type LoadJob, type LoadResult } from './autocannon.ts';

interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest, context: RequestContext) => AutocannonRequest;
  onResponse?: (status: number, body: string, context: RequestContext) => void;
}

/** autocannon's per-connection context, reset before each request is built. */
interface RequestContext {
  index?: number;
}

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}

type Autocannon = (
  options: { url: string; connections: number; duration?: number; amount?: number; requests?: AutocannonRequest[]; timeout?: number },
  done: (error: Error | null, result: AutocannonResult) => void,
) => EventEmitter & { stop(): void };

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function run(job: LoadJob): Promise<LoadResult> {
  let firstRefusal: string | null = null;
  const orderIds: (string | null)[] = [];
  const onResponse = (status: number, body: string, context: RequestContext): void => {
    if (status >= 300) {
      if (firstRefusal === null) firstRefusal = `${status} ${body.slice(0, 200)}`;
    } else if (context.index !== undefined) {
      // The reply is `[{ …, "orderId": "…", … }]`: the id found without parsing the whole reply.
      const at = body.indexOf('"orderId":"');
      if (at >= 0) orderIds[context.index] = body.slice(at + 11, body.indexOf('"', at + 11));
    }
  };
  let requests: AutocannonRequest[];
  let amount: number | undefined;
  if (job.kind === 'get') {
    requests = [{ method: 'GET', path: job.path, onResponse }];
  } else {
    const bodies = JSON.parse(readFileSync(job.bodiesFile, 'utf8')) as [string, string][];
    let next = 0;
    amount = bodies.length;
    orderIds.length = bodies.length;
    orderIds.fill(null);
    requests = [
      {
        method: 'POST',
        path: job.path,
        setupRequest: (request, context) => {
          const index = Math.min(next++, bodies.length - 1);
          context.index = index;
          const [token, body] = bodies[index];
          return { ...request, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body };
        },
        onResponse,
      },
    ];
  }
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  // Wall time from the start to the last response, measured here: autocannon's `duration` and
  // its completion callback move in whole seconds, too coarse for a run of a few seconds.
  const started = performance.now();
  let lastResponse = started;
  return new Promise((resolve, reject) => {
    const tracker = autocannon(
      { url: job.url, connections: job.connections, ...(job.kind === 'get' ? { duration: job.seconds } : { amount }), requests, timeout: 10 },
      (error, result) => {
        if (error) {
          reject(error);
          return;
        }
        const cpu = process.cpuUsage(cpuBefore);
        const seconds = (lastResponse - started) / 1000;
        const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
        resolve(loadResult({ latencies, seconds, statusCodes, errors: result.errors, timeouts: result.timeouts, firstRefusal, cpu, orderIds }));
      },
    );
    if (job.kind === 'post' && job.maxSeconds !== undefined) {
      const cap = setTimeout(() => tracker.stop(), job.maxSeconds * 1000);
      tracker.once('done', () => clearTimeout(cap));
    }
    tracker.on('response', (_client: unknown, status: number, _bytes: number, millis: number) => {
      if (status >= 200 && status < 300) latencies.push(millis);
      lastResponse = performance.now();
    });
  });
}

process.on('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send!({ ok: true, result }),
    (error: Error) => process.send!({ ok: false, error: error.message }),
  );
});
process.on('disconnect', () => process.exit(0));
