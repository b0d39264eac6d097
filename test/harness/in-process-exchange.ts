/**
 * An exchange in process for behaviour tests, used instead of test/e2e/harness's
 * `startTestExchange` with the same client interface (`ApiClient`: `request`, `operator`, each
 * answered with a `Reply`), so `Trader` and `fundedTraders` (test/harness/traders) work on it
 * unchanged. Underneath:
 *
 *  - the real state machine (`Exchange`: order entry, conditional orders, settlement) behind the
 *    real `Sequencer`, and the real gateway (http/gateway `gatewayDispatch`: routes, guards,
 *    validation, error texts, serializers, metrics), asked in process (test/harness/inject);
 *  - the markets' books in process, as the simulator has them (sim/node `SimMarket`): the
 *    commands a request sends are run, and their events handed to the sequencer, in the same
 *    turn (a microtask after they are sent), before the reply;
 *  - the real `Journal` on `SimulatedJournalStorage`, flushed at the end of each turn: a write's
 *    reply waits for its flush, as in production; snapshots beside it as the simulator keeps
 *    them (sim/node `SimSnapshots`), taken as the snapshot schedule takes them (a point with no
 *    command in flight, flushed and in history) by the snapshot thread's `SnapshotReplica`, on
 *    this thread;
 *  - the start of src/pipeline.ts, on whatever that storage and history hold: the newest
 *    snapshot that restores (sequencer/start-state), then the journal after it replayed with
 *    history following (sequencer/start-up-replay), the books handed on from the replay. So
 *    `restart` — a stop, with its shutdown snapshot or without one (as after a kill), then a new
 *    start on the same journal, snapshots and history — goes through the recovery a real
 *    restart does, and the clock goes on where it was;
 *  - signatures recovered on this thread by the pool worker's own code (test/harness/worker-recovery);
 *  - history written in LMDB in a temporary directory by the projection writer on this thread
 *    (test/harness/in-thread-projections), read by the real `HistoryReader`; a test may add
 *    records of its own (`writeHistory`);
 *  - a clock the test owns: it stands still until `advance(ms)` moves it, running each tick
 *    (every `tickMs`: expiry, funding, liquidations, the testnet feed's index prices) and each
 *    conditional release (a TWAP slice, an untriggered order's expiry) at its due time, through
 *    the real `ExchangeClock` — a test about a child due in 400 ms takes no wall time. It is
 *    the host's clock under the exchange's time, as the pipeline has it (sequencer/exchange-time,
 *    the journal's last command time its start): `stepHostClock(ms)` steps the host's clock
 *    alone (back: an NTP step, a restart on a machine behind), while `advance` is the time that
 *    passes, the steady clock no step moves.
 *
 * Invariants: every request is answered only once the commands it sent have been through the
 * books and the journal has flushed what it must; `advance` returns once everything that fell
 * due has been applied, journaled and flushed. Nothing runs on a timer: between calls the
 * exchange is still. Every request between two `advance`s comes at the same instant, for the
 * request budgets too (200 a second per account and per address, one second's burst): a test
 * that sends more than a burst advances the clock between them, as a real client's time passes.
 *
 * `listen` serves the same gateway over a real uWebSockets.js listener on a loopback port, as
 * the pipeline's listener serves it (CORS, compression, HEAD, the client address behind trusted
 * proxies, the headers uWS writes), for the tests about the socket: requests over it reach the
 * same routes, budgets and state as `request`'s.
 *
 * Not covered, and checked end to end (test/e2e) instead: pipelining over the real pipeline
 * (its signature threads and market rings behind the socket), the WebSocket feeds, worker
 * threads (market threads and their rings, the signature pool, the projection and snapshot
 * threads), the LMDB journal and snapshots and the data directory's checks and lock
 * (storage/), what the listener answers during a start-up replay, a process's stop (the
 * gateway's drain) and crashes (a kill, with writes not yet flushed or a snapshot half written;
 * the simulator, test/sim, crashes its nodes over the same simulated storage).
 */
