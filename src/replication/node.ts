/**
 * @module replication/node
 *
 * What this process runs, by `--role` (docs/replication.md): without `--nats` the embedded
 * exchange (no NATS, nothing changed); a primary that ships its journal; a read replica; or a
 * standby. A node's role changes while it runs, on the same data directory and the same port:
 * a standby whose lease is taken becomes the primary pipeline; a primary that finds itself
 * deposed (fenced) stops its pipeline and follows the stream as a standby — cutting the records
 * it journaled and never shipped when it ran with `--durability replicated` (no reply waited on
 * them); with `local` durability, when its journal holds records the stream does not (history
 * diverged, and they may have been acknowledged), it stops the process (exit 1). A standby whose
 * takeover finds the stream gone on past what it applied (the old primary's last blocks, stored
 * after the standby read the stream's end) lets the lease go and follows the stream again.
 * Following again waits for NATS to answer, however long, until the node is stopped.
 *
 * The data directory's LOCK (storage/directory-lock) is held by whatever serves it — the
 * primary pipeline or the replica — and a change of role hands it on in order: the role
 * stopping lets it go as its last step, after its listener is closed and its stores are, and the
 * next takes it before it opens anything. So no moment has the directory served unlocked or by
 * two holders, and a late release by the old holder cannot remove the new one's LOCK (it is
 * released by token, not by pid: both are this process). A failed start of the next role lets
 * it go again, having closed what it opened.
 *
 * A replica or standby whose journal's storage fails (its disk full) fails the node, as a
 * primary's does (`failed`: exit 70); a takeover that fails on this node's own data (the
 * replica's last flush, the pipeline's start) lets the lease go before the process ends, so
 * another standby takes over at once.
 * May import: node:timers/promises, pino, config/, journal/refusal, http/gateway (localUrl), pipeline, replication/.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Settings } from '../config/process.ts';
import { DataRefusedError } from '../journal/refusal.ts';
import { localUrl } from '../http/gateway.ts';
import { startExchange, type PipelineOptions, type RunningExchange } from '../pipeline.ts';
import { openJetStream, type JetStreamLink } from './jetstream.ts';
import { JetStreamSource } from './follower.ts';
import type { Lease } from './lease.ts';
import { leaseFor, primaryReplication } from './primary.ts';
import { BehindTheStreamError } from './publisher.ts';
import { startReplica, type ReplicaOptions } from './replica.ts';

/** How long a reconnect waits between attempts to reach NATS. */
const RECONNECT_MS = 500;
/** How long an abort waits for NATS to delete the lease it held. */
const RELEASE_WITHIN_MS = 1000;

/** What main.ts reads of a node: a primary has all of a `RunningExchange`, a replica its port. */
export type RunningNode = Pick<RunningExchange, 'port' | 'stop'> & Partial<Pick<RunningExchange, 'operatorPort' | 'threads' | 'failed' | 'abort'>>;

