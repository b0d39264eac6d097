/**
 * @module replication/jetstream
 *
 * The journal's copy in NATS JetStream: one stream (`JOURNAL_STREAM`, subject
 * `JOURNAL_SUBJECT`) whose messages are runs of whole journal records back to back — the
 * journal's block layout (journal/lmdb-storage), each record carrying its own seq, checksum
 * and chain link — with the run's first journal seq as the message id; and a key-value bucket
 * holding the primary's lease, one key, written with a compare-and-set on the bucket's stream
 * sequence (`leaseKey`). Opening creates both when absent (with `replicas` copies).
 *
 * Owns: the connection options, the names, the stream's tail (the last journal seq it holds)
 * and finding the message that holds a journal seq (a binary search: message ids are not an
 * index the server can look up). The NATS client packages load when a link is opened, not with
 * the process: an exchange without `--nats` never loads them (about 0.1 s of CPU per start).
 * May import: @nats-io/transport-node, @nats-io/jetstream, @nats-io/kv (loaded when a link opens), journal/record, journal/lmdb-storage (the block layout), replication/lease (types).
 * Invariant: messages hold consecutive records in seq order, message k+1 starting where k ended.
 */
import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { blockRecords } from '../journal/lmdb-storage.ts';
import { recordSeq, viewOf } from '../journal/record.ts';
import type { LeaseKey } from './lease.ts';

export const JOURNAL_STREAM = 'EXCHANGE_JOURNAL';
export const JOURNAL_SUBJECT = 'exchange.journal';
const LEASE_BUCKET = 'exchange_lease';
const LEASE_KEY = 'primary';
/** How long closing waits for a drain before closing the connection outright. */
const CLOSE_DRAIN_MS = 2000;

export interface JetStreamLink {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** The lease's key (replication/lease). */
  lease: LeaseKey;
  /** The JetStream package itself, loaded with the link: its enums and error classes. */
  api: typeof import('@nats-io/jetstream');
  close(): Promise<void>;
}

/** Connects (retrying for ever once connected: a NATS node may restart) and makes sure the stream and the lease bucket exist. */
export async function openJetStream(urls: readonly string[], replicas: number, name: string): Promise<JetStreamLink> {
  const [{ connect, headers }, api, { Kvm }] = await Promise.all([import('@nats-io/transport-node'), import('@nats-io/jetstream'), import('@nats-io/kv')]);
  const { jetstream, jetstreamManager, RetentionPolicy, StorageType, DiscardPolicy } = api;
  const nc = await connect({ servers: [...urls], name, maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 5000 });
  try {
    const jsm = await jetstreamManager(nc, { timeout: 5000 });
    try {
      await jsm.streams.info(JOURNAL_STREAM);
    } catch {
      try {
        await jsm.streams.add({
          name: JOURNAL_STREAM,
          subjects: [JOURNAL_SUBJECT],
          storage: StorageType.File,
          retention: RetentionPolicy.Limits,
          discard: DiscardPolicy.Old,
          num_replicas: replicas,
          // Message ids are remembered this long: a publish retried within it is stored once.
          duplicate_window: 120 * 1e9,
        });
      } catch (error) {
        // Another node created it between our look and our add.
        await jsm.streams.info(JOURNAL_STREAM).catch(() => Promise.reject(error));
      }
    }
    const bucket = await new Kvm(nc).create(LEASE_BUCKET, { replicas, history: 1 });
    const js = jetstream(nc, { timeout: 5000 });
    return {
      nc,
      js,
      jsm,
      lease: leaseKey(bucket, js, headers),
      api,
      close: async () => {
        // A drain waits for the server; one that cannot answer (it is gone) gets a plain close.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_DRAIN_MS)));
        await Promise.race([nc.drain().catch(() => {}), late]);
        clearTimeout(timer);
        if (!nc.isClosed()) await nc.close();
      },
    };
  } catch (error) {
    // Connected, but JetStream did not answer (a server restarting): a caller that tries again must not leave this connection open.
    await nc.close().catch(() => {});
    throw error;
  }
}

