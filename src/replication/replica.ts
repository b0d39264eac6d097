/**
 * @module replication/replica
 *
 * A read replica, and a hot standby (a replica that takes over when the primary's lease
 * expires). It keeps its own data directory: a journal that is a verified copy of the
 * primary's (`Journal.appendRecord`: same seqs, same bytes, the chain checked as it grows),
 * the exchange's state rebuilt from it through the same `Replay` as start-up recovery — every
 * command re-run, every book event checked field for field against the journal's
 * (`ReplayDivergenceError` stops the replica) — and its own history projections. It serves
 * every GET route (market data, account reads with a token signed by the shared
 * `--jwt-secret`, the operator's state hash) and the streaming feeds on GET /ws, built as the
 * primary builds them (gateway-ports `streamingFeeds`): each applied book event goes to the feeds'
 * relay, each block closes a frame, handed on once the local journal flushed it — so sequence
 * numbers, checksums and private event numbers are the primary's, later by the replica's lag.
 * Every write is refused with 421 naming the primary (http/routes/cluster). Every reply
 * carries its lag, `X-Replica-Lag: seq=N, ms=M`; GET /metrics has it as gauges (and the feeds'
 * open connections), and GET /ready answers 503 naming it past 5 s.
 *
 * Start: the local journal must be a prefix of the stream (its last record the stream's at that
 * seq; else a `DataRefusedError` names the divergence: a deposed primary's unshipped records —
 * which `dropUnshipped` cuts instead, for a primary deposed in this process that ran with
 * `--durability replicated`: none of them was acknowledged, every reply having waited for
 * JetStream to store its records),
 * then it is replayed from its newest snapshot (sequencer/start-state, as a primary's start),
 * and the stream is followed from the
 * record after the local journal's last (`BlockSource.follow`). A block is appended to the
 * local journal and applied in the same turn; history is written on its thread as on the
 * primary.
 *
 * Markets: the state runs under the journal's markets records (the primary's, applied where the
 * primary wrote them), not under this node's markets file, which must only name the same markets
 * in their places and units (refused otherwise). The routes and feeds show the journal's markets:
 * those after the local replay at the start, and each markets record the stream brings from the
 * moment it is applied (the gateway's table built again over them, the feeds and their relay
 * taking an appended market on before its first book event) — which is why the stream is
 * followed only once the gateway and the feeds exist.
 *
 * Data directory: locked as the primary's (storage/directory-lock): a start on a directory
 * another node serves is refused; a failed start closes what it opened and lets it go; the stop
 * lets it go last, once nothing of this node touches the directory.
 *
 * Snapshots: taken of the local journal on the primary's schedule and thread
 * (sequencer/snapshot-schedule: every `--snapshot-interval-ms`, and at a stop), at the newest
 * seq the replay had nothing in flight at, once flushed here and in history; the newest
 * `SNAPSHOTS_KEPT` are kept in the data directory, as the primary's are. A restart and a
 * standby's takeover begin from the newest.
 *
 * Its disk: a failed write of its journal (a full disk, EIO) is the node's failure, reported
 * once through `failed` — the process exits 70 with one fatal line, as a primary's does
 * (docs/operations.md "When a thread dies") — since the state it serves is then ahead of what a
 * restart replays, and it could only stand still behind the stream. Once failed (or its history
 * thread stopped), a standby takes no lease, and one that took it lets it go instead of
 * resolving `promoted`: a primary that cannot write its journal would take no write.
 *
 * Standby: also watches the lease (replication/lease). Once nobody has renewed it for the lease
 * time it takes it (compare-and-set), applies the stream to its end, and resolves `promoted`
 * with the held lease; replication/node then stops this replica (a last snapshot) and starts the
 * primary pipeline on the same data directory, which replays the local journal from that
 * snapshot and publishes after the stream's last message (docs/replication.md, failover).
 *
 * May import: node:path, pino (types), config/process (types), config/market-changes, app/commands, journal/ (journal, record,
 * refusal), transport/codec, sequencer/, storage/ (data-directory, directory-lock, markets-in-use), history/ (reader, store),
 * http/ (gateway, uws types, routes/cluster types), ws/ (asyncapi, feed-relay types), gateway-ports (the shared read ports),
 * replication/lease (types), prom-client (its /metrics: the lag).
 * Invariants: the local journal is a prefix of the stream (never a record the stream lacks);
 * the state served is the replay of the local journal up to its last seq; `promoted` never
 * resolves once the journal's storage failed or the history thread stopped.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Settings } from '../config/process.ts';
import { JournalFailedError, entryOf, type Journal } from '../journal/journal.ts';
import { CommandKind } from '../app/commands.ts';
import { DataRefusedError } from '../journal/refusal.ts';
import { recordSeq, viewOf } from '../journal/record.ts';
import { HistoryReader } from '../history/reader.ts';
import { openHistoryDatabases } from '../history/store.ts';
import { cutAfter, openDataDirectory } from '../storage/data-directory.ts';
import { holdDataDirectory, type DirectoryLock, type Undo } from '../storage/directory-lock.ts';
import { checkMarketsInUse } from '../storage/markets-in-use.ts';
import { recover } from '../sequencer/recovery.ts';
import { ExchangeTime, lastJournaledTime } from '../sequencer/exchange-time.ts';
import { exchangeOptionsOf, marketsOfRecord, startMarkets, startState } from '../sequencer/start-state.ts';
import { checkMarketsFollow } from '../sequencer/markets-record.ts';
import { diffMarkets } from '../config/market-changes.ts';
import { SnapshotSchedule } from '../sequencer/snapshot-schedule.ts';
import { decodeEvent, recordMarket } from '../transport/codec.ts';
import type { FeedRelay } from '../ws/feed-relay.ts';
import { asyncApiDocument } from '../ws/asyncapi.ts';
import { OverloadedError } from '../sequencer/sequencer.ts';
import { startGateway } from '../http/gateway.ts';
import type { HttpReply } from '../http/uws.ts';
import type { ClusterPort } from '../http/routes/cluster.ts';
import { exchangeApi, stateReads, stateReport, streamingFeeds, walletLogin } from '../gateway-ports.ts';
import type { Lease } from './lease.ts';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** One message of the stream: whole records in seq order, and when JetStream stored it (ms). */
export interface ShippedBlock {
  records: Uint8Array[];
  storedAt: number;
}

