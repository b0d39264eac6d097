/**
 * @module replication/primary
 *
 * The primary's side (the pipeline's `Replication`): before anything is appended it holds the
 * lease (taking it when free or expired; refusing to start while another primary renews it),
 * ships what its journal holds beyond the stream's tail (refusing a journal that diverged from
 * the stream, or ends before it), then attaches the publisher as the journal's block sink —
 * `--durability replicated`: a reply waits for JetStream to store its records; `local`: it
 * does not, and the publisher follows behind.
 *
 * Writes are refused (421 naming the lease holder) once this node is fenced — a publish found
 * another writer's message, or a renewal found the lease taken — or while the lease has not
 * been renewed for its whole time (NATS out of reach: a standby may be taking over). Once fenced,
 * `deposed` resolves: replication/node then stops the primary pipeline and follows the stream as
 * a standby, if this node's journal is a prefix of it.
 *
 * May import: node:crypto, pino, config/, journal/, http/, pipeline (the interface), replication/.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Settings } from '../config/process.ts';
import type { Journal } from '../journal/journal.ts';
import { DataRefusedError } from '../journal/refusal.ts';
import type { HttpReply } from '../http/uws.ts';
import { localUrl } from '../http/gateway.ts';
import type { Replication } from '../pipeline.ts';
import { messageIdAt, retried, streamTail, type JetStreamLink } from './jetstream.ts';
import { FencedError, JetStreamPublisher } from './publisher.ts';
import { Lease } from './lease.ts';

/** This node's lease identity: a new holder id per process, and the URL clients reach it at. */
export function leaseFor(settings: Settings, link: JetStreamLink): Lease {
  const url = settings.replication.publicUrl ?? localUrl(settings.host, settings.port);
  return new Lease(link.lease, { holder: randomUUID(), url }, settings.replication.leaseMs);
}

/** How long a starting primary waits for a lease another holder stopped renewing (then refuses). */
const TAKE_PATIENCE = 2;

/** `lease`: this node's (leaseFor); `held`: it already holds it (a standby that took over). */
export function primaryReplication(settings: Settings, logger: Logger, link: JetStreamLink, lease: Lease, held = false): Replication & { deposed: Promise<string> } {
  let publisher: JetStreamPublisher | null = null;
  let journal: Journal | null = null;
  let deposed: string | null = null;
  let onDeposed: (reason: string) => void = () => {};
  const fence = (reason: string) => {
    if (deposed !== null) return;
    deposed = reason;
    logger.error({ reason, primary: lease.view()?.url }, 'this node is no longer the primary: writes are refused');
    onDeposed(reason);
  };

  return {
    /** Resolves with the reason once this node is fenced (replication/node then turns it into a standby). */
    deposed: new Promise<string>((resolve) => (onDeposed = resolve)),
    async attach(opened: Journal) {
      journal = opened;
      if (!held) {
        const started = performance.now();
        const taken = await lease.takeWhenFree(() => performance.now() - started > TAKE_PATIENCE * settings.replication.leaseMs);
        if (!taken) {
          const holder = lease.view();
          throw new DataRefusedError(
            `another primary holds the lease (${holder?.url ?? 'unknown URL'}, renewed ${holder?.ageMs ?? '?'} ms ago): two primaries would fork the journal. ` +
              'Start this node with --role standby, or stop the other primary first.',
          );
        }
        lease.hold();
      }
      lease.whenLost((holder) => {
        fence(`the lease was taken by ${holder?.url ?? 'another node'}`);
        publisher?.fence(new FencedError('the lease was taken'));
      });
      const started = performance.now();
      const tail = await retried(() => streamTail(link.jsm));
      if (performance.now() - started > 1000) logger.warn({ ms: Math.round(performance.now() - started) }, 'JetStream was slow to answer for the stream tail');
      publisher = new JetStreamPublisher(link.js, link.api.JetStreamApiError, (seq) => messageIdAt(link.jsm, seq), tail, lease.me.holder, settings.replication.durability === 'replicated', logger, (error) => fence(error.message));
      const shipped = await publisher.catchUp(opened, tail);
      opened.ship(publisher);
      logger.info({ durability: settings.replication.durability, streamSeq: tail.journalSeq, shipped, lastSeq: opened.lastSeq(), url: lease.me.url }, 'primary: journal shipped to JetStream');
    },
    cluster: {
      writeRefusal: (): HttpReply | null => {
        if (deposed === null && lease.held()) return null;
        const url = lease.view()?.url;
        const primary = url === undefined || url === lease.me.url ? null : url;
        return {
          status: 421,
          body: `Not the primary: this node was deposed (${deposed ?? 'its lease could not be renewed'}); send writes to ${primary ?? 'the node GET /cluster names'}`,
          contentType: 'text/plain; charset=utf-8',
          headers: primary === null ? {} : { 'x-primary-url': primary },
        };
      },
      headers: () => null,
      describe: () => ({
        role: deposed === null ? 'primary' : 'deposed',
        primary: lease.view()?.url ?? null,
        lease: lease.view(),
        durability: settings.replication.durability,
        lag: { seqs: Math.max(0, (journal?.lastSeq() ?? 0) - (publisher?.shipped ?? 0)), ms: 0 },
        lastSeq: journal?.lastSeq() ?? 0,
        shippedSeq: publisher?.shipped ?? 0,
      }),
    },
    async close() {
      // Give the publisher a moment to ship the last blocks before letting go; what it could not
      // store by then is in the local journal, shipped by `catchUp` when this node next leads.
      const until = performance.now() + 5000;
      while (publisher !== null && !publisher.isFenced && journal !== null && publisher.shipped < journal.lastSeq() && performance.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      publisher?.close();
      if (deposed === null) await lease.release();
      else lease.stop();
      await link.close();
    },
  };
}
