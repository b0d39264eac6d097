/**
 * @module pipeline
 *
 * The whole exchange wired in one place, the numbered stages of a request's path
 * (docs/architecture.md, "The pipeline"):
 *
 *   ① gateway → ② signatures → ③ sequencer + risk → ④ market threads → ⑤ settlement
 *   → ⑥ journal (flushed) + history (projection thread) → ⑦ reply, and ⑧ the feeds (ws/)
 *   once the journal has flushed what they show
 *
 * `startLocked` builds them in that order where nothing forces another, and says at each stage
 * what does: a start runs the path backwards first, the journal replayed into the exchange
 * before any market thread runs. The listener opens before the replay, and the replay lets the
 * event loop in every few milliseconds: /health, /ready (503 with the replay's progress) and
 * /metrics answer, every other request and WebSocket upgrade is refused 503 until the exchange
 * has caught up and serves. Each stage is one small function below or a call into its room;
 * a stop runs them out in order (`stopInOrder`), a failed start is undone in reverse.
 *
 * With `replication` (src/replication, docs/replication.md) the journal also ships each flushed
 * block through the sink it is handed, and the gateway answers as a member of a cluster; the
 * reads every node serves are built by gateway-ports, so a replica serves exactly the primary's.
 *
 * What is not wiring lives in the room that owns it: the data directory's lock and the undoing
 * of a failed start (storage/directory-lock), the start-up replay (sequencer/start-up-replay),
 * the clock (sequencer/clock), the market threads and their router (transport/market-link), the
 * ports the gateway and the feeds are handed (gateway-ports), snapshots (sequencer/snapshot-schedule),
 * the exchange's time every stage reads (sequencer/exchange-time).
 * May import: config/process (types), app/ (exchange types, commands types), auth/ (recovery, signature-pool), history/ (reader, store),
 * journal/journal (types), transport/market-link, sequencer/, storage/ (data-directory,
 * directory-lock, markets-in-use), config/market (types), http/ (gateway, routes/cluster types), ws/ (feeds types, asyncapi), gateway-ports,
 * metrics, log, pino (types), node:path.
 * Nothing imports it but the processes (demo/main, and replication/node, which main starts) and
 * replication/primary (the `Replication` it implements).
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Settings } from './config/process.ts';
import { SignaturePool } from './auth/signature-pool.ts';
import { loadRecoveryBackend } from './auth/recovery.ts';
import type { Exchange, ExchangeOptions } from './app/exchange.ts';
import type { Command } from './app/commands.ts';
import { HistoryReader } from './history/reader.ts';
import { openHistoryDatabases } from './history/store.ts';
import type { Journal } from './journal/journal.ts';
import { exchangeOptionsOf, startMarkets, startState, type StartState } from './sequencer/start-state.ts';
import { recordMarkets } from './sequencer/markets-record.ts';
import type { MarketSpec } from './config/market.ts';
import { StartUpReplay } from './sequencer/start-up-replay.ts';
import type { RecoveryReport } from './sequencer/recovery.ts';
import { SnapshotSchedule } from './sequencer/snapshot-schedule.ts';
import { Sequencer } from './sequencer/sequencer.ts';
import { TestnetFeed } from './sequencer/testnet-feed.ts';
import { ExchangeClock } from './sequencer/clock.ts';
import { ExchangeTime, lastJournaledTime } from './sequencer/exchange-time.ts';
import { accountWrites } from './sequencer/account-writes.ts';
import { MarketLink, routerOver, spawnMarketLinks } from './transport/market-link.ts';
import { openDataDirectory, type DataDirectory } from './storage/data-directory.ts';
import { atMost, holdDataDirectory, type DirectoryLock, type Undo } from './storage/directory-lock.ts';
import { checkMarketsInUse, type MarketsInUse } from './storage/markets-in-use.ts';
import { startGateway, type Gateway } from './http/gateway.ts';
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
  /** The host's clock (ms since the epoch); default `Date.now`. The exchange's time follows it, never going back (sequencer/exchange-time). */
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
const SLOW_FLUSH_MS = 100;
/** How long an abort (a thread died) waits for the journal's flush, at most. */
const ABORT_FLUSH_MS = 2_000;

