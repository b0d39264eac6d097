/**
 * @module metrics
 *
 * What the operator's Prometheus scrapes (`GET /metrics`, docs/operations.md): one prom-client
 * registry per exchange, so two exchanges in one process (tests) never mix their figures.
 *
 * Cost on the order path. prom-client finds a labelled series by a string it builds from the
 * labels on every `inc`/`observe`; the order path does not pay for that:
 *  - per request: a plain count, and one histogram observation through a child cached per
 *    (route, status) — the label object is made once; prom-client's own key string is the only
 *    per-request work;
 *  - per order, per fill, per refusal: a plain number (or a Map entry per refusal reason)
 *    incremented in place; prom-client reads them when it is scraped (`collect`);
 *  - gauges (queues, rings, lag, snapshot age) are read only when scraped.
 * Per flush (not per order): the journal flush's duration and batch size are observed directly.
 *
 * Reasons are the names of the code tables' entries (`InsufficientMargin`, `Overloaded`…), so a
 * dashboard reads them without the tables; a refusal without a code is named by its status.
 * May import: prom-client, http/ports (types), app/ports (types), auth/codes, ledger/codes,
 * engine/codes, conditional/codes, app/codes, http/errors (the code tables).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { AuthCode } from './auth/codes.ts';
import { ConditionalCode } from './conditional/codes.ts';
import { EngineCode } from './engine/codes.ts';
import { GatewayCode } from './http/errors.ts';
import { LedgerCode } from './ledger/codes.ts';
import { ExchangeCode } from './app/codes.ts';
import type { GatewayMetrics } from './http/ports.ts';
import type { ExchangeListeners } from './app/ports.ts';

const PREFIX = 'perp_';

/** Code → its name in its table; the tables' ranges do not overlap. */
const CODE_NAMES = new Map<number, string>();
for (const table of [AuthCode, LedgerCode, EngineCode, ConditionalCode, ExchangeCode, GatewayCode] as Record<string, number>[]) {
  for (const [name, code] of Object.entries(table)) if (!CODE_NAMES.has(code)) CODE_NAMES.set(code, name);
}
const STATUS_NAMES: Record<number, string> = { 413: 'BodyTooLarge', 429: 'RateLimited' };

/** The `reason` label of a refusal: its code's name, or its status's. */
export function refusalReason(code: number | undefined, status: number): string {
  return (code === undefined ? undefined : CODE_NAMES.get(code)) ?? STATUS_NAMES[status] ?? `Status${status}`;
}

/** What the metrics read from the running exchange when scraped. */
export interface MetricSources {
  /** Signatures waiting for a thread, and signatures recovered so far. */
  signatures(): { queued: number; recovered: number };
  /** Per market thread: command ring slots in use, its capacity, and commands waiting beyond it. */
  rings(): Array<{ used: number; capacity: number; overflow: number }>;
  /** Journal records not yet written to history (0 when it has caught up). */
  projectionLag(): number;
  /** Unix time (s) of the last snapshot this process saved, or null before the first. */
  lastSnapshotAt(): number | null;
  /** Journal records appended and not yet flushed. */
  unflushed(): number;
  /** The feeds' WebSocket figures (http/uws `socketCounts`). */
  sockets(): { open: number; received: number; sent: number; published: number };
}

/** A route as the request histogram labels it. */
export interface RouteLabel {
  method: string;
  pattern: string;
}

/** One (route, method, status) series: its labels, its count, its latency histogram's child. */
interface RequestSeries {
  readonly labels: Readonly<Record<'route' | 'method' | 'status', string>>;
  count: number;
  readonly seconds: { observe(value: number): void };
}

export class ExchangeMetrics implements GatewayMetrics {
  readonly registry = new Registry();
  private sources: MetricSources | null = null;

  // Plain counts, read at scrape time (see the module header).
  private accepted = 0;
  private fills = 0;
  private readonly refused = new Map<string, number>();

  private readonly requestSeconds = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'HTTP requests by route pattern, method and status: latency from the request to its answer',
    labelNames: ['route', 'method', 'status'],
    // A read is answered in tens of microseconds, a write after its flush (milliseconds).
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  /** Per route (by index): the series of each status, made at the first request that gets it. */
  private readonly requestChildren: Array<Map<number, RequestSeries>> = [];
  private routes: readonly RouteLabel[] = [];