/** Where a replica gets the primary's journal (replication/follower implements it over JetStream). */
export interface BlockSource {
  /** The blocks holding records after journal seq `after`, in order, as they are shipped (a block may start before `after + 1`). */
  follow(after: number): AsyncIterable<ShippedBlock>;
  /** The last journal seq the primary has shipped. */
  tail(): Promise<number>;
  /** The stream's record at journal seq `seq`, or null when the stream does not hold it. */
  recordAt(seq: number): Promise<Uint8Array | null>;
  close(): Promise<void>;
}

export interface ReplicaLag {
  /** Journal records shipped by the primary and not yet applied here. */
  seqs: number;
  /**
   * Behind: how long this node has been behind. Caught up: how long the records it applied last
   * took from JetStream's store to here (0 once nothing has arrived for a second).
   */
  ms: number;
}

export interface RunningReplica {
  port: number;
  /** Standby only: resolves once this node holds the lease and has applied the whole stream. */
  promoted: Promise<Lease>;
  /** Resolves with the reason once the local journal's storage failed (a full disk): the node's end (exit 70, main.ts). */
  failed: Promise<string>;
  lag(): ReplicaLag;
  /** The last journal seq applied. */
  appliedSeq(): number;
  /** Stops serving and following; takes a last snapshot of the local journal unless `snapshot` is false. */
  stop(options?: { snapshot?: boolean }): Promise<void>;
}

/** A replica further behind than this answers GET /ready with 503 (a load balancer sends reads elsewhere). */
const READY_LAG_MS = 5_000;

