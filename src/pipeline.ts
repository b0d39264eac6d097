/**
 * @module pipeline
 *
 * The whole exchange wired in one place. Read top to bottom, it is the path of a request:
 *
 *   ① gateway → ② signatures → ③ sequencer + risk → ④ market threads → ⑤ settlement
 *   → ⑥ journal (flushed) + history (projection thread) → ⑦ reply, and ⑧ the feeds (ws/feeds)
 *   once the journal has flushed what they show
 *
 * Start-up runs the same path backwards first: the journal is replayed into the exchange
 * before any market thread runs. The listener opens before the replay, and the replay lets the
 * event loop in every few milliseconds: /health, /ready (503 with the replay's progress) and
 * /metrics answer, every other request and WebSocket upgrade is refused 503 until the exchange
 * has caught up and serves.
 * docs/architecture.md explains each boundary.
 *
 * With `replication` (src/replication, docs/replication.md) the journal also ships each flushed
 * block through the sink it is handed, and the gateway answers as a member of a cluster; the
 * reads every node serves are built by gateway-ports, so a replica serves exactly the primary's.
 *
 * What is not wiring lives in the room that owns it: the data directory's lock and the undoing
 * of a failed start (storage/directory-lock), the start-up replay (sequencer/start-up-replay),
 * the clock (sequencer/clock), the market threads and their router (transport/market-link), the
 * ports the gateway and the feeds are handed (gateway-ports), snapshots (sequencer/snapshot-schedule).
 * May import: every room it wires: config/, auth/, history/, journal/ (types), transport/,
 * sequencer/, storage/, http/, ws/feeds (types), ws/asyncapi, gateway-ports, metrics, log; pino, node:path.
 * Nothing imports it but the processes (main, demo, replication/node) and replication/primary
 * (the `Replication` it implements).
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Settings } from './config/process.ts';
import { SignaturePool } from './auth/signature-pool.ts';
import { loadRecoveryBackend } from './auth/recovery.ts';
import { HistoryReader } from './history/reader.ts';
import { openHistoryDatabases } from './history/store.ts';
import type { Journal } from './journal/journal.ts';
import { exchangeOptionsOf, startState } from './sequencer/start-state.ts';
import { StartUpReplay } from './sequencer/start-up-replay.ts';
import { SnapshotSchedule } from './sequencer/snapshot-schedule.ts';
import { Sequencer } from './sequencer/sequencer.ts';
import { TestnetFeed } from './sequencer/testnet-feed.ts';
import { ExchangeClock } from './sequencer/clock.ts';
import { accountWrites } from './sequencer/account-writes.ts';
import { MarketLink, routerOver, spawnMarketLinks } from './transport/market-link.ts';
import { openDataDirectory } from './storage/data-directory.ts';
import { atMost, holdDataDirectory, type DirectoryLock, type Undo } from './storage/directory-lock.ts';
import { startGateway } from './http/gateway.ts';
import type { ClusterPort } from './http/routes/cluster.ts';
import type { Feeds, FeedLimits } from './ws/feeds.ts';
import { asyncApiDocument } from './ws/asyncapi.ts';
import { exchangeApi, laterFeeds, stateReads, stateReport, streamingFeeds, walletLogin } from './gateway-ports.ts';
import { ExchangeMetrics, withFillCount } from './metrics.ts';
import { withShortfallAlarm } from './log.ts';

export interface RunningExchange {
  port: number;
  /** The operator listener's port (127.0.0.1), or null when the operator API is on `port`. */
  operatorPort: number | null;
  sequencer: Sequencer;
  /** What runs: the signature backend and the threads (the start-up log line says it). */
  threads: { signatureBackend: 'native' | 'noble'; signatureThreads: number; marketThreads: number; marketsPerThread: string[][] };
  /** What start-up rebuilt: the snapshot it began from and the journal records it replayed after it. */
  recovery: { snapshotSeq: number; commands: number; events: number; recoveredEvents: number };
  /** Stops cleanly; `snapshot: false` skips the shutdown snapshot (tests use it to start from an older one). */
  stop(options?: { snapshot?: boolean }): Promise<void>;
  /**
   * Resolves, once, with the reason when a thread the exchange cannot run without ends on its
   * own (a market thread, the projection thread): from then on every write is refused (503) and
   * nothing waits on it, but no stop can finish either — call `abort` and end the process.
   */
  failed: Promise<string>;
  /**
   * After `failed`: gives what the journal holds at most ABORT_FLUSH_MS to reach this machine's
   * disk and lets go of the data directory. The threads are left as they are: exit next.
   */
  abort(): Promise<void>;
}