import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { pino, type Logger } from 'pino';
import { loadSettings } from '../../src/config/process.ts';
import type { Command } from '../../src/app/commands.ts';
import { Journal } from '../../src/journal/journal.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import type { RunningExchange } from '../../src/pipeline.ts';
import { HISTORY_ENV_OPTIONS } from '../../src/history/history-env.ts';
import { Projections } from '../../src/history/projections.ts';
import { HistoryReader } from '../../src/history/reader.ts';
import { HistoryWriter } from '../../src/history/writer.ts';
import { openHistoryDatabases } from '../../src/history/store.ts';
import { Sequencer, type Outcome } from '../../src/sequencer/sequencer.ts';
import { ExchangeClock } from '../../src/sequencer/clock.ts';
import { ExchangeTime, lastJournaledTime } from '../../src/sequencer/exchange-time.ts';
import { TestnetFeed } from '../../src/sequencer/testnet-feed.ts';
import { accountWrites } from '../../src/sequencer/account-writes.ts';
import { exchangeOptionsOf, startMarkets, startState } from '../../src/sequencer/start-state.ts';
import { StartUpReplay } from '../../src/sequencer/start-up-replay.ts';
import { SnapshotReplica } from '../../src/sequencer/snapshot-replica.ts';
import { gatewayDispatch } from '../../src/http/gateway.ts';
import { contentTypeOf } from '../../src/http/uws-reply.ts';
import { startHttpServer } from '../../src/http/uws.ts';
import { asyncApiDocument } from '../../src/ws/asyncapi.ts';
import { exchangeApi, stateReads, stateReport, walletLogin } from '../../src/gateway-ports.ts';
import { ExchangeMetrics, withFillCount } from '../../src/metrics.ts';
import { withShortfallAlarm } from '../../src/log.ts';
import { SimMarket, SimSnapshots, simRouter } from '../../sim/node.ts';
import { chainsOf, newestTakenOf } from '../../src/journal/snapshot-tie.ts';
import { injector } from './inject.ts';
import { inThreadProjections } from './in-thread-projections.ts';
import { workerRecovery } from './worker-recovery.ts';
import { apiClient, type ApiClient, type Reply } from './traders.ts';

export interface InProcessExchange extends ApiClient {
  /**
   * As test/e2e/harness's `exchange` (a `RunningExchange`) has them: the sequencer, for commands
   * no route sends (a Tick at a chosen time), and what the start rebuilt (the snapshot it began
   * from, the journal records it replayed after it).
   */
  readonly exchange: Pick<RunningExchange, 'sequencer' | 'recovery'>;
  /** The exchange's time (ms since the epoch): it moves only with `advance`. */
  now(): number;
  /** Moves the clock `ms` on, running every tick and conditional release that falls due, each at its time. */
  advance(ms: number): Promise<void>;
  /** Steps the host's clock `ms` (back when negative) and nothing else: no time passes. The step stays across `restart`. */
  stepHostClock(ms: number): void;
  /**
   * Stops this exchange as the pipeline's stop does — with a shutdown snapshot, or with
   * `snapshot: false` none (as after a kill: the next start replays the journal from the newest
   * snapshot there is) — and starts another on the journal, snapshots and history it left, its
   * clock going on from this one's. This one refuses every request afterwards.
   */
  restart(options?: { snapshot?: boolean }): Promise<InProcessExchange>;
  /**
   * The gateway served over a real listener on 127.0.0.1 (a free port), closed when this
   * exchange stops: a client over HTTP (the operator key at hand) and the port.
   */
  listen(): Promise<ApiClient & { port: number }>;
  /**
   * Writes history records of the test's own, as the projection writer writes them (one batch),
   * beside what the exchange projects: for a read of records no trade here makes (a fill's
   * realized PnL with no trade before it). Nothing else of the exchange follows them.
   */
  writeHistory(write: (writer: HistoryWriter) => void): void;
  /** Stops and removes what it stored (after the test, unless called before). */
  stop(): Promise<void>;
}