export function startExchange(settings: Settings, logger: Logger, options: PipelineOptions = {}): Promise<RunningExchange> {
  // One exchange per data directory: a second one on the same journal would corrupt it.
  return holdDataDirectory(settings.dataDir, (lock, undo) => startLocked({ settings, logger, options, clock: options.clock ?? Date.now, metrics: new ExchangeMetrics(), undo }, lock));
}

/** The stages, built in the pipeline's order where nothing forces another (the comments say what does). */
async function startLocked(hostWiring: Wiring, lock: DirectoryLock): Promise<RunningExchange> {
  const { options, metrics } = hostWiring;
  const status = new Status();
  const later: Later = { links: [] };

  // ⑥ first, out of its place: every other stage starts from what the journal and history hold.
  const data = await openJournal(hostWiring, status.threadStopped);
  // Every stage reads the exchange's time, which goes on from the journal's last command and
  // never goes back, whatever the host's clock does (sequencer/exchange-time).
  const time = new ExchangeTime({ host: hostWiring.clock, from: lastJournaledTime(data.journal), logger: hostWiring.logger });
  const wiring: Wiring = { ...hostWiring, clock: time.now };
  data.projections.onThreadStopped = status.threadStopped;
  // ③'s state before ①, its sequencer after ④: the gateway reads the exchange restored from the
  // newest snapshot, and the journal after that snapshot is replayed while the gateway listens.
  const state = restoredState(wiring, data);
  status.starting = () => state.replay.progress();
  const node = nodeParts(wiring, data);
  // ① the gateway listens before the replay; what it calls of the stages built after the replay
  // it reaches through `later`, and it admits nothing that calls them before they exist.
  const server = await listen(wiring, data, state.exchange, node, status, later);
  const replayed = await replayJournal(wiring, data, state, server);
  // ② after the replay, not before: its threads loading while the replay runs made it half as long again.
  const pool = (later.pool = signaturePool(wiring));
  // ④ and ⑧ before ③: the sequencer is handed the market threads and the feeds' relay.
  // ④ the market threads start from the replayed books; ⑤ their events come back to ③ to be settled.
  const links = (later.links = marketThreads(wiring, replayed, later, status.threadStopped));
  // ⑧ the feeds hear what ③ applied and show it once ⑥ has flushed it.
  const streaming = feeds(wiring, data, state.exchange, node);
  later.feeds = streaming.feeds;
  // ③ the sequencer: decides every command in order, journals it (⑥) and routes its book work to ④.
  const sequencer = (later.sequencer = new Sequencer(state.exchange, data.journal, links, data.projections, streaming.relay));
  state.exchange.routeTo(routerOver(links));
  // ⑥'s snapshots, once ③ can name a point with nothing in flight.
  const schedule = (later.snapshots = snapshots(wiring, data, state, sequencer));
  const ticks = await startClock(wiring, state.exchange, node.feed, sequencer);
  // The snapshot thread has loaded before anything is served (SnapshotThread.ready).
  await schedule.ready;

  streaming.feeds.attach(server);
  metrics.readFrom({
    signatures: () => ({ queued: pool.queued, recovered: pool.recovered }),
    rings: () => links.map((l) => l.occupancy()),
    projectionLag: () => data.projections.lag(),
    lastSnapshotAt: () => schedule.lastAt,
    unflushed: () => data.journal.unflushed(),
    sockets: () => server.socketCounts(),
  });
  options.cancel?.throwIfAborted();
  // ⑦ served from here on: every route answers, a write once ⑥ has flushed what it did.
  status.starting = null;

  const stages: Stages = { data, exchange: state.exchange, server, pool, links, feeds: streaming.feeds, sequencer, schedule, ticks, status, lock };
  return {
    port: server.port,
    operatorPort: server.operatorPort,
    sequencer,
    threads: { signatureBackend: pool.backend, signatureThreads: pool.threads, marketThreads: links.length, marketsPerThread: links.map((l) => l.markets.map((m) => m.symbol)) },
    recovery: { snapshotSeq: state.snapshot?.seq ?? 0, commands: replayed.commands, events: replayed.events, recoveredEvents: replayed.recoveredEvents },
    stop: (stopOptions = {}) => stopInOrder(wiring, stages, stopOptions),
    failed: status.failed,
    abort: () => abandon(stages),
  };
}

