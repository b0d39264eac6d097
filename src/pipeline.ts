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
 * reads every node serves (`stateReads`, `stateReport`, `walletLogin`) are here so a replica
 * serves exactly the primary's.
 * May import: every room it wires: config/, numeric/, ledger/, auth/, history/, journal/, app/, transport/,
 * sequencer/, storage/, http/, ws/, replication/,
 * metrics; pino, node:fs, node:path. Nothing imports it but the processes (main, demo).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Settings } from './config/process.ts';
import { COLLATERAL_SCALE, type MarketSpec } from './config/market.ts';
import { formatDecimal } from './numeric/decimal.ts';
import type { MoneyReport } from './ledger/ledger.ts';
import { publishedTypedData, eip712Domain } from './auth/typed-data.ts';
import { SignaturePool } from './auth/signature-pool.ts';
import { loadRecoveryBackend } from './auth/recovery.ts';
import { WalletLogin } from './auth/login.ts';
import { HistoryReader } from './history/reader.ts';
import { openHistoryDatabases } from './history/store.ts';
import type { Exchange } from './app/exchange.ts';
import type { ExchangeListeners, MarketRouter } from './app/ports.ts';
import type { OrderState } from './app/order-registry.ts';
import { recoverPausing } from './sequencer/recovery.ts';
import { startState } from './sequencer/start-state.ts';
import { SnapshotSchedule } from './sequencer/snapshot-schedule.ts';
import { MarketLink } from './transport/market-link.ts';
import { Sequencer } from './sequencer/sequencer.ts';
import { openDataDirectory } from './storage/data-directory.ts';
import { lockDataDirectory, type DirectoryLock } from './storage/directory-lock.ts';
import { tokenSecretOf } from './storage/token-secret.ts';
import { TestnetFeed } from './sequencer/testnet-feed.ts';
import { CommandKind } from './app/commands.ts';
import { accountWrites } from './sequencer/account-writes.ts';
import { FeedRelay } from './sequencer/feed-relay.ts';
import { startGateway } from './http/gateway.ts';
import { Feeds, feedSocketSettings, type FeedLimits } from './ws/feeds.ts';
import type { SocketEndpoint } from './http/uws.ts';
import type { MarketDataPort, OrdersPort, PriceSource } from './http/ports.ts';
import type { ClusterPort } from './http/routes/cluster.ts';
import type { OperatorPort } from './http/routes/operator.ts';
import type { Journal } from './journal/journal.ts';
import type { Projections } from './history/projections.ts';
import type { AccountApiOptions } from './http/account-routes.ts';
import { ExchangeMetrics } from './metrics.ts';


/** How often the conditional timers are checked for a due TWAP slice or expiry (ms): their precision. */
export const RELEASE_POLL_MS = 5;
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
/** During a long start-up replay, a progress line this often. */
const REPLAY_PROGRESS_MS = 5_000;
/** During the start-up replay the listener answers at least this often (a probe's wait, at most). */
const REPLAY_PAUSE_EVERY_MS = 20;
/** How long an abort (a thread died) or a failed start waits for the journal's flush, at most. */
const ABORT_FLUSH_MS = 2_000;