/** How often the primary's position is read from the stream (the lag's reference). */
const TAIL_POLL_MS = 250;

/** True when the local journal's record at `seq` is `streamed`, the stream's record there. */
function sameRecord(journal: Journal, seq: number, streamed: Uint8Array): boolean {
  return Buffer.from([...journal.range(seq, seq)][0].record).equals(Buffer.from(streamed));
}

/**
 * The last seq the local journal and the stream share, or null when the stream no longer holds
 * a record it should (purged by an operator: what it held there is unknown). The hash chain
 * makes the shared seqs a prefix (a record equal at its seq has every earlier one equal), so a
 * binary search finds its end in log2(n) reads of the stream.
 */
async function lastShared(journal: Journal, source: BlockSource): Promise<number | null> {
  let shared = 0;
  let differs = Math.min(journal.lastSeq(), await source.tail()) + 1;
  while (differs - shared > 1) {
    const mid = Math.floor((shared + differs) / 2);
    // Within the stream's end, a seq it does not hold was purged, not never written.
    const streamed = await source.recordAt(mid);
    if (streamed === null) return null;
    if (sameRecord(journal, mid, streamed)) shared = mid;
    else differs = mid;
  }
  return shared;
}

/**
 * Why the local journal is not a prefix of the stream, or null when it is: its last record must
 * be the stream's record at that seq (the hash chain makes every earlier one equal too). A
 * journal with records the stream lacks or holds differently was written by a primary that was
 * deposed before shipping them: following the stream would apply another history on top.
 */
async function divergence(journal: Journal, source: BlockSource): Promise<string | null> {
  const last = journal.lastSeq();
  if (last === 0) return null;
  const streamed = await source.recordAt(last);
  if (streamed === null) return `this node's journal holds records up to seq ${last}, which the journal stream does not reach (it ends at seq ${await source.tail()}): records this node wrote were never shipped, and another primary writes the stream — the histories diverged.`;
  if (!sameRecord(journal, last, streamed)) return `this node's journal record at seq ${last} differs from the journal stream's: another primary wrote after this node's last shipped record — the histories diverged.`;
  return null;
}

export interface ReplicaOptions {
  /**
   * Cut the local journal's records the stream does not hold instead of refusing to start:
   * only for a primary deposed in this process that ran with `--durability replicated`
   * (replication/node), whose every reply waited for JetStream to store its records — so the
   * records it journaled but never shipped (a clock tick, an order whose reply never came)
   * were acknowledged to nobody.
   */
  dropUnshipped?: boolean;
}

export function startReplica(settings: Settings, logger: Logger, source: BlockSource, lease: Lease, options: ReplicaOptions = {}): Promise<RunningReplica> {
  // One exchange per data directory, as a primary's start takes it (storage/directory-lock): this
  // node appends to its journal too. A failed start closes what it opened and lets it go.
  return holdDataDirectory(settings.dataDir, (lock, undo) => startLocked(settings, logger, source, lease, options, lock, undo));
}