/** What every stage is built with: the settings, the log and metrics, and the steps that undo a failed start. */
interface Wiring {
  settings: Settings;
  logger: Logger;
  options: PipelineOptions;
  /** The host's clock until the journal is open, the exchange's time (sequencer/exchange-time) from then on. */
  clock: () => number;
  /** What GET /metrics shows; the gauges read the stages once they exist (`readFrom`). */
  metrics: ExchangeMetrics;
  undo: Undo;
}

/** The stages built after the replay, which the gateway (listening before it) reaches once they exist. */
interface Later {
  pool?: SignaturePool;
  sequencer?: Sequencer;
  links: MarketLink[];
  feeds?: Feeds;
  snapshots?: SnapshotSchedule;
}

/** Whether the exchange serves: what the start is still doing, a stop begun, a thread that died. */
class Status {
  /** What the start is still doing (GET /ready says it, every other route is refused with it), null once it serves. */
  starting: (() => string) | null = null;
  /** A stop has begun: /ready says `shutting down` (the drain refuses the requests). */
  stopping = false;
  /** A thread the exchange cannot run without ended on its own: why, once. */
  failure: string | null = null;
  readonly failed: Promise<string>;
  private reportFailure!: (reason: string) => void;

  constructor() {
    this.failed = new Promise<string>((resolve) => (this.reportFailure = resolve));
  }

  readonly threadStopped = (reason: string): void => {
    if (this.failure !== null) return;
    this.failure = reason;
    this.reportFailure(reason);
  };

  /** Why nothing should be sent here, as far as the start, a stop or a dead thread say; null: ask the stages. */
  notServing(): string | null {
    return this.stopping ? 'shutting down' : (this.starting?.() ?? this.failure);
  }
}

/**
 * ⑥ The journal (every accepted command and event, flushed before a reply; snapshots beside it)
 * and history (derived from it, written without flushing), opened and checked to agree; with
 * replication, its sink attached before anything is appended.
 */
async function openJournal({ settings, logger, options, metrics, undo }: Wiring, storageFailed: (reason: string) => void): Promise<DataDirectory> {
  const data = await openDataDirectory(settings.dataDir, logger, {
    onFlush: (records, seconds) => {
      metrics.flushSeconds.observe(seconds);
      metrics.flushRecords.observe(records);
      if (seconds * 1000 > SLOW_FLUSH_MS) logger.warn({ records, ms: Math.round(seconds * 1000) }, 'slow journal flush: replies wait for the disk');
    },
    // Fatal like a thread's death: the state in memory is ahead of what the restart replays.
    onStorageFailed: (error) => storageFailed(error.message),
  });
  // Undone in reverse: the journal's last flush before replication closes (it ships it).
  if (options.replication !== undefined) undo.push(() => options.replication!.close());
  undo.push(() => data.historyEnv.close(), () => data.journal.close());
  await options.replication?.attach(data.journal);
  return data;
}

interface RestoredState {
  exchange: Exchange;
  /** The snapshot it was restored from; none: the journal is replayed from its first record. */
  snapshot: StartState['start'];
  exchangeOptions: ExchangeOptions;
  replay: StartUpReplay;
  /** The markets the exchange was restored under (the journal's there); the markets file applies from the record the start journals after the replay. */
  markets: readonly MarketSpec[];
  marketsInUse: MarketsInUse;
}