/** `work`, or nothing once `ms` have passed: what a failing process must not wait on for long. */
function atMost(ms: number, work: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work.catch(() => {}), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

/**
 * What a start opened, closed in reverse order when the start fails after the data directory
 * is locked (the port was taken during the replay, say): no thread, handle or LOCK outlives it.
 */
type Undo = Array<() => unknown>;

/** Splits markets over `count` threads, round-robin. */
function groups(markets: readonly MarketSpec[], count: number): MarketSpec[][] {
  const out: MarketSpec[][] = Array.from({ length: Math.max(1, Math.min(count, markets.length)) }, () => []);
  markets.forEach((m, i) => out[i % out.length].push(m));
  return out;
}

export async function startExchange(settings: Settings, logger: Logger, options: PipelineOptions = {}): Promise<RunningExchange> {
  mkdirSync(settings.dataDir, { recursive: true });
  // One exchange per data directory: a second one on the same journal would corrupt it.
  const lock = lockDataDirectory(settings.dataDir);
  const undo: Undo = [];
  try {
    return await startLocked(settings, logger, options, lock, undo);
  } catch (error) {
    // Threads first (they use the stores), then the stores; each step on its own, none for long.
    for (const step of undo.reverse()) await atMost(ABORT_FLUSH_MS, Promise.resolve().then(step));
    lock.release();
    throw error;
  }
}

async function startLocked(settings: Settings, logger: Logger, options: PipelineOptions, lock: DirectoryLock, undo: Undo): Promise<RunningExchange> {
  const clock = options.clock ?? Date.now;
  const { markets, profile } = settings;
  const symbolOf = (market: number) => markets[market].symbol;
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
  // journal after it.
  // Trades are counted for GET /metrics once the replay is done: the replayed ones are not this process's.
  let replaying = true;
  const listeners = withFillCount(withShortfallAlarm(projections.listeners(), logger), metrics, () => !replaying);
  const exchangeOptions = { ledger: { faucet: profile.faucet }, accountLimits: { minTransfer: settings.minTransfer, maxSubaccounts: settings.maxSubaccounts } };
  const { exchange, start } = startState(snapshots, projections.projectedSeq, markets, listeners, exchangeOptions, logger);
  projections.identity = (owner) => exchange.ledger.identity(owner);
  const replayFrom = (start?.seq ?? 0) + 1;
  const replayTo = journal.lastSeq();
  /** The record the replay is at. */
  let replayAt = replayFrom - 1;
  /** What the start is still doing (GET /ready says it, every other route is refused with it), null once it serves. */
  let starting: (() => string) | null = () => `replaying journal (seq ${replayAt} of ${replayTo})`;

  // What the gateway needs that the replay does not build.
  // login tokens: the gateway's /account/* routes and the feeds' private channels check them
  const domain = eip712Domain(profile);
  const login = walletLogin(settings, clock, logger);
  const history = new HistoryReader(openHistoryDatabases(historyEnv));
  // the testnet's built-in index feed (the clock below drives it)
  const feed = profile.faucet ? new TestnetFeed(markets) : null;
  // Set once the replay is done (below); the gateway refuses every request that would reach them
  // before. The signature pool too: its threads load while the replay runs otherwise, and it took
  // half as long again (measured on 2 cores).
  let sequencer: Sequencer | undefined;
  let links: MarketLink[] = [];
  let feeds: Feeds | undefined;
  let snapshotSchedule: SnapshotSchedule | undefined;
  let pool: SignaturePool | undefined;

  // ① the gateway listens before the replay: a long replay shows as a 503 on /ready with its
  // progress (and on every other route), not as a refused connection
  const reads = stateReads(settings, exchange, history, projections, (market) => feed?.isHeld(market) ?? false);
  let stopping = false;
  const server = await startGateway({
    host: settings.host,
    port: settings.port,
    trustedProxies: settings.trustedProxies,
    sockets: laterFeeds(() => feeds!, options.feedLimits),
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
    marketData: reads.marketData,
    history,
    historyRead: () => projections.readable(journal.flushedSeq()),
    prices: reads.prices,
    accounts: {
      ...reads.accounts,
      writes: accountWrites({ submit: (command) => sequencer!.submit(command) }, clock),
      auth: { login, domain, recover: ((...args: Parameters<SignaturePool['recoverTyped']>) => pool!.recoverTyped(...args)) as SignaturePool['recoverTyped'] },
    },
    orders: { ...reads.orders, submit: (command) => sequencer!.submit(command) },
    operator: {
      key: settings.operatorKey,
      port: {
        submit: (command) => sequencer!.submit(command),
        indexFeed: feed ?? undefined,
        snapshot: () => snapshotSchedule!.take(),
        stateHash: async () => stateReport(exchange, (await Promise.all(links.map((l) => l.stateHashes()))).flat(), journal.lastSeq()),
      },
    },
    cluster: options.replication?.cluster,
  });
  undo.push(() => server.close());

  // Records before the snapshot are not replayed; the replay checks every record it reads.
  // Replay is the long part of a start: the operator sees how much is ahead of it.
  logger.info({ snapshotSeq: start?.seq ?? 0, lastSeq: replayTo, port: server.port, operatorPort: server.operatorPort }, 'replaying journal');
  const replayStarted = performance.now();
  let replayReported = replayStarted;
  metrics.replayTotal.set(Math.max(0, replayTo - replayFrom + 1));
  const replayed = await recoverPausing(exchange, journal, {
    from: replayFrom,
    books: start?.saved.books ?? [],
    pauseEveryMs: REPLAY_PAUSE_EVERY_MS,
    cancel: options.cancel,
    onRecord: (seq) => {
      projections.applying = seq;
      // Progress every 256 records, the clock every 4,096: the replay's own pace is untouched.
      // (The last call, past the end, is neither.)
      if ((seq & 255) !== 0) return;
      replayAt = seq;
      metrics.replayRecords.set(seq - replayFrom + 1);
      if ((seq & 4095) === 0 && performance.now() - replayReported > REPLAY_PROGRESS_MS) {
        replayReported = performance.now();
        logger.info({ seq, lastSeq: replayTo, seconds: Math.round((replayReported - replayStarted) / 1000) }, 'replaying journal: progress');
      }
    },
    onEvent: projections.atEvent,
    onBatch: () => projections.flush(),
  });
  replaying = false;
  options.cancel?.throwIfAborted();
  starting = () => 'starting market threads';
  await journal.durable(journal.lastSeq());
  metrics.replayRecords.set(replayed.commands + replayed.events);
  metrics.replaySeconds.set((performance.now() - replayStarted) / 1000);
  // From here on history is written on its own thread; the main thread only builds the records.
  projections.startThread(historyDir);
  undo.push(() => projections.terminate());
  logger.info(
    {
      snapshotSeq: start?.seq ?? 0,
      commands: replayed.commands,
      events: replayed.events,
      recoveredEvents: replayed.recoveredEvents,
      lastSeq: journal.lastSeq(),
      stateHash: exchange.stateHash(),
      books: replayed.books.map((b) => ({ market: symbolOf(b.marketIndex), hash: b.stateHash() })),
    },
    'journal replayed',
  );

  // ④ market threads, starting from the replayed books; ⑤ their events come back to the sequencer
  const startBooks = new Map(replayed.books.map((b) => [b.marketIndex, b.snapshot()]));
  links = groups(markets, settings.marketThreads).map(
    (group) =>
      new MarketLink(
        group,
        startBooks,
        (view, bytes, offset) => sequencer!.onRecord(view, bytes, offset),
        () => sequencer!.onBatch(),
        threadStopped,
      ),
  );
  undo.push(...links.map((link) => () => link.terminate()));
  const linkOfMarket: MarketLink[] = [];
  for (const link of links) for (const m of link.markets) linkOfMarket[m.index] = link;

  // ⑧ the feeds: the relay hears book events and numbered account events and hands them on once
  // the journal has flushed them; the feeds (ws/) fan them out over the gateway's WebSocket
  const streaming = streamingFeeds(settings, exchange, history, projections, journal, login, clock, logger, options.feedLimits);
  feeds = streaming.feeds;
  undo.push(() => streaming.feeds.close());
  sequencer = new Sequencer(exchange, journal, links, projections, streaming.relay);
  const threads: MarketRouter = {
    place: (market, cmd) => linkOfMarket[market].place(market, cmd),
    cancel: (market, orderId, owner, time) => linkOfMarket[market].cancel(market, orderId, owner, time),
    cancelAll: (market, owner, time, reason) => linkOfMarket[market].cancelAll(market, owner, time, reason),
    expire: (market, time) => linkOfMarket[market].expire(market, time),
  };
  exchange.routeTo(threads);

  // snapshots: the sequencer marks a point S with nothing in flight (new commands wait only for
  // the commands already in flight to come back from the books); the snapshot thread replays
  // the journal to S on its own copy of the exchange and captures, encodes and saves it there.
  const schedule = new SnapshotSchedule({
    thread: { journalDir: join(settings.dataDir, 'journal'), markets: [...markets], options: exchangeOptions, startSeq: start?.seq ?? 0 },
    intervalMs: settings.snapshotIntervalMs,
    points: {
      quiet: async () => {
        sequencer!.pause();
        try {
          await sequencer!.idle();
          return journal.lastSeq();
        } finally {
          sequencer!.resume();
        }
      },
      latest: () => journal.lastSeq(),
      // Every later quiet point is at or after the journal's last seq, so past anything flushed.
      followable: () => journal.flushedSeq(),
    },
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

  // the clock: expiry, funding samples, liquidations, and on testnet the built-in index feed.
  // Every market has its index and mark before the gateway serves: a fresh testnet's first
  // prices are journaled now, not a tick later (GET /price never shows a null index).
  const unpriced = feed?.resumeFrom(markets.map((m) => exchange.ledger.prices(m.index).index)) ?? [];
  await Promise.all(unpriced.map(({ market, price }) => sequencer!.submit({ kind: CommandKind.IndexPrice, time: clock(), market, price })));
  // The clock's own commands wait while this node may not write (a primary whose lease lapsed):
  // a deposed primary's journal then stays a prefix of the stream, so it can follow it (replication/node).
  const idle = () => sequencer!.overloaded() !== null || (options.replication?.cluster.writeRefusal() ?? null) !== null;
  const tick = () => {
    if (idle()) return;
    const time = clock();
    if (feed !== null) for (const { market, price } of feed.step()) void sequencer!.submit({ kind: CommandKind.IndexPrice, time, market, price }).catch(() => {});
    sequencer!.submit({ kind: CommandKind.Tick, time }).catch((error) => logger.error({ err: error }, 'tick failed'));
  };
  const ticker = setInterval(tick, options.tickMs ?? 1000);
  undo.push(() => clearInterval(ticker));
  // Conditional timers at their due times, not the next tick: a TWAP slice enters `period` after
  // the previous one (within RELEASE_POLL_MS), an untriggered order expires at its expiresAt. A
  // journaled `Release` carries the time, so a replay releases at the same points.
  const releasing = markets.map(() => false);
  const releaser = setInterval(() => {
    if (idle()) return;
    const now = clock();
    for (const m of markets) {
      const due = exchange.nextDueAt(m.index);
      if (due === 0 || due > now || releasing[m.index]) continue;
      releasing[m.index] = true;
      sequencer!
        .submit({ kind: CommandKind.Release, time: now, market: m.index })
        .catch((error) => logger.error({ err: error }, 'release failed'))
        .finally(() => (releasing[m.index] = false));
    }
  }, RELEASE_POLL_MS);
  undo.push(() => clearInterval(releaser));

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
      clearInterval(ticker);
      clearInterval(releaser);
      await schedule.close({ snapshot: stopOptions.snapshot });
      sequencer!.close();
      await sequencer!.idle();
      const books = (await Promise.all(links.map((l) => l.stateHashes()))).flat().sort((a, b) => a.market - b.market).map((b) => ({ market: symbolOf(b.market), hash: b.hash }));
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
      for (const timer of [ticker, releaser]) clearInterval(timer);
      schedule.halt();
      await atMost(ABORT_FLUSH_MS, journal.flushedHere());
      lock.release();
    },
  };
}

/** Login: challenges for this profile, tokens signed with the data directory's secret (or `--jwt-secret`: replicas share it). */
export function walletLogin(settings: Settings, clock: () => number, logger: Logger): WalletLogin {
  const { profile } = settings;
  return new WalletLogin({
    challenge: { domain: new URL(profile.baseUrl).host, uri: profile.baseUrl, chainId: profile.chainId, now: clock },
    token: { keys: [{ kid: 'k1', secret: new TextEncoder().encode(settings.jwtSecret ?? tokenSecretOf(settings.dataDir, logger)) }], issuer: profile.baseUrl, audience: profile.baseUrl, now: clock },
  });
}

/**
 * The streaming feeds (ws/feeds) over this node's exchange, and the relay (sequencer/feed-relay)
 * that hands them, once the local journal has flushed it, what the exchange applied: every book
 * event decoded into `relay.listener(market)`, every numbered subaccount event (wired here
 * through `projections.feed`), a frame closed at each `relay.endOfBatch(seq)`. The same on every
 * node: the primary's sequencer and a replica's replay of the stream feed the relay alike.
 */
export function streamingFeeds(
  settings: Settings,
  exchange: Exchange,
  history: HistoryReader,
  projections: Projections,
  journal: Journal,
  login: WalletLogin,
  clock: () => number,
  logger: Logger,
  limits?: Partial<FeedLimits>,
): { feeds: Feeds; relay: FeedRelay } {
  const feeds = new Feeds({
    markets: settings.markets,
    startBooks: exchange.depth,
    prices: (market) => {
      const p = exchange.ledger.prices(market);
      const funding = exchange.ledger.fundingHistory(market);
      return { mark: p.mark, index: p.index, last: p.last > 0 ? p.last : undefined, fundingRate: funding.length === 0 ? null : funding[funding.length - 1].rate };
    },
    history,
    accounts: exchange.ledger,
    delegations: exchange.delegations,
    tokens: login.tokens,
    accountEvents: projections.accountEvents,
    settle: async () => {
      const seq = journal.lastSeq();
      await journal.durable(seq);
      await projections.caughtUp(seq);
    },
    clock,
    logger,
    limits,
  });
  const relay = new FeedRelay(exchange.depth.map((d) => d.sequence), (seq) => journal.durable(seq), feeds, (error) =>
    logger.error({ err: error }, 'feed frame failed'),
  );
  projections.feed = relay;
  return { feeds, relay };
}

/** What the gateway reads of the state, the same on every node (a replica serves exactly these). */
export function stateReads(settings: Settings, exchange: Exchange, history: HistoryReader, projections: Projections, held: (market: number) => boolean) {
  const typedData = publishedTypedData(settings.profile);
  const marketData: MarketDataPort = {
    profile: settings.profile,
    markets: settings.markets,
    book: (index) => exchange.depth[index],
    typedData: () => typedData,
    accountLimits: { minTransfer: settings.minTransfer, maxSubaccounts: settings.maxSubaccounts },
  };
  const prices: PriceSource = (market) => {
    const p = exchange.ledger.prices(market);
    return { mark: p.mark, index: p.index, held: held(market) };
  };
  const shown = (o: OrderState | undefined) => (o === undefined ? undefined : exchange.presented(o));
  const orders: Omit<OrdersPort, 'submit'> = {
    live: (orderId) => shown(exchange.orders.get(orderId)),
    liveByClient: (account, clientId) => shown(exchange.orders.byClient(account, clientId)),
    latestByClient: (account, clientId, scan) => {
      const open = exchange.orders.byClient(account, clientId);
      if (open !== undefined) return shown(open);
      const { registry } = exchange.ledger;
      return history.latestByClient(registry.ownersOf(registry.findAccount(account) ?? 0), clientId, scan);
    },
    liveOf: (owner, market) => exchange.orders.ofOwner(owner, market).map((o) => exchange.presented(o)),
    recent: (orderId) => exchange.orderAsLeft(orderId),
    stored: (orderId) => history.order(orderId),
    storedOf: (owner, query) => history.orders(owner, query),
    ownerOf: (account, subaccountIndex) => exchange.ledger.findOwner(account, subaccountIndex),
  };
  const accounts: Pick<AccountApiOptions, 'accounts' | 'fills' | 'transfers'> = {
    accounts: { ledger: exchange.ledger, delegations: exchange.delegations, nonces: exchange.nonces },
    fills: history,
    transfers: projections.transfers,
  };
  return { marketData, prices, orders, accounts };
}

/**
 * The feeds' WebSocket endpoint for a gateway that listens before they exist (they start from
 * the replayed books): the gateway admits no connection before the start is done (`starting`),
 * so every call reaches the feeds.
 */
function laterFeeds(feeds: () => Feeds, limits?: Partial<FeedLimits>): SocketEndpoint<any> {
  return {
    ...feedSocketSettings(limits),
    admit: (address) => feeds().endpoint.admit(address),
    open: (conn) => feeds().endpoint.open(conn),
    message: (conn, text) => feeds().endpoint.message(conn, text),
    close: (conn, code, reason) => feeds().endpoint.close(conn, code, reason),
  };
}

/** GET /operator/state-hash: the state's hash, the books', the journal position, the first broken invariant, the money. */
export function stateReport(exchange: Exchange, books: { market: number; hash: string }[], lastSeq: number): Awaited<ReturnType<OperatorPort['stateHash']>> {
  let problem: string | null = null;
  try {
    exchange.validateInternalState();
  } catch (error) {
    problem = (error as Error).message;
  }
  return { exchange: exchange.stateHash(), books: books.sort((a, b) => a.market - b.market), lastSeq, problem, money: moneyView(exchange.ledger.moneyReport()) };
}

/**
 * The operator's alarm for the insurance fund: every shortfall it covers (a trading loss beyond
 * an account's equity) is logged at warn, and at error when it leaves the fund in deficit — the
 * exchange then owes more than it holds (the ledger has `fundInsurance`; no operator route
 * calls it yet). The same lines come back when a restart replays the journal.
 */
function withShortfallAlarm(listeners: ExchangeListeners, logger: Logger): ExchangeListeners {
  const next = listeners.ledgerEvent;
  return {
    ...listeners,
    ledgerEvent: (e) => {
      next?.(e);
      if (e.type !== 'insurance' || e.reason !== 'shortfall') return;
      const fields = { owner: e.owner, shortfall: String(-e.delta), insuranceFund: String(e.fund) };
      if (e.fund < 0n) logger.error(fields, 'insurance fund in deficit: a shortfall exceeded it');
      else logger.warn(fields, 'insurance fund covered a shortfall');
    },
  };
}

/** Counts every trade for GET /metrics while `counting` (not during the start-up replay). */
function withFillCount(listeners: ExchangeListeners, metrics: ExchangeMetrics, counting: () => boolean): ExchangeListeners {
  const next = listeners.trade;
  return {
    ...listeners,
    trade: (market, seq, time, price, quantity, takerSide) => {
      next?.(market, seq, time, price, quantity, takerSide);
      if (counting()) metrics.fill();
    },
  };
}

/** The money report as the operator reads it (GET /operator/state-hash): collateral units as decimal strings. */
function moneyView(r: MoneyReport): Record<keyof MoneyReport, string> {
  const out = {} as Record<keyof MoneyReport, string>;
  for (const key of Object.keys(r) as (keyof MoneyReport)[]) out[key] = formatDecimal(r[key], COLLATERAL_SCALE);
  return out;
}