export interface InProcessOptions {
  /** Milliseconds between clock ticks; default 60 s, as test/e2e/harness's (so a tick comes only when a test advances that far). */
  tickMs?: number;
  /** The clock's first reading; default the wall clock's now. */
  startAt?: number;
  /** Command-line settings added to the harness's own (`--cors-origins …`, `--trusted-proxies …`), as the process takes them. */
  args?: readonly string[];
  /** Where the exchange logs; default nowhere. */
  logger?: Logger;
}

/** Login tokens' secret: given, so that nothing is written for it. */
const JWT_SECRET = 'in-process-exchange-token-secret-0123456789';
/** Where the exchange "answers": what `url` says and the API document names first. */
const BASE_URL = 'http://in-process.test';
/** A market's link as the sequencer sees it: room for every command (the in-process books take whatever is sent), no stopped thread. */
const roomyLink = () => ({ hasRoom: () => true, problem: () => null });

/** One event-loop turn: end-of-turn work (the journal's flush, history batches) runs. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * What an exchange leaves to the next start on its data directory: the journal's storage, the
 * snapshots beside it, and history's LMDB environment (the directory).
 */
interface DataDirectory {
  dir: string;
  storage: SimulatedJournalStorage;
  snapshots: SimSnapshots;
}

export function startInProcessExchange(options: InProcessOptions = {}): Promise<InProcessExchange> {
  const data = { dir: mkdtempSync(join(tmpdir(), 'perp-behaviour-')), storage: new SimulatedJournalStorage({ autoFlush: true }), snapshots: new SimSnapshots() };
  return startOn(data, options.startAt ?? Date.now(), 0, { tickMs: 60_000, args: [], logger: pino({ level: 'silent' }), ...options });
}