/**
 * The lease's key, compared and set on its bucket's stream sequence (`expect.lastSequence`), not
 * on the key's (`kv.update`): before 2.9.21, a clustered nats-server checks a key's expected
 * revision before the write is replicated, not as it is applied, so writes in flight together
 * with the same revision all succeed (nats-server#4320; Debian 12 ships 2.9.10) — two standbys
 * took the lease at once (test/replication/lease). The stream's own sequence is checked in the
 * order writes are proposed, as the journal stream's publisher relies on. The bucket holds this
 * one key: its stream's last sequence is the key's revision. A key with no entry (never written,
 * or purged) is revision 0, written on the condition that it still has none: the one per-key
 * check made as the write is applied, where a stream-wide 0 is no condition at all before 2.10.
 * Reads may come from any copy (direct get) and be a moment old: a write on an old revision is
 * refused, and nothing else trusts them.
 */
function leaseKey(bucket: KV, js: JetStreamClient, headers: () => MsgHdrs): LeaseKey {
  const subject = `$KV.${LEASE_BUCKET}.${LEASE_KEY}`;
  return {
    read: async () => {
      const entry = await bucket.get(LEASE_KEY);
      return { value: entry !== null && entry.operation === 'PUT' && entry.length > 0 ? entry.value : null, revision: entry?.revision ?? 0 };
    },
    write: async (value, revision) => {
      // A deletion is the key-value store's own: an empty message marked `DEL`.
      const marked = value === null ? headers() : undefined;
      marked?.set('KV-Operation', 'DEL');
      const expect = revision === 0 ? { lastSubjectSequence: 0 } : { lastSequence: revision };
      return (await js.publish(subject, value ?? new Uint8Array(0), { expect, headers: marked })).seq;
    },
  };
}

/** The records of a message (views into its data). */
export function recordsOf(data: Uint8Array): Uint8Array[] {
  return [...blockRecords(data)];
}

/** The journal seq of a message's first and last record. */
export function seqSpan(data: Uint8Array): { first: number; last: number } {
  const records = recordsOf(data);
  const first = recordSeq(viewOf(data), data.byteOffset);
  return { first, last: first + records.length - 1 };
}

export interface StreamTail {
  /** The stream's last message sequence (0 when empty). */
  streamSeq: number;
  /** The journal seq of the last record it holds (0 when empty). */
  journalSeq: number;
  /** That last message's bytes (the last records), or null. */
  data: Uint8Array | null;
  /** When JetStream stored it (ms), or 0. */
  storedAt: number;
}

/** `read` retried while JetStream times out (a NATS node restarting, a leader election), for up to `withinMs`. */
export async function retried<T>(read: () => Promise<T>, withinMs = 30_000): Promise<T> {
  const until = performance.now() + withinMs;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (performance.now() > until || !/timeout|no responders|503/i.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

export async function streamTail(jsm: JetStreamManager): Promise<StreamTail> {
  const info = await jsm.streams.info(JOURNAL_STREAM);
  const last = info.state.last_seq;
  if (info.state.messages === 0) return { streamSeq: last, journalSeq: 0, data: null, storedAt: 0 };
  const message = await jsm.streams.getMessage(JOURNAL_STREAM, { seq: last });
  if (message === null) throw new Error(`replication: stream message ${last} is missing`);
  return { streamSeq: last, journalSeq: seqSpan(message.data).last, data: message.data, storedAt: message.timestamp ? Date.parse(message.timestamp) : 0 };
}

/** The message id (`Nats-Msg-Id`) of stream message `streamSeq`: '' for one without, null when there is none (yet). */
export async function messageIdAt(jsm: JetStreamManager, streamSeq: number): Promise<string | null> {
  const message = await jsm.streams.getMessage(JOURNAL_STREAM, { seq: streamSeq });
  return message === null ? null : (message.header?.get('Nats-Msg-Id') ?? '');
}

/**
 * The stream sequence of the message holding journal seq `seq`, or of the first message after
 * it; `last + 1` when the stream does not reach it.
 */
export async function messageHolding(jsm: JetStreamManager, seq: number): Promise<number> {
  const info = await jsm.streams.info(JOURNAL_STREAM);
  let low = info.state.first_seq;
  let high = info.state.last_seq;
  if (info.state.messages === 0) return high + 1;
  // The first message whose last record is at or after `seq`.
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const message = await jsm.streams.getMessage(JOURNAL_STREAM, { seq: middle });
    if (message === null || seqSpan(message.data).last < seq) low = middle + 1;
    else high = middle;
  }
  const message = await jsm.streams.getMessage(JOURNAL_STREAM, { seq: low });
  return message !== null && seqSpan(message.data).last >= seq ? low : info.state.last_seq + 1;
}