export interface PipelineOptions {
  clock?: () => number;
  /** Milliseconds between clock ticks (expiry, funding, liquidations, the testnet feed); default 1000. */
  tickMs?: number;
  /** The streaming feeds' limits (tests and benchmarks change them); docs/feeds.md has the defaults. */
  feedLimits?: Partial<FeedLimits>;
  /** The journal shipped to other machines (src/replication); absent: the embedded single process. */
  replication?: Replication;
  /**
   * A stop asked for while the start is still running (SIGTERM during a long replay): the start
   * gives up at its next pause, frees what it opened (listener, threads, stores, LOCK) and
   * rejects with the signal's reason. Nothing is lost: nothing was accepted yet.
   */
  cancel?: AbortSignal;
}

/** What the pipeline needs of replication (docs/replication.md): the consumer owns the interface. */
export interface Replication {
  /** Called once the journal is open, before anything is appended: ships what it must, then attaches its sink (`journal.ship`). */
  attach(journal: Journal): Promise<void>;
  /** GET /cluster, refusals while not the primary, the lag header. */
  cluster: ClusterPort;
  /** After the journal closed: the last blocks shipped, the connection closed. */
  close(): Promise<void>;
}

/**
 * How long a stop waits for the requests already running (a write waits for its flush, a few
 * milliseconds; this bounds a stuck one) before closing what they use. Well inside the 10 s a
 * process manager (Docker, systemd's default is longer) gives between SIGTERM and SIGKILL.
 */
const DRAIN_GRACE_MS = 5_000;
/** A journal flush slower than this is logged at warn: the disk is holding every write's reply back. */
export const SLOW_FLUSH_MS = 100;
/** How long an abort (a thread died) waits for the journal's flush, at most. */
const ABORT_FLUSH_MS = 2_000;

export function startExchange(settings: Settings, logger: Logger, options: PipelineOptions = {}): Promise<RunningExchange> {
  // One exchange per data directory: a second one on the same journal would corrupt it.
  return holdDataDirectory(settings.dataDir, (lock, undo) => startLocked(settings, logger, options, lock, undo));
}