/** An exchange started on `data` (empty, or what an earlier one left) with its clock at `startAt`. */
async function startOn(data: DataDirectory, startAt: number, hostStep: number, options: Required<Omit<InProcessOptions, 'startAt'>>): Promise<InProcessExchange> {
  const { tickMs, logger } = options;
  const settings = loadSettings(['--data-dir', data.dir, '--jwt-secret', JWT_SECRET, ...options.args], {});
  const { markets, profile } = settings;
  const metrics = new ExchangeMetrics();
  // The time that passes (`advance`), and the host's clock: that time plus the steps the test made.
  let time = startAt;

  // The start of src/pipeline.ts: the journal opened as storage/data-directory opens it (what
  // the newest snapshot covers was flushed), history beside it, the newest snapshot history has
  // reached that restores, then the journal after it replayed. Trades count for the metrics once
  // the replay is done.
  const { newest } = newestTakenOf(data.snapshots, chainsOf(data.storage));
  const journal = await Journal.open(data.storage, { logger, verifyFrom: newest + 1, flushedThrough: newest });
  const exchangeTime = new ExchangeTime({ host: () => time + hostStep, from: lastJournaledTime(journal), steady: () => time, logger });
  const clock = exchangeTime.now;
  const historyEnv = open({ path: data.dir, ...HISTORY_ENV_OPTIONS });
  const projections = new Projections(historyEnv);
  projections.journal = journal;
  let replay: StartUpReplay | undefined;
  const listeners = withFillCount(withShortfallAlarm(projections.listeners(), logger), metrics, () => replay?.finished === true);
  const exchangeOptions = exchangeOptionsOf(settings);
  const { exchange, start } = startState(data.snapshots, journal, projections.projectedSeq, startMarkets(journal, markets), listeners, exchangeOptions, logger);
  projections.identity = (owner) => exchange.ledger.identity(owner);
  replay = new StartUpReplay(exchange, journal, projections, start, logger, metrics);
  const replayed = await replay.run();
  projections.startThread(data.dir, inThreadProjections);

  // The books: what a command sends is run a microtask later, with whatever its events send in turn.
  const books = markets.map((m) => new SimMarket(m, replayed.books[m.index]));
  // One link per market, as the pipeline's: a test may make one full or stopped.
  const sequencer = new Sequencer(exchange, journal, books.map(roomyLink), projections);
  let scheduled = false;
  const runBooks = (): void => {
    scheduled = false;
    while (books.some((b) => b.pending())) {
      for (const book of books) if (book.run(Number.MAX_SAFE_INTEGER, sequencer.onRecord) > 0) sequencer.onBatch();
    }
  };
  exchange.routeTo(
    simRouter(books, () => {
      if (scheduled) return;
      scheduled = true;
      queueMicrotask(runBooks);
    }),
  );

  // The gateway, over the ports the pipeline hands it (src/pipeline.ts).
  const feed = profile.faucet ? new TestnetFeed(markets) : null;
  const history = new HistoryReader(openHistoryDatabases(historyEnv));
  const login = walletLogin(settings, clock, logger);
  const reads = stateReads(settings, exchange, history, projections, (market) => feed?.isHeld(market) ?? false);
  const submit = (command: Command): Promise<Outcome> => sequencer.submit(command);
  const dispatch = gatewayDispatch({
    host: '127.0.0.1',
    port: 0,
    clock,
    logger,
    metrics,
    accessLog: settings.accessLog,
    corsOrigins: settings.corsOrigins,
    operations: {
      notReady: () => journal.problem() ?? sequencer.overloaded(),
      metrics: () => metrics.text(),
      metricsContentType: metrics.contentType,
    },
    historyRead: () => projections.readable(journal.flushedSeq()),
    feedsDocument: asyncApiDocument,
    ...exchangeApi(settings, reads, history, login, {
      submit,
      account: accountWrites({ submit }, clock),
      recover: workerRecovery(),
      snapshot: () => takeSnapshot(),
      stateHash: async () => stateReport(exchange, books.map((b) => ({ market: b.index, hash: b.book.stateHash() })), journal.lastSeq()),
      indexFeed: feed ?? undefined,
    }),
  }, () => BASE_URL).public;
  const inject = injector(dispatch);

  // Snapshots as sequencer/snapshot-schedule takes them: at a seq with no command in flight,
  // once it is flushed and in history, captured by a replica that replays the journal from the
  // snapshot this start began with (the snapshot thread's work, here on this thread, the replica
  // made at the first). One at a time: the replica replays forward only.
  let replica: SnapshotReplica | undefined;
  let lastSnapshotSeq = start?.seq ?? 0;
  let snapshotting: Promise<unknown> = Promise.resolve();
  const takeSnapshot = (): Promise<number> => {
    const run = snapshotting.then(async () => {
      const seq = await sequencer.quietSeq();
      await journal.flushedHere(seq);
      await projections.allWritten();
      replica ??= new SnapshotReplica(markets, exchangeOptions, start);
      replica.advance(journal, seq);
      const captured = replica.capture();
      // Saved at once: nothing crashes between the capture and the write here.
      data.snapshots.capture(captured.seq, captured.stateHash, captured.bytes, journal.chainAt(captured.seq));
      data.snapshots.complete();
      return (lastSnapshotSeq = seq);
    });
    snapshotting = run.catch(() => {});
    return run;
  };

  // The clock: the real one's ticks and releases, run when `advance` reaches their time. What
  // they submit is followed, so that `advance` returns once it is all applied and flushed.
  let nextTick = clock() + tickMs;
  const running = new Set<Promise<Outcome>>();
  const followed = (command: Command): Promise<Outcome> => {
    const outcome = submit(command);
    running.add(outcome);
    const done = () => running.delete(outcome);
    outcome.then(done, done);
    return outcome;
  };
  const ticks = new ExchangeClock({ submit: followed, exchange, markets, feed, now: clock, tickMs, idle: () => sequencer.overloaded() !== null, logger });
  await ticks.primePrices();
  const settled = async (): Promise<void> => {
    while (running.size > 0) await Promise.allSettled([...running]);
    // The clock's own bookkeeping after each outcome (`finally`) runs before the next step.
    await nextTurn();
  };
  const nextDue = (): number => Math.min(nextTick, ...markets.map((m) => exchange.nextDueAt(m.index) || Number.MAX_SAFE_INTEGER));

  let stopped = false;
  const servers: Array<{ close(): void }> = [];
  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    // As a stopped server's refused connection: a client still pointed at it after a restart fails, never reads the old state.
    if (stopped) throw new Error(`in-process exchange: ${method} ${path} after it stopped`);
    const at = path.indexOf('?');
    const verb = method.toLowerCase();
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    const reply = await inject({
      method: verb,
      path: at < 0 ? path : path.slice(0, at),
      query: at < 0 ? '' : path.slice(at + 1),
      authorization: lower.authorization ?? '',
      operatorKey: lower['x-operator-key'] ?? '',
      origin: '',
      acceptEncoding: '',
      remoteAddress: '127.0.0.1',
      // As the listener reads it: a write always has a body (maybe empty), a read one only when sent.
      body: body !== undefined || ['post', 'put', 'patch', 'delete'].includes(verb) ? text : null,
    });
    const replyHeaders = new Headers(reply.headers);
    const contentType = contentTypeOf(reply);
    if (contentType !== null) replyHeaders.set('content-type', contentType);
    const replyText = verb === 'head' ? '' : reply.body;
    return { status: reply.status, text: replyText, headers: replyHeaders, json: () => JSON.parse(replyText) };
  };

  /** The pipeline's stop, from the clock's stop on (false if it had stopped already); the data stays. */
  const shutdown = async (snapshot: boolean): Promise<boolean> => {
    if (stopped) return false;
    stopped = true;
    for (const server of servers) server.close();
    await settled();
    await snapshotting;
    if (snapshot && journal.lastSeq() !== lastSnapshotSeq) await takeSnapshot();
    sequencer.close();
    await sequencer.idle();
    await journal.close();
    await projections.close();
    await historyEnv.close();
    return true;
  };
  const stop = async (): Promise<void> => {
    if (await shutdown(false)) rmSync(data.dir, { recursive: true, force: true });
  };
  after(stop);

  return {
    url: BASE_URL,
    request,
    operator: (method, path, body) => request(method, path, body, { 'x-operator-key': settings.operatorKey }),
    exchange: { sequencer, recovery: { snapshotSeq: start?.seq ?? 0, commands: replayed.commands, events: replayed.events, recoveredEvents: replayed.recoveredEvents } },
    now: clock,
    stepHostClock: (ms) => void (hostStep += ms),
    async advance(ms) {
      const end = time + ms;
      await settled();
      // Dues and ticks are on the exchange's time, which runs with `time` at a fixed distance
      // (none, unless the host's clock was stepped back).
      const ahead = clock() - time;
      for (let due = nextDue(); due - ahead <= end; due = nextDue()) {
        const at = Math.max(clock(), due);
        time = at - ahead;
        if (nextTick <= at) {
          ticks.tick();
          nextTick += tickMs;
        }
        ticks.release();
        await settled();
        if (nextDue() <= at && nextTick > at) throw new Error(`in-process exchange: a release at ${at} left its timer due`);
      }
      time = end;
    },
    async restart({ snapshot = true } = {}) {
      if (!(await shutdown(snapshot))) throw new Error('in-process exchange: restarted after it stopped');
      return startOn(data, time, hostStep, options);
    },
    async listen() {
      const server = await startHttpServer({ ...dispatch, host: '127.0.0.1', port: 0, trustedProxies: new Set(settings.trustedProxies) });
      servers.push(server);
      return { ...apiClient(`http://127.0.0.1:${server.port}`, settings.operatorKey), port: server.port };
    },
    writeHistory: (write) => new HistoryWriter(openHistoryDatabases(historyEnv)).batch(write),
    stop,
  };
}

/**
 * Every command `ex`'s sequencer is handed from now on (a route's, the clock's), in order: what
 * it journals when the command changes anything (at the last command's time, if stamped before
 * it: sequencer/sequencer). Of this exchange only, not of one `restart` makes.
 */
export function submittedCommands(ex: InProcessExchange): Command[] {
  const handed: Command[] = [];
  const sequencer = ex.exchange.sequencer;
  const submit = sequencer.submit.bind(sequencer);
  sequencer.submit = (command, onComplete) => {
    handed.push(command);
    return submit(command, onComplete);
  };
  return handed;
}