  readonly flushSeconds = new Histogram({
    name: `${PREFIX}journal_flush_duration_seconds`,
    help: 'Journal group commits: time from the flush request until the records are on disk',
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly flushRecords = new Histogram({
    name: `${PREFIX}journal_flush_records`,
    help: 'Journal group commits: records per flush',
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 10000],
    registers: [this.registry],
  });
  readonly snapshotSeconds = new Histogram({
    name: `${PREFIX}snapshot_duration_seconds`,
    help: 'Snapshots: time from the request until the snapshot is saved and flushed',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly replayRecords = new Gauge({ name: `${PREFIX}replay_records`, help: 'Journal records replayed at start-up (after the snapshot it began from)', registers: [this.registry] });
  readonly replayTotal = new Gauge({ name: `${PREFIX}replay_records_expected`, help: 'Journal records the start-up replay had to read', registers: [this.registry] });
  readonly replaySeconds = new Gauge({ name: `${PREFIX}replay_duration_seconds`, help: 'How long the start-up replay took', registers: [this.registry] });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    const self = this;
    new Counter({
      name: `${PREFIX}http_requests_total`,
      help: 'HTTP requests answered, by route pattern, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const children of self.requestChildren) for (const series of children.values()) this.inc(series.labels, series.count);
      },
    });
    new Counter({
      name: `${PREFIX}orders_accepted_total`,
      help: 'Orders the exchange accepted (each order of a batch counts)',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(self.accepted);
      },
    });
    new Counter({
      name: `${PREFIX}orders_refused_total`,
      help: 'Order submissions refused (a refused batch counts once), by reason: the refusal code\'s name',
      labelNames: ['reason'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [reason, count] of self.refused) this.inc({ reason }, count);
      },
    });
    new Counter({
      name: `${PREFIX}fills_total`,
      help: 'Trades (one per maker order filled) since the process started',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(self.fills);
      },
    });
    const gauge = (name: string, help: string, read: (g: Gauge) => void, labelNames: string[] = []) =>
      new Gauge({
        name: PREFIX + name,
        help,
        labelNames,
        registers: [this.registry],
        collect() {
          if (self.sources !== null) read(this);
        },
      });
    gauge('signature_queue', 'Signatures waiting for a verification thread', (g) => g.set(self.sources!.signatures().queued));
    new Counter({
      name: `${PREFIX}signatures_recovered_total`,
      help: 'Signatures the verification threads recovered (rate() is the pool\'s throughput)',
      registers: [this.registry],
      collect() {
        if (self.sources === null) return;
        this.reset();
        this.inc(self.sources.signatures().recovered);
      },
    });
    gauge(
      'ring_occupancy_ratio',
      'Per market thread: share of its command ring in use (1 = full: writes are refused 503)',
      (g) => self.sources!.rings().forEach((r, i) => g.set({ thread: String(i) }, r.used / r.capacity)),
      ['thread'],
    );
    gauge(
      'ring_overflow_commands',
      'Per market thread: commands waiting beyond its full ring',
      (g) => self.sources!.rings().forEach((r, i) => g.set({ thread: String(i) }, r.overflow)),
      ['thread'],
    );
    gauge('projection_lag_records', 'Journal records not yet written to history', (g) => g.set(self.sources!.projectionLag()));
    gauge('journal_unflushed_records', 'Journal records appended and not yet flushed', (g) => g.set(self.sources!.unflushed()));
    gauge('ws_connections', 'WebSocket connections open (the feeds)', (g) => g.set(self.sources!.sockets().open));
    const socketCounter = (name: string, help: string, read: (c: ReturnType<MetricSources['sockets']>) => number) =>
      new Counter({
        name: PREFIX + name,
        help,
        registers: [this.registry],
        collect() {
          if (self.sources === null) return;
          this.reset();
          this.inc(read(self.sources.sockets()));
        },
      });
    socketCounter('ws_messages_received_total', 'WebSocket messages received from clients', (c) => c.received);
    socketCounter('ws_messages_sent_total', 'WebSocket messages sent to one connection (replies, snapshots, account events)', (c) => c.sent);
    socketCounter('ws_messages_published_total', 'WebSocket messages published to a topic (each reaches every subscriber: book deltas, trades, heartbeats)', (c) => c.published);
    gauge('snapshot_age_seconds', 'Seconds since this process last saved a snapshot (NaN before its first)', (g) => {
      const at = self.sources!.lastSnapshotAt();
      g.set(at === null ? NaN : performance.now() / 1000 - at);
    });
  }

  /** Connects the gauges to the running exchange. */
  readFrom(sources: MetricSources): void {
    this.sources = sources;
  }

  /** The routes requests are observed for, by index (`request(index, …)`). */
  observeRoutes(routes: readonly RouteLabel[]): void {
    this.routes = routes;
    this.requestChildren.length = 0;
    for (let i = 0; i < routes.length; i++) this.requestChildren.push(new Map());
  }

  /** A request to route `index` answered with `status` after `seconds`. */
  request(index: number, status: number, seconds: number): void {
    const children = this.requestChildren[index];
    let child = children.get(status);
    if (child === undefined) {
      const route = this.routes[index];
      const labels = { route: route.pattern, method: route.method, status: String(status) };
      child = { labels, count: 0, seconds: this.requestSeconds.labels(labels) };
      children.set(status, child);
    }
    child.count++;
    child.seconds.observe(seconds);
  }

  ordersAccepted(count: number): void {
    this.accepted += count;
  }

  orderRefused(code: number | undefined, status: number): void {
    const reason = refusalReason(code, status);
    this.refused.set(reason, (this.refused.get(reason) ?? 0) + 1);
  }

  fill(): void {
    this.fills++;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** Counts every trade for GET /metrics while `counting` (not during the start-up replay). */
export function withFillCount(listeners: ExchangeListeners, metrics: ExchangeMetrics, counting: () => boolean): ExchangeListeners {
  const next = listeners.trade;
  return {
    ...listeners,
    trade: (market, seq, time, price, quantity, takerSide) => {
      next?.(market, seq, time, price, quantity, takerSide);
      if (counting()) metrics.fill();
    },
  };
}
