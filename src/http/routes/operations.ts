/**
 * What a process manager, a load balancer and Prometheus ask (docs/operations.md):
 *  - `GET /health`: the process is up and its event loop answers — 200 `ok`, always;
 *  - `GET /ready`: it should be sent traffic — 200 `ready`, or 503 `Not ready: <reason>` (still
 *    starting: `replaying journal (seq 1200 of 90000)`; the journal failed, a market thread
 *    stopped, a stage is behind, shutting down) with `Retry-After`;
 *  - `GET /metrics`: the Prometheus text format (during the start-up replay too: its progress).
 * The listener opens before the start-up replay: these three answer during it, every other
 * route is refused 503 until the exchange has caught up (http/gateway `starting`).
 * None of them is charged to the per-address budget: a probe every second must never see 429.
 * None of them reads a query string, and none refuses one (`ignoresQuery`): a load balancer's or
 * a scrape job's configured parameters (Prometheus `params:`) must not turn a healthy process
 * into a failing target.
 */
import type { OperationsPort } from '../ports.ts';
import type { HttpReply } from '../uws.ts';
import { say, type DocumentedError } from '../errors.ts';
import { route, type DeclaredRoute, type Endpoint } from '../endpoint.ts';

const TEXT = 'text/plain; charset=utf-8';
const OK: HttpReply = { status: 200, body: 'ok', contentType: TEXT };
const READY: HttpReply = { status: 200, body: 'ready', contentType: TEXT };
/** A stage that is behind catches up within about a second (http/errors: the 503's Retry-After). */
const RETRY_SECONDS = '1';

/** A 503 of /ready: why the process should not be sent traffic now. */
const NOT_READY: DocumentedError = [503, 'Not ready: <reason>'];

export function healthRoutes(operations: OperationsPort): { health: DeclaredRoute; ready: DeclaredRoute } {
  return {
    health: route(HEALTH, () => OK),
    ready: route(READY_ENDPOINT, () => {
      const reason = operations.notReady();
      return reason === null ? READY : { status: NOT_READY[0], body: say(NOT_READY[1], reason), contentType: TEXT, headers: { 'retry-after': RETRY_SECONDS } };
    }),
  };
}

export function metricsRoute(operations: OperationsPort): DeclaredRoute {
  return route(METRICS, async () => ({ status: 200, body: await operations.metrics(), contentType: operations.metricsContentType }));
}

// ── declarations (http/endpoint): what the API document says of each route ──

const PLAIN = { type: 'string' } as const;
/** What /health and /ready are to the gateway: probes, answered while the exchange starts, their query strings ignored. */
const PROBE = { probe: true, answersWhileStarting: true, ignoresQuery: true } as const;
export const HEALTH: Endpoint = { method: 'get', path: '/health', tag: 'Operations', summary: 'Liveness', description: 'The process is up and its event loop answers: 200 `ok`, always. Outside every request budget.', auth: false, response: PLAIN, contentType: 'text/plain', errors: [], ...PROBE };
export const READY_ENDPOINT: Endpoint = {
  method: 'get', path: '/ready', tag: 'Operations', summary: 'Readiness', description: 'Whether the exchange should be sent traffic: 200 `ready`, or 503 naming why not (still starting: `replaying journal (seq <n> of <m>)`, during which every route but /health, /ready and /metrics answers 503; the journal failed, a market thread stopped, a stage is behind, shutting down) with `Retry-After`. Outside every request budget.',
  auth: false, response: PLAIN, contentType: 'text/plain', errors: [NOT_READY], ...PROBE,
};
export const METRICS: Endpoint = { method: 'get', path: '/metrics', tag: 'Operations', summary: 'Prometheus metrics', description: 'The Prometheus text format (docs/operations.md lists the series). On the operator port when one is set.', auth: false, response: PLAIN, contentType: 'text/plain', errors: [], operatorListener: true, answersWhileStarting: true, ignoresQuery: true };