export async function startNode(settings: Settings, logger: Logger, options: Pick<PipelineOptions, 'cancel'> = {}): Promise<RunningNode> {
  const { role, natsUrls, natsReplicas, publicUrl } = settings.replication;
  // A replicated node's start is its role's (a replica follows the stream): a stop during it waits for it.
  if (natsUrls.length === 0) return startExchange(settings, logger, options);
  const connect = () => openJetStream(natsUrls, natsReplicas, `exchange-${role}`);
  // Port 0 picks a free port: the lease names the one bound (from the next renewal on).
  const named = (lease: Lease, port: number) => {
    if (publicUrl === null) lease.me.url = localUrl(settings.host, port);
  };
  /** What answers on this node's port now, and the change of role under way. */
  let current: { stop(): Promise<void> };
  /** The primary pipeline while this node leads: the death of one of its threads is the node's failure. */
  let leading: RunningExchange | undefined;
  /** The lease the primary pipeline holds: an abort lets it go (a standby takes over at once). */
  let leadingLease: Lease | undefined;
  let reportFailed!: (reason: string) => void;
  const failed = new Promise<string>((resolve) => (reportFailed = resolve));
  let change: Promise<void> = Promise.resolve();
  /** Aborted by `stop`: a reconnect waiting for NATS gives up, and no change of role begins. */
  const stopping = new AbortController();
  const changeTo = (what: string, run: () => Promise<void>) => {
    // A stop under way: no new role (it would outlive the stop), and nothing to hand over.
    if (stopping.signal.aborted) return;
    change = run();
    change.catch((error) => {
      logger.fatal({ err: error }, `${what} failed`);
      // A refusal (a diverged journal) is the operator's whole report, as at a start.
      if (error instanceof DataRefusedError) console.error(`Cannot go on: ${error.message}`);
      process.exit(1);
    });
  };

  /** The primary pipeline; deposed, it stops and this node follows the stream as a standby. */
  const lead = async (s: Settings, link: JetStreamLink, lease: Lease, held: boolean): Promise<RunningExchange> => {
    const replication = primaryReplication(s, logger, link, lease, held);
    const exchange = await startExchange(s, logger, { replication });
    named(lease, exchange.port);
    current = leading = exchange;
    leadingLease = lease;
    void exchange.failed.then((reason) => {
      if (leading === exchange) reportFailed(reason);
    });
    void replication.deposed.then((reason) =>
      changeTo('following the stream after being deposed', async () => {
        logger.warn({ reason }, 'deposed: stopping the primary pipeline to follow the journal stream as a standby');
        // No snapshot: this node's journal may hold records the stream never got (then it stops below).
        leading = undefined;
        await exchange.stop({ snapshot: false });
        // Replicated durability: what this node journaled and never shipped was acknowledged to nobody.
        if (await followAgain({ ...s, port: exchange.port }, { dropUnshipped: s.replication.durability === 'replicated' })) {
          logger.info({ port: exchange.port }, 'deposed primary: this node now follows the journal stream as a standby');
        }
      }),
    );
    return exchange;
  };

  /**
   * A new link once NATS answers. A change of role often comes while NATS is away or restarting
   * (why the lease moved): the node waits for it as a standby would, where one failed connect
   * ended the process (exit 1). Null once the node is stopping.
   */
  const reconnect = async (): Promise<JetStreamLink | null> => {
    for (let attempt = 1; !stopping.signal.aborted; attempt++) {
      try {
        const link = await connect();
        if (!stopping.signal.aborted) return link;
        await link.close();
      } catch (error) {
        if (attempt === 1 || attempt % 20 === 0) logger.warn({ err: error, attempt }, 'NATS out of reach: retrying, to follow the journal stream');
        await sleep(RECONNECT_MS, undefined, { signal: stopping.signal }).catch(() => {});
      }
    }
    return null;
  };

  /**
   * Follows the stream as a standby on `s`'s port and data directory, on a new link (a primary
   * pipeline's stop closes its own); false when the node was stopped before it could.
   */
  const followAgain = async (s: Settings, options: ReplicaOptions = {}): Promise<boolean> => {
    const standby: Settings = { ...s, replication: { ...s.replication, role: 'standby' } };
    const next = await reconnect();
    if (next === null) {
      current = { stop: async () => {} };
      return false;
    }
    try {
      await follow(standby, next, leaseFor(standby, next), options);
      return true;
    } catch (error) {
      await next.close();
      throw error;
    }
  };

  /** A replica or a standby; a standby that takes the lease becomes the primary pipeline. */
  const follow = async (s: Settings, link: JetStreamLink, lease: Lease, options: ReplicaOptions = {}) => {
    const replica = await startReplica(s, logger, new JetStreamSource(link, logger), lease, options);
    named(lease, replica.port);
    current = replica;
    // Its journal's storage failed (a full disk): the node's failure, as a primary's (exit 70, main.ts).
    void replica.failed.then((reason) => {
      if (current === replica) reportFailed(reason);
    });
    if (s.replication.role === 'standby') {
      void replica.promoted.then((held) =>
        changeTo('taking over as primary', async () => {
          const started = performance.now();
          // The same port: clients that followed GET /cluster to this node keep their URL.
          const here = { ...s, port: replica.port };
          try {
            await replica.stop();
            const exchange = await lead(here, link, held, true);
            logger.info({ port: exchange.port, ms: Math.round(performance.now() - started), url: held.me.url }, 'promoted: this node is now the primary');
          } catch (error) {
            if (!(error instanceof BehindTheStreamError)) {
              // This node's own data failed the takeover (its disk full: the stop's last flush, or
              // the pipeline's start): another node is to lead at once, not after the lease lapses.
              await held.release();
              throw error;
            }
            // The old primary's last blocks were stored after this node read the stream's end
            // (it had not seen the lease taken yet). The failed start let the lease go: apply
            // them, and take it again once it is free.
            logger.warn({ err: error }, 'takeover: the journal stream went on past this node; following it again as a standby');
            await followAgain(here);
          }
        }),
      );
    }
    return replica;
  };

  const link = await connect();
  const lease = leaseFor(settings, link);
  const started = role === 'primary' ? await lead(settings, link, lease, false) : await follow(settings, link, lease);
  return {
    port: started.port,
    ...(role === 'primary' ? { operatorPort: (started as RunningExchange).operatorPort, threads: (started as RunningExchange).threads } : {}),
    stop: async () => {
      stopping.abort();
      // The change under way, and any it began before the abort (a takeover from a follow).
      for (let seen: Promise<void> | undefined; seen !== change; ) await (seen = change).catch(() => {});
      await current.stop();
    },
    failed,
    // The pipeline failed (a thread, its journal's disk): aborted, it lets the lease go, within
    // RELEASE_WITHIN_MS — NATS away must not hold the exit; the lease then lapses by itself.
    abort: async () => {
      await leading?.abort();
      if (leading !== undefined) await Promise.race([leadingLease?.release(), sleep(RELEASE_WITHIN_MS)]);
    },
  };
}