async function startLocked(settings: Settings, logger: Logger, options: PipelineOptions, lock: DirectoryLock, undo: Undo): Promise<RunningExchange> {
  const clock = options.clock ?? Date.now;
  const { markets, profile } = settings;
  // What GET /metrics shows; the gauges read the parts below once they exist (`readFrom`).
  const metrics = new ExchangeMetrics();

  // ⑥ the journal (every accepted command and event, flushed before a reply; snapshots beside
  // it) and history (derived from it, written without flushing): opened and checked to agree
  const { snapshots, journal, historyDir, historyEnv, projections } = await openDataDirectory(settings.dataDir, logger, {
    onFlush: (records, seconds) => {
      metrics.flushSeconds.observe(seconds);
      metrics.flushRecords.observe(records);
      if (seconds * 1000 > SLOW_FLUSH_MS) logger.warn({ records, ms: Math.round(seconds * 1000) }, 'slow journal flush: replies wait for the disk');
    },
  });
  // Undone in reverse: the journal's last flush before replication closes (it ships it).
  if (options.replication !== undefined) undo.push(() => options.replication!.close());
  undo.push(() => historyEnv.close(), () => journal.close());
  await options.replication?.attach(journal);

  // A thread the exchange cannot run without ended on its own: `failed` says why, once.
  let failure: string | null = null;
  let reportFailure!: (reason: string) => void;
  const failed = new Promise<string>((resolve) => (reportFailure = resolve));
  const threadStopped = (reason: string) => {
    if (failure !== null) return;
    failure = reason;
    reportFailure(reason);
  };
  projections.onThreadStopped = threadStopped;

  // ③ the exchange's state: the newest snapshot that restores (sequencer/start-state), then the
  // journal after it. Trades count for GET /metrics once the replay is done: the replayed ones
  // are not this process's.
  let replay: StartUpReplay | undefined;
  const listeners = withFillCount(withShortfallAlarm(projections.listeners(), logger), metrics, () => replay?.finished === true);
  const exchangeOptions = exchangeOptionsOf(settings);
  const { exchange, start } = startState(snapshots, projections.projectedSeq, markets, listeners, exchangeOptions, logger);
  projections.identity = (owner) => exchange.ledger.identity(owner);
  replay = new StartUpReplay(exchange, journal, projections, start, logger, metrics);
  /** What the start is still doing (GET /ready says it, every other route is refused with it), null once it serves. */
  let starting: (() => string) | null = () => replay.progress();

  // What the gateway needs that the replay does not build: login tokens (the /account/* routes
  // and the feeds' private channels check them), history, the testnet's index feed. The rest is
  // set once the replay is done and refused by the gateway before — the signature pool too: its
  // threads loading while the replay runs made it half as long again (measured on 2 cores).
  const login = walletLogin(settings, clock, logger);
  const history = new HistoryReader(openHistoryDatabases(historyEnv));
  const feed = profile.faucet ? new TestnetFeed(markets) : null;
  let sequencer: Sequencer | undefined;
  let links: MarketLink[] = [];
  let feeds: Feeds | undefined;
  let snapshotSchedule: SnapshotSchedule | undefined;
  let pool: SignaturePool | undefined;

  // ① the gateway listens before the replay: a long replay shows as a 503 on /ready with its
  // progress (and on every other route), not as a refused connection
  const reads = stateReads(settings, exchange, history, projections, (market) => feed?.isHeld(market) ?? false);
  const submit = (command: Parameters<Sequencer['submit']>[0]) => sequencer!.submit(command);
  let stopping = false;
  const server = await startGateway({
    host: settings.host,
    port: settings.port,
    trustedProxies: settings.trustedProxies,
    sockets: laterFeeds(() => feeds!, options.feedLimits),
    feedsDocument: asyncApiDocument,
    clock,
    logger,
    metrics,
    accessLog: settings.accessLog,
    operatorPort: settings.operatorPort ?? undefined,
    corsOrigins: settings.corsOrigins,
    starting: () => starting?.() ?? null,
    operations: {
      notReady: () => (stopping ? 'shutting down' : starting?.() ?? failure ?? journal.problem() ?? links.map((l) => l.problem()).find((p) => p !== null) ?? sequencer!.overloaded()),
      metrics: () => metrics.text(),
      metricsContentType: metrics.contentType,
    },
    historyRead: () => projections.readable(journal.flushedSeq()),
    ...exchangeApi(settings, reads, history, login, {
      submit,
      account: accountWrites({ submit }, clock),
      recover: ((...args: Parameters<SignaturePool['recoverTyped']>) => pool!.recoverTyped(...args)) as SignaturePool['recoverTyped'],
      snapshot: () => snapshotSchedule!.take(),
      stateHash: async () => stateReport(exchange, (await Promise.all(links.map((l) => l.stateHashes()))).flat(), journal.lastSeq()),
      indexFeed: feed ?? undefined,
    }),
    cluster: options.replication?.cluster,
  });
  undo.push(() => server.close());

  // Replay is the long part of a start: the operator sees how much is ahead of it. Records
  // before the snapshot are not replayed; the replay checks every record it reads.
  logger.info({ snapshotSeq: start?.seq ?? 0, lastSeq: replay.to, port: server.port, operatorPort: server.operatorPort }, 'replaying journal');
  const replayed = await replay.run(options.cancel);
  // From here on history is written on its own thread; the main thread only builds the records.
  projections.startThread(historyDir);
  undo.push(() => projections.terminate());

  // ④ market threads, starting from the replayed books; ⑤ their events come back to the sequencer
  const startBooks = new Map(replayed.books.map((b) => [b.marketIndex, b.snapshot()]));
  links = spawnMarketLinks(markets, settings.marketThreads, startBooks, (view, bytes, offset) => sequencer!.onRecord(view, bytes, offset), () => sequencer!.onBatch(), threadStopped);
  undo.push(...links.map((link) => () => link.terminate()));

  // ⑧ the feeds: the relay hears book events and numbered account events and hands them on once
  // the journal has flushed them; the feeds (ws/) fan them out over the gateway's WebSocket
  const streaming = streamingFeeds(settings, exchange, history, projections, journal, login, clock, logger, options.feedLimits);
  feeds = streaming.feeds;
  undo.push(() => streaming.feeds.close());
  sequencer = new Sequencer(exchange, journal, links, projections, streaming.relay);
  exchange.routeTo(routerOver(links));

  // snapshots: the sequencer marks a point S with nothing in flight; the snapshot thread replays
  // the journal to S on its own copy of the exchange and captures, encodes and saves it there.
  // Every later quiet point is at or after the journal's last seq, so past anything flushed.
  const schedule = new SnapshotSchedule({
    thread: { journalDir: join(settings.dataDir, 'journal'), markets: [...markets], options: exchangeOptions, startSeq: start?.seq ?? 0 },
    intervalMs: settings.snapshotIntervalMs,
    points: { quiet: () => sequencer!.quietSeq(), latest: () => journal.lastSeq(), followable: () => journal.flushedSeq() },
    journal,
    projections,
    logger,
    onSaved: (seconds) => metrics.snapshotSeconds.observe(seconds),
  });
  snapshotSchedule = schedule;
  undo.push(() => schedule.terminate());

  // ② signature recovery off the main thread: native libsecp256k1 where it loads, else noble
  const backend = loadRecoveryBackend('native') !== undefined ? 'native' : 'noble';
  pool = new SignaturePool({ backend, threads: settings.signatureThreads });
  undo.push(() => pool!.close());

  // the clock (sequencer/clock): ticks, the testnet's index prices, conditional timers; every
  // market is priced before the gateway serves. It waits while this node may not write.
  const idle = () => sequencer!.overloaded() !== null || (options.replication?.cluster.writeRefusal() ?? null) !== null;
  const ticks = new ExchangeClock({ submit, exchange, markets, feed, now: clock, tickMs: options.tickMs ?? 1000, idle, logger });
  // Any command may bring a conditional timer due sooner (a TWAP's first slice, an untriggered
  // order's expiry): the clock re-arms after each one executes. Book events only use timers up.
  sequencer.afterExecute = () => ticks.rearm();
  await ticks.primePrices();
  ticks.start();
  undo.push(() => ticks.stop());

  // The snapshot thread has loaded before anything is served (SnapshotThread.ready).
  await schedule.ready;

  streaming.feeds.attach(server);
  metrics.readFrom({
    signatures: () => ({ queued: pool.queued, recovered: pool.recovered }),
    rings: () => links.map((l) => l.occupancy()),
    projectionLag: () => projections.lag(),
    lastSnapshotAt: () => schedule.lastAt,
    unflushed: () => journal.unflushed(),
    sockets: () => server.socketCounts(),
  });
  options.cancel?.throwIfAborted();
  // Served from here on.
  starting = null;

  return {
    port: server.port,
    operatorPort: server.operatorPort,
    sequencer,
    threads: { signatureBackend: backend, signatureThreads: pool.threads, marketThreads: links.length, marketsPerThread: links.map((l) => l.markets.map((m) => m.symbol)) },
    recovery: { snapshotSeq: start?.seq ?? 0, commands: replayed.commands, events: replayed.events, recoveredEvents: replayed.recoveredEvents },
    async stop(stopOptions = {}) {
      // Drain the gateway first: no new connections, 503 for every new request, and the requests
      // already running get their answers — their writes journaled and flushed while the
      // signature pool, the sequencer and the journal are still open. Then the market threads
      // finish what they hold, a snapshot is taken, and the journal closes.
      stopping = true;
      streaming.feeds.close();
      const unfinished = await server.drain(DRAIN_GRACE_MS);
      if (unfinished > 0) logger.warn({ unfinished, graceMs: DRAIN_GRACE_MS }, 'requests still running after the drain grace: stopping anyway');
      ticks.stop();
      await schedule.close({ snapshot: stopOptions.snapshot });
      sequencer!.close();
      await sequencer!.idle();
      const books = (await Promise.all(links.map((l) => l.stateHashes()))).flat().sort((a, b) => a.market - b.market).map((b) => ({ market: markets[b.market].symbol, hash: b.hash }));
      for (const link of links) await link.close();
      // This machine's disk, not the replicated copy: replication's close gives the last blocks
      // a moment and leaves the rest to the next start (a stalled cluster must not hang a stop).
      await journal.flushedHere();
      logger.info({ lastSeq: journal.lastSeq(), stateHash: exchange.stateHash(), books }, 'stopped');
      await journal.close();
      await options.replication?.close();
      await pool.close();
      await projections.close();
      await historyEnv.close();
      lock.release();
    },
    failed,
    async abort() {
      ticks.stop();
      schedule.halt();
      await atMost(ABORT_FLUSH_MS, journal.flushedHere());
      lock.release();
    },
  };
}