/**
 * ③'s state: the newest snapshot that restores (sequencer/start-state), and the replay of the
 * journal after it. Trades count for GET /metrics once the replay is done: the replayed ones are
 * not this process's.
 */
function restoredState({ settings, logger, metrics }: Wiring, { snapshots, journal, projections }: DataDirectory): RestoredState {
  let replay: StartUpReplay | undefined;
  const listeners = withFillCount(withShortfallAlarm(projections.listeners(), logger), metrics, () => replay?.finished === true);
  const exchangeOptions = exchangeOptionsOf(settings);
  // Before the snapshot is read: the markets file must name the markets in their places and units.
  // The state is read and replayed under the journal's markets (sequencer/start-state).
  const marketsInUse = checkMarketsInUse(settings.dataDir, settings.markets);
  const { exchange, start, markets } = startState(snapshots, journal, projections.projectedSeq, startMarkets(journal, marketsInUse.recorded ?? settings.markets), listeners, exchangeOptions, logger);
  projections.identity = (owner) => exchange.ledger.identity(owner);
  replay = new StartUpReplay(exchange, journal, projections, start, logger, metrics);
  return { exchange, snapshot: start, exchangeOptions, replay, markets, marketsInUse };
}

/** What this node serves that the replay does not build: login tokens (the /account/* routes and the feeds' private channels check them), history, the testnet's index feed. */
function nodeParts({ settings, logger, clock }: Wiring, { historyEnv }: DataDirectory) {
  return {
    login: walletLogin(settings, clock, logger),
    history: new HistoryReader(openHistoryDatabases(historyEnv)),
    feed: settings.profile.faucet ? new TestnetFeed(settings.markets) : null,
  };
}

type NodeParts = ReturnType<typeof nodeParts>;

/**
 * ① The gateway, listening before the replay: a long replay shows as a 503 on /ready with its
 * progress (and on every other route), not as a refused connection. The stages it calls that are
 * built after the replay — the signature pool, the sequencer, the market threads, the feeds,
 * snapshots — it reaches in `later`; until the start is done it refuses every request and
 * WebSocket upgrade that would call them (`starting`).
 */
async function listen(wiring: Wiring, { journal, projections }: DataDirectory, exchange: Exchange, node: NodeParts, status: Status, later: Later): Promise<Gateway> {
  const { settings, logger, options, clock, metrics } = wiring;
  const reads = stateReads(settings, exchange, node.history, projections, (market) => node.feed?.isHeld(market) ?? false);
  const submit = (command: Command) => later.sequencer!.submit(command);
  const server = await startGateway({
    host: settings.host,
    port: settings.port,
    trustedProxies: settings.trustedProxies,
    sockets: laterFeeds(() => later.feeds!, options.feedLimits),
    feedsDocument: asyncApiDocument,
    clock,
    logger,
    metrics,
    accessLog: settings.accessLog,
    operatorPort: settings.operatorPort ?? undefined,
    corsOrigins: settings.corsOrigins,
    starting: () => status.starting?.() ?? null,
    operations: {
      notReady: () => status.notServing() ?? journal.problem() ?? later.links.map((l) => l.problem()).find((p) => p !== null) ?? later.sequencer!.overloaded(),
      metrics: () => metrics.text(),
      metricsContentType: metrics.contentType,
    },
    historyRead: () => projections.readable(journal.flushedSeq()),
    ...exchangeApi(settings, reads, node.history, node.login, {
      submit,
      account: accountWrites({ submit }, clock),
      recover: ((...args: Parameters<SignaturePool['recoverTyped']>) => later.pool!.recoverTyped(...args)) as SignaturePool['recoverTyped'],
      snapshot: () => later.snapshots!.take(),
      stateHash: async () => stateReport(exchange, (await Promise.all(later.links.map((l) => l.stateHashes()))).flat(), journal.lastSeq()),
      indexFeed: node.feed ?? undefined,
    }),
    cluster: options.replication?.cluster,
  });
  wiring.undo.push(() => server.close());
  return server;
}

