/**
 * @module replication/node
 *
 * What this process runs, by `--role` (docs/replication.md): without `--nats` the embedded
 * exchange (no NATS, nothing changed); a primary that ships its journal; a read replica; or a
 * standby — a replica until the lease expires, then the primary pipeline on the same data
 * directory and the same port.
 * May import: pino, config/, http/gateway (localUrl), pipeline, replication/.
 */
import type { Logger } from 'pino';
import type { Settings } from '../config/process.ts';
import { localUrl } from '../http/gateway.ts';
import { startExchange, type RunningExchange } from '../pipeline.ts';
import { openJetStream } from './jetstream.ts';
import { JetStreamSource } from './follower.ts';
import { leaseFor, primaryReplication } from './primary.ts';
import { startReplica } from './replica.ts';

/** What main.ts reads of a node: a primary has all of a `RunningExchange`, a replica its port. */
export type RunningNode = Pick<RunningExchange, 'port' | 'stop'> & Partial<Pick<RunningExchange, 'operatorPort' | 'threads' | 'failed' | 'abort'>>;

export async function startNode(settings: Settings, logger: Logger): Promise<RunningNode> {
  const { role, natsUrls, natsReplicas, publicUrl } = settings.replication;
  if (natsUrls.length === 0) return startExchange(settings, logger);
  const link = await openJetStream(natsUrls, natsReplicas, `exchange-${role}`);
  const lease = leaseFor(settings, link);
  // Port 0 picks a free port: the lease names the one bound (from the next renewal on).
  const named = (port: number) => {
    if (publicUrl === null) lease.me.url = localUrl(settings.host, port);
  };
  if (role === 'primary') {
    const exchange = await startExchange(settings, logger, { replication: primaryReplication(settings, logger, link, lease) });
    named(exchange.port);
    return exchange;
  }
  const replica = await startReplica(settings, logger, new JetStreamSource(link, logger), lease);
  named(replica.port);
  let current: { stop(): Promise<void> } = replica;
  let promoted: RunningExchange | undefined;
  let promotion: Promise<void> = Promise.resolve();
  if (role === 'standby') {
    promotion = replica.promoted.then(async (held) => {
      const started = Date.now();
      await replica.stop();
      // The same port: clients that followed GET /cluster to this node keep their URL.
      const primary = { ...settings, port: replica.port };
      const exchange = await startExchange(primary, logger, { replication: primaryReplication(primary, logger, link, held, true) });
      current = promoted = exchange;
      logger.info({ port: exchange.port, ms: Date.now() - started, url: held.me.url }, 'promoted: this node is now the primary');
    });
    promotion.catch((error) => {
      logger.fatal({ err: error }, 'taking over as primary failed');
      process.exit(1);
    });
  }
  return {
    port: replica.port,
    stop: async () => {
      await promotion.catch(() => {});
      await current.stop();
    },
    // Once promoted, the primary's threads are this node's: their death is its failure.
    failed: promotion.then(() => promoted?.failed ?? new Promise<never>(() => {})),
    abort: async () => promoted?.abort(),
  };
}