async function startLocked(settings: Settings, logger: Logger, source: BlockSource, lease: Lease, options: ReplicaOptions, lock: DirectoryLock, undo: Undo): Promise<RunningReplica> {
  const { role, primaryUrl } = settings.replication;
  const host = Date.now;
  /** Why this node cannot go on as it should (its journal's storage, its history thread, the stream), or null. */
  let failure: Error | null = null;
  let stopped = false;
  let reportFailed!: (reason: string) => void;
  const failed = new Promise<string>((resolve) => (reportFailed = resolve));
  // The journal reports its failed flush once, here; an append after it throws the same error.
  const journalOptions = {
    onStorageFailed: (error: JournalFailedError) => {
      failure = error;
      // During a stop its caller hears of it instead: the stop fails (a takeover's, replication/node).
      if (!stopped) reportFailed(error.message);
    },
  };
  let opened = await openDataDirectory(settings.dataDir, logger, journalOptions);
  // Undone in reverse: the journal's last flush, then history (the data directory as it is after a cut).
  undo.push(() => opened.historyEnv.close(), () => opened.journal.close());
  let diverged = await divergence(opened.journal, source);
  const shared = diverged !== null && options.dropUnshipped === true ? await lastShared(opened.journal, source) : null;
  if (diverged !== null && shared !== null) {
    logger.warn({ from: shared + 1, to: opened.journal.lastSeq(), found: diverged }, 'UNSHIPPED RECORDS DROPPED: this node journaled seqs from..to as a primary with replicated durability and JetStream never stored them, so no reply acknowledged them; cut to follow the stream');
    opened = await cutAfter(opened, settings.dataDir, shared, logger, journalOptions);
    diverged = await divergence(opened.journal, source);
  }
  const { snapshots, journal, historyDir, historyEnv, projections } = opened;
  if (diverged !== null) throw new DataRefusedError(`${diverged} Nothing was changed. Start this node on a new data directory (it copies the stream), or restore its data directory from the current primary.`);
  // What the gateway, login, budgets, feeds and market-data routes read: the exchange's time, as
  // on the primary (sequencer/exchange-time), from the journal's last command. On the host's
  // clock, a step back answered 429 to every address that had read here in the last second for
  // the length of the step, and GET /time and /summary went back (test/replication/replica-clock).
  const clock = new ExchangeTime({ host, from: lastJournaledTime(journal), logger }).now;
  // As a start of the primary: from the newest snapshot this node took (sequencer/start-state),
  // the markets file matching the markets this data directory's state was built under, the
  // state restored and replayed under the journal's markets — the primary's markets records.
  const exchangeOptions = exchangeOptionsOf(settings);
  // A node with an empty journal begins under the markets the stream begins with (the primary's first record).
  const streamFirst = journal.lastSeq() === 0 ? await source.recordAt(1) : null;
  const marketsInUse = checkMarketsInUse(settings.dataDir, settings.markets);
  const markets = startMarkets(journal, marketsInUse.recorded ?? settings.markets);
  const first = streamFirst === null ? null : marketsOfRecord(entryOf(streamFirst));
  const state = startState(snapshots, journal, projections.projectedSeq, first === null ? markets : { ...markets, first }, projections.listeners(), exchangeOptions, logger);
  const { exchange, start } = state;
  projections.identity = (owner) => exchange.ledger.identity(owner);
  logger.info({ role, snapshotSeq: start?.seq ?? 0, lastSeq: journal.lastSeq() }, 'replaying local journal');
  // The feeds' relay hears each book event the stream brings once the local journal is replayed (set below).
  let relay: FeedRelay | null = null;
  // The same replay as a start; events a command in flight has not shipped yet wait for the primary's copy.
  const replayed = recover(exchange, journal, {
    from: (start?.seq ?? 0) + 1,
    books: start?.saved.books ?? [],
    onRecord: (seq) => (projections.applying = seq),
    onEvent: (view, offset) => {
      projections.atEvent(view, offset);
      if (relay !== null) decodeEvent(view, offset, relay.listener(recordMarket(view, offset)));
    },
    onBatch: () => projections.flush(),
    finish: false,
  });
  const { replay } = replayed;
  logger.info({ role, snapshotSeq: start?.seq ?? 0, commands: replayed.commands, events: replayed.events, lastSeq: journal.lastSeq() }, 'local journal replayed');
  // The journal's markets are the primary's: they apply here whatever this node's file says of
  // fees, margins and funding. Its file must still name the same markets in their places and
  // units — it is what this node journals under once it is the primary (a standby's takeover).
  checkMarketsFollow(exchange.markets, settings.markets, "this node's markets file");
  const ownFile = diffMarkets(exchange.markets, settings.markets);
  if (ownFile.parameters.length > 0 || ownFile.added.length > 0) {
    logger.warn({ differ: ownFile.parameters, notInJournal: ownFile.added }, "this node's markets file differs from the primary's journal: the journal's markets apply here (this file's once this node is the primary)");
  }
  marketsInUse.adopt(exchange.markets);
  // What the routes and feeds show of the markets at the start: the journal's, as they stand
  // after the local replay (`serveMarkets` below moves them on with each markets record).
  const served: Settings = { ...settings, markets: [...exchange.markets] };
  projections.startThread(historyDir);
  undo.push(() => projections.terminate());

  // Snapshots of the local journal, taken as the primary takes them (sequencer/snapshot-schedule),
  // so a restart — and a standby's takeover, which starts the primary pipeline on this data
  // directory — replays only what came after the newest. The primary's blocks may end inside a
  // command's events: the seqs to snapshot at are those this replay had nothing in flight at
  // (`Replay.quietSeq`); the thread follows the flushed journal up to the newest of them.
  const snapshotSchedule = new SnapshotSchedule({
    thread: { journalDir: join(settings.dataDir, 'journal'), snapshotsDir: snapshots.dir, markets: [...state.markets], options: exchangeOptions, startSeq: start?.seq ?? 0 },
    intervalMs: settings.snapshotIntervalMs,
    points: {
      quiet: async () => replay.quietSeq,
      latest: () => replay.quietSeq,
      // Never past a later quiet point (they only grow) nor past what is flushed here.
      followable: () => Math.min(journal.flushedSeq(), replay.quietSeq),
    },
    journal,
    projections,
    logger,
  });
  undo.push(() => snapshotSchedule.terminate());

  // The public and private feeds, as the primary builds them: fed from the records applied here.
  const history = new HistoryReader(openHistoryDatabases(historyEnv));
  const login = walletLogin(settings, clock, logger);
  const streaming = streamingFeeds(served, exchange, history, projections, journal, login, clock, logger);
  relay = streaming.relay;
  const { feeds } = streaming;
  undo.push(() => feeds.close());

  let primarySeq = journal.lastSeq();
  let caughtUpAt = host();
  /** The last block's way from JetStream's store to applied here (ms; across machines, their clocks' offset too), and when: on the host's clock, as JetStream's `storedAt` is. */
  let lastDelay = { ms: 0, at: 0 };
  const lag = (): ReplicaLag => {
    const seqs = Math.max(0, primarySeq - journal.lastSeq());
    if (seqs > 0) return { seqs, ms: Math.max(host() - caughtUpAt, lastDelay.ms) };
    // Caught up: how late the records that just arrived were (0 once the stream is quiet for a second).
    return { seqs, ms: host() - lastDelay.at < 1000 ? lastDelay.ms : 0 };
  };
  const apply = (block: ShippedBlock) => {
    for (const record of block.records) {
      const seq = recordSeq(viewOf(record), record.byteOffset);
      if (seq <= journal.lastSeq()) continue;
      journal.appendRecord(record);
      const entry = entryOf(record);
      replay.apply(entry);
      // Before the records after it: an appended market's book events go to its feeds.
      if (entry.kind === CommandKind.Markets) serveMarkets();
      // Books here answer at once: nothing waits for the routes a book event caused.
      exchange.takeUnsolicitedRoutes();
    }
    projections.flushSoon();
    // One feed frame per block: handed on once the local journal has flushed it.
    relay!.endOfBatch(journal.lastSeq());
    const now = host();
    lastDelay = { ms: Math.max(0, now - block.storedAt), at: now };
    primarySeq = Math.max(primarySeq, journal.lastSeq());
    if (journal.lastSeq() >= primarySeq) caughtUpAt = host();
  };
  // Its history thread gone, this node's account reads would stand still while its books move:
  // not ready from then on (a load balancer reads elsewhere), and it takes no lease.
  projections.onThreadStopped = (reason) => {
    failure ??= new Error(reason);
    logger.fatal({ reason }, 'replica: its history thread stopped; /ready answers 503');
  };
  const poller = setInterval(() => {
    source.tail().then(
      (seq) => {
        primarySeq = Math.max(primarySeq, seq);
        if (journal.lastSeq() >= primarySeq) caughtUpAt = host();
      },
      () => {},
    );
  }, TAIL_POLL_MS);

  // Standby: take the lease once it expires, then apply the stream to its end.
  let promote: (lease: Lease) => void = () => {};
  const promoted = new Promise<Lease>((resolve) => (promote = resolve));
  let watcher: ReturnType<typeof setInterval> | undefined;
  /**
   * Takes the lease if nobody renewed it, then waits for the stream's end to be applied here and
   * resolves `promoted`. Once held (and renewed) nobody else may lead: the tail is read however
   * long NATS takes to answer (a node lost, a leader being elected), until this replica stops.
   */
  const takeOver = async () => {
    if (!(await lease.take())) return;
    lease.hold();
    clearInterval(watcher);
    let end: number | null = null;
    for (let attempt = 0; end === null; attempt++) {
      if (stopped) return;
      end = await source.tail().catch(async (error: Error) => {
        if (attempt % 20 === 0) logger.warn({ err: error, attempt }, 'lease taken, the journal stream\'s end not read yet: reading it again');
        await new Promise((resolve) => setTimeout(resolve, TAIL_POLL_MS));
        return null;
      });
    }
    logger.info({ appliedSeq: journal.lastSeq(), streamSeq: end }, 'lease taken: applying the rest of the journal stream');
    while (journal.lastSeq() < end && failure === null) await new Promise((resolve) => setTimeout(resolve, 10));
    // Its disk failed (or its history stopped) on the way: another node is to lead, at once.
    if (failure !== null) {
      logger.error({ reason: (failure as Error).message }, 'standby: lease let go, this node cannot lead (its failure is logged)');
      await lease.release();
      return;
    }
    promote(lease);
  };
  lease.watch();
  if (role === 'standby') {
    let taking = false;
    watcher = setInterval(() => {
      if (taking || stopped || failure !== null || !lease.expired()) return;
      taking = true;
      // Nothing here may reject unhandled, which ends the process: a read of the lease that NATS
      // did not answer (it is away: that is why the lease lapsed) is tried again at the next tick.
      takeOver()
        .catch((error: Error) => logger.warn({ err: error }, 'standby: the lease could not be read to take it; trying again'))
        .finally(() => (taking = false));
    }, lease.leaseMs / 4);
  }
  // A start that fails from here on (its port taken) stops its timers first.
  undo.push(() => {
    stopped = true;
    clearInterval(poller);
    clearInterval(watcher);
  });

  const primary = () => lease.view()?.url ?? primaryUrl;
  const cluster: ClusterPort = {
    writeRefusal: (): HttpReply => {
      const url = primary();
      return {
        status: 421,
        body: url === null ? `Not the primary: this node is a read ${role}; send writes to the primary` : `Not the primary: this node is a read ${role}; send writes to ${url}`,
        contentType: 'text/plain; charset=utf-8',
        headers: url === null ? {} : { 'x-primary-url': url },
      };
    },
    headers: () => {
      const { seqs, ms } = lag();
      return { 'x-replica-lag': `seq=${seqs}, ms=${ms}` };
    },
    describe: () => ({ role, primary: primary(), lease: lease.view(), lag: lag(), appliedSeq: journal.lastSeq(), failure: failure === null ? null : (failure as Error).message }),
  };

  // GET /metrics: the lag, for Prometheus (the process's own figures beside it).
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'perp_' });
  new Gauge({ name: 'perp_replica_lag_records', help: 'Journal records the primary has shipped that this replica has not applied', registers: [registry], collect() { this.set(lag().seqs); } });
  new Gauge({ name: 'perp_replica_lag_seconds', help: 'How long this replica has been behind the primary (0 when caught up)', registers: [registry], collect() { this.set(lag().ms / 1000); } });
  new Gauge({ name: 'perp_replica_applied_seq', help: 'The last journal seq this replica applied', registers: [registry], collect() { this.set(journal.lastSeq()); } });
  // As the primary's (docs/operations.md): a replica's snapshots bound its restart and a standby's takeover.
  new Gauge({ name: 'perp_snapshot_age_seconds', help: 'Seconds since this process last saved a snapshot (NaN before its first)', registers: [registry], collect() { const at = snapshotSchedule.lastAt; this.set(at === null ? NaN : performance.now() / 1000 - at); } });
  // The primary's name for it (metrics.ts): a replica's feed subscribers are counted alike.
  new Gauge({ name: 'perp_ws_connections', help: 'WebSocket connections open (the feeds)', registers: [registry], collect() { this.set(server.socketCounts().open); } });

  const reads = stateReads(served, exchange, history, projections, () => false);
  const notHere = () => Promise.reject(new OverloadedError('not the primary'));
  await snapshotSchedule.ready;
  const server = await startGateway({
    host: settings.host,
    port: settings.port,
    trustedProxies: settings.trustedProxies,
    sockets: feeds.endpoint,
    feedsDocument: asyncApiDocument,
    clock,
    logger,
    ...exchangeApi(served, reads, history, login, {
      submit: notHere,
      account: { transfer: notHere, setMargin: notHere, changeDelegation: notHere },
      recover: notHere,
      snapshot: notHere,
      stateHash: async () => stateReport(exchange, replay.rebuilt.map((b) => ({ market: b.marketIndex, hash: b.stateHash() })), journal.lastSeq()),
    }),
    cluster,
    operatorPort: settings.operatorPort ?? undefined,
    operations: {
      notReady: () => {
        if (stopped) return 'shutting down';
        if (failure !== null) return `this ${role} stopped: ${(failure as Error).message}`;
        const { seqs, ms } = lag();
        return ms > READY_LAG_MS ? `this ${role} is ${seqs} journal records (${ms} ms) behind the primary` : null;
      },
      metrics: () => registry.metrics(),
      metricsContentType: registry.contentType,
    },
  });
  feeds.attach(server);

  /**
   * A markets record applied: the routes and the feeds serve the markets as the journal has them
   * now, as a primary's serve its markets file's from its start — new parameters at once, and an
   * appended market's book, trades, prices, summary and channels. The data directory's markets in
   * use follow too (what its journal's end runs under, as a primary's start records them).
   */
  const serveMarkets = () => {
    const markets = [...exchange.markets];
    relay!.addMarkets(exchange.depth.map((d) => d.sequence));
    feeds.serveMarkets(markets, exchange.depth);
    server.serveMarkets(markets);
    marketsInUse.adopt(markets);
  };
  // Once the gateway and the feeds exist, which a markets record in the stream changes: started
  // earlier, a record applied while the gateway was starting would not reach it.
  const following = (async () => {
    for await (const block of source.follow(journal.lastSeq())) {
      if (stopped) break;
      apply(block);
    }
  })().catch((error: Error) => {
    // A failed journal was reported as it failed (`failed`): the process is ending on it.
    if (stopped || error instanceof JournalFailedError) return;
    failure = error;
    logger.fatal({ err: error, lastSeq: journal.lastSeq() }, 'replica stopped following the journal stream');
  });
  logger.info({ role, port: server.port, lastSeq: journal.lastSeq() }, 'replica ready');

  return {
    port: server.port,
    promoted,
    failed,
    lag,
    appliedSeq: () => journal.lastSeq(),
    async stop(options = {}) {
      stopped = true;
      clearInterval(poller);
      clearInterval(watcher);
      feeds.close();
      await server.drain(1000);
      await source.close();
      await following;
      await snapshotSchedule.close(options);
      await journal.close();
      // A history thread that stopped writing (logged when it did) has nothing more to close.
      await projections.close().catch(() => projections.terminate());
      await historyEnv.close();
      // Last: nothing of this node touches the data directory any more (a standby's takeover starts the primary pipeline on it next).
      lock.release();
      logger.info({ role, lastSeq: journal.lastSeq() }, 'replica stopped');
    },
  };
}