/**
 * The start-up replay (sequencer/start-up-replay), under the journal's markets; then the markets
 * file's, journaled where they change before any command runs under them (sequencer/markets-record).
 * After it history is written on its own thread, the main thread only builds the records.
 */
async function replayJournal({ settings, logger, options, undo, clock }: Wiring, { projections, historyDir, journal }: DataDirectory, state: RestoredState, server: Gateway): Promise<RecoveryReport> {
  const { replay, snapshot } = state;
  // Replay is the long part of a start: the operator sees how much is ahead of it. Records
  // before the snapshot are not replayed; the replay checks every record it reads.
  logger.info({ snapshotSeq: snapshot?.seq ?? 0, lastSeq: replay.to, port: server.port, operatorPort: server.operatorPort }, 'replaying journal');
  const replayed = await replay.run(options.cancel);
  const recorded = recordMarkets(state.exchange, replayed.replay, journal, settings.markets, clock(), logger);
  if (recorded !== null) await journal.durable(recorded);
  state.marketsInUse.adopt(settings.markets);
  projections.startThread(historyDir);
  undo.push(() => projections.terminate());
  return replayed;
}

/** ② Signature recovery off the main thread: native libsecp256k1 where it loads, else noble. */
function signaturePool({ settings, undo }: Wiring): SignaturePool {
  const pool = new SignaturePool({ backend: loadRecoveryBackend('native') !== undefined ? 'native' : 'noble', threads: settings.signatureThreads });
  undo.push(() => pool.close());
  return pool;
}

/** ④ The market threads, from the replayed books; ⑤ each event they send back goes to the sequencer (③), which settles it. */
function marketThreads({ settings, undo }: Wiring, replayed: RecoveryReport, later: Later, threadStopped: (reason: string) => void): MarketLink[] {
  const startBooks = new Map(replayed.books.map((b) => [b.marketIndex, b.snapshot()]));
  const links = spawnMarketLinks(settings.markets, settings.marketThreads, startBooks, (view, bytes, offset) => later.sequencer!.onRecord(view, bytes, offset), () => later.sequencer!.onBatch(), threadStopped);
  undo.push(...links.map((link) => () => link.terminate()));
  return links;
}

/**
 * ⑧ The feeds (ws/): the relay hears book events and numbered account events and hands them on
 * once the journal has flushed them; the feeds fan them out over the gateway's WebSocket.
 */
function feeds({ settings, logger, options, clock, undo }: Wiring, { projections, journal }: DataDirectory, exchange: Exchange, node: NodeParts) {
  const streaming = streamingFeeds(settings, exchange, node.history, projections, journal, node.login, clock, logger, options.feedLimits);
  undo.push(() => streaming.feeds.close());
  return streaming;
}

/**
 * ⑥'s snapshots: the sequencer marks a point S with nothing in flight; the snapshot thread
 * replays the journal to S on its own copy of the exchange and captures, encodes and saves it
 * there. Every later quiet point is at or after the journal's last seq, so past anything flushed.
 */
function snapshots({ settings, logger, metrics, undo }: Wiring, { journal, projections, snapshots: stored }: DataDirectory, state: RestoredState, sequencer: Sequencer): SnapshotSchedule {
  const schedule = new SnapshotSchedule({
    thread: { journalDir: join(settings.dataDir, 'journal'), snapshotsDir: stored.dir, markets: [...state.markets], options: state.exchangeOptions, startSeq: state.snapshot?.seq ?? 0 },
    intervalMs: settings.snapshotIntervalMs,
    points: { quiet: () => sequencer.quietSeq(), latest: () => journal.lastSeq(), followable: () => journal.flushedSeq() },
    journal,
    projections,
    logger,
    onSaved: (seconds) => metrics.snapshotSeconds.observe(seconds),
  });
  undo.push(() => schedule.terminate());
  return schedule;
}

/**
 * The clock (sequencer/clock), more commands into ③: ticks, the testnet's index prices,
 * conditional timers; every market is priced before the gateway serves. It waits while this
 * node may not write.
 */
async function startClock({ settings, logger, options, clock, undo }: Wiring, exchange: Exchange, feed: TestnetFeed | null, sequencer: Sequencer): Promise<ExchangeClock> {
  const idle = () => sequencer.overloaded() !== null || (options.replication?.cluster.writeRefusal() ?? null) !== null;
  const submit = (command: Command) => sequencer.submit(command);
  const ticks = new ExchangeClock({ submit, exchange, markets: settings.markets, feed, now: clock, tickMs: options.tickMs ?? 1000, idle, logger });
  // Any command may bring a conditional timer due sooner (a TWAP's first slice, an untriggered
  // order's expiry): the clock re-arms after each one executes. Book events only use timers up.
  sequencer.afterExecute = () => ticks.rearm();
  await ticks.primePrices();
  ticks.start();
  undo.push(() => ticks.stop());
  return ticks;
}

/** What a running exchange stops and aborts. */
interface Stages {
  data: DataDirectory;
  exchange: Exchange;
  server: Gateway;
  pool: SignaturePool;
  links: MarketLink[];
  feeds: Feeds;
  sequencer: Sequencer;
  schedule: SnapshotSchedule;
  ticks: ExchangeClock;
  status: Status;
  lock: DirectoryLock;
}

/**
 * The stop runs the stages out in the pipeline's order (docs/architecture.md, "Shutdown"). The
 * gateway drains first: no new connections, 503 for every new request, and the requests already
 * running get their answers — their writes journaled and flushed while the signature pool, the
 * sequencer and the journal are still open. Then the market threads finish what they hold, a
 * snapshot is taken, the journal closes, and the signature pool.
 */
async function stopInOrder({ settings, logger, options }: Wiring, stages: Stages, stopOptions: { snapshot?: boolean }): Promise<void> {
  const { data, exchange, server, pool, links, feeds, sequencer, schedule, ticks, status, lock } = stages;
  status.stopping = true;
  feeds.close();
  const unfinished = await server.drain(DRAIN_GRACE_MS);
  if (unfinished > 0) logger.warn({ unfinished, graceMs: DRAIN_GRACE_MS }, 'requests still running after the drain grace: stopping anyway');
  ticks.stop();
  await schedule.close({ snapshot: stopOptions.snapshot });
  sequencer.close();
  await sequencer.idle();
  const books = (await Promise.all(links.map((l) => l.stateHashes()))).flat().sort((a, b) => a.market - b.market).map((b) => ({ market: settings.markets[b.market].symbol, hash: b.hash }));
  for (const link of links) await link.close();
  // This machine's disk, not the replicated copy: replication's close gives the last blocks
  // a moment and leaves the rest to the next start (a stalled cluster must not hang a stop).
  await data.journal.flushedHere();
  logger.info({ lastSeq: data.journal.lastSeq(), stateHash: exchange.stateHash(), books }, 'stopped');
  await data.journal.close();
  await options.replication?.close();
  await pool.close();
  await data.projections.close();
  await data.historyEnv.close();
  lock.release();
}

/** After a thread died (`failed`): what the journal holds gets at most ABORT_FLUSH_MS to reach this machine's disk, and the data directory is let go. */
async function abandon({ ticks, schedule, data, lock }: Stages): Promise<void> {
  ticks.stop();
  schedule.halt();
  await atMost(ABORT_FLUSH_MS, data.journal.flushedHere());
  lock.release();
}
