/**
 * @module replication/publisher
 *
 * The primary's side of the stream: a `BlockSink` (journal/block-sink) that publishes every
 * flushed block to JetStream, in order. One publish is in flight at a time; blocks flushed
 * meanwhile go out together in the next message (up to `maxBytes`), so under load a message
 * carries many group commits — the journal's own batching, one level up.
 *
 * Every publish carries the message id (this writer's id and its first journal seq: a retry
 * after a lost ack is stored once) and the stream sequence it expects to follow
 * (`expect.lastSequence`): if any
 * other writer appended meanwhile — a standby that took over — the server refuses it, and this
 * publisher is fenced for good: every pending and later block is rejected with `FencedError`
 * (the journal then refuses writes). Anything else (no NATS server reachable, a timeout) is
 * retried with the same id and expectation until it is stored.
 *
 * `catchUp` ships what the local journal holds beyond the stream's tail at start (a primary
 * with local durability that stopped before shipping its last blocks), after checking that the
 * stream's last record is this journal's record at that seq: a journal that diverged from the
 * stream (another primary wrote after it), or ends before it (`BehindTheStreamError`), is refused.
 *
 * May import: @nats-io/jetstream (types), journal/, replication/jetstream.
 */
import type { JetStreamClient, JetStreamApiError } from '@nats-io/jetstream';
import type { BlockSink, PartlyShipped } from '../journal/block-sink.ts';
import type { Journal } from '../journal/journal.ts';
import { concat } from '../journal/lmdb-storage.ts';
import { DataRefusedError } from '../journal/refusal.ts';
import { JOURNAL_SUBJECT, recordsOf, type StreamTail } from './jetstream.ts';

/** JetStream's error code for a publish whose `expect.lastSequence` is not the stream's. */
const WRONG_LAST_SEQUENCE = 10071;
const RETRY_MS = 250;

/**
 * The stream holds records after the end of this node's journal: another primary wrote since
 * this node last shipped. A start refuses; a standby's takeover follows the stream again
 * (replication/node): it read the stream's end before the old primary's last blocks were stored.
 */
export class BehindTheStreamError extends DataRefusedError {
  override name = 'BehindTheStreamError';
}

/** Another writer appended to the stream: this one is no longer the primary. */
export class FencedError extends Error {
  constructor(private readonly detail: string) {
    super(`fenced: another primary has written to the journal stream (${detail}); this node takes no more writes`);
    this.name = 'FencedError';
  }

  /** The refusal of a block whose records up to `shippedThrough` the stream stored (journal `PartlyShipped`). */
  partly(shippedThrough: number): FencedError & PartlyShipped {
    return Object.assign(new FencedError(this.detail), { shippedThrough });
  }
}

interface Pending {
  firstSeq: number;
  records: readonly Uint8Array[];
  /** Records of this block put in a message (published, or in the publish under way). */
  sent: number;
  /** Records of this block the stream has stored (a block split over messages: its first part's). */
  stored: number;
  resolve(): void;
  reject(error: Error): void;
}

export interface PublisherLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export class JetStreamPublisher implements BlockSink {
  private queue: Pending[] = [];
  private running = false;
  private fenced: FencedError | null = null;
  private closed = false;
  /** The block split by the publish under way (its first part in it), or null. */
  private sending: Pending | null = null;
  /** The stream's last message sequence as this publisher knows it (its own last publish). */
  private streamSeq: number;
  /** The last journal seq stored in the stream. */
  private shippedSeq: number;
  /** When the last publish was stored (ms). */
  shippedAt = 0;

  constructor(
    private readonly js: JetStreamClient,
    /** The JetStream package's API error class (JetStreamLink `api`), loaded with the link. */
    private readonly apiError: typeof JetStreamApiError,
    /** The message id (`Nats-Msg-Id`) of the stream's message `streamSeq`, null when it has none yet (jetstream `messageIdAt`). */
    private readonly whoseAt: (streamSeq: number) => Promise<string | null>,
    tail: StreamTail,
    /**
     * This writer, unique per process (the lease holder id). JetStream answers a message id it
     * holds already as a duplicate, stored, before it looks at `expect.lastSequence`: with the
     * journal seq alone as the id, a deposed primary's block starting at the seq the new
     * primary had just published was "stored" — its replies went out 200 — and the records
     * were never in the stream (test/replication/unshipped-tail).
     */
    private readonly writer: string,
    readonly holdsAcks: boolean,
    private readonly logger: PublisherLogger,
    /** Called once, when another writer is found to have appended. */
    private readonly onFenced: (error: FencedError) => void,
    private readonly maxBytes = 512 * 1024,
  ) {
    this.streamSeq = tail.streamSeq;
    this.shippedSeq = tail.journalSeq;
  }

  /** The last journal seq JetStream has stored. */
  get shipped(): number {
    return this.shippedSeq;
  }

  get isFenced(): boolean {
    return this.fenced !== null;
  }

  block(firstSeq: number, records: readonly Uint8Array[]): Promise<void> {
    if (this.fenced) return Promise.reject(this.fenced);
    return new Promise((resolve, reject) => {
      this.queue.push({ firstSeq, records, sent: 0, stored: 0, resolve, reject });
      if (!this.running) void this.run();
    });
  }

  /**
   * Ships the local journal's records after the stream's tail (start-up, before the sink is
   * attached). Refuses a journal whose record at the tail is not the stream's, or that ends before it.
   */
  async catchUp(journal: Journal, tail: StreamTail): Promise<number> {
    if (tail.journalSeq > journal.lastSeq()) {
      throw new BehindTheStreamError(
        `this node's journal ends at seq ${journal.lastSeq()}, but the journal stream holds records up to seq ${tail.journalSeq}: ` +
          'another primary has written since this node last was one. Nothing was changed. Start this node as --role standby (it catches up from the stream), or restore its data directory from the current primary.',
      );
    }
    if (tail.data !== null) {
      const records = recordsOf(tail.data);
      const streamLast = records[records.length - 1];
      const local = [...journal.range(tail.journalSeq, tail.journalSeq)][0]?.record;
      if (local === undefined || !equalBytes(local, streamLast)) {
        throw new DataRefusedError(
          `this node's journal record at seq ${tail.journalSeq} differs from the journal stream's: the histories diverged (another primary wrote after this node's last shipped record). ` +
            'Nothing was changed. Start this node as --role standby on a new data directory, or restore it from the current primary.',
        );
      }
    }
    let shipped = 0;
    let run: Uint8Array[] = [];
    let first = tail.journalSeq + 1;
    const send = async () => {
      if (run.length === 0) return;
      await this.block(first, run);
      shipped += run.length;
      first += run.length;
      run = [];
    };
    for (const entry of journal.range(tail.journalSeq + 1)) {
      run.push(new Uint8Array(entry.record));
      if (run.length === 4096) await send();
    }
    await send();
    return shipped;
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const { data, firstSeq, done, split } = this.nextMessage();
        this.sending = split?.pending ?? null;
        const outcome = await this.publish(firstSeq, data);
        this.sending = null;
        if (outcome === 'stored') {
          for (const pending of done) pending.resolve();
          if (split !== null) split.pending.stored = split.sent;
        }
        // Refused by the server: none of it is stored, so its replies can say so (421) now —
        // they are out of the queue `fence` rejects. Closed while retrying: it may have been
        // stored (a lost ack), so it stays unresolved, an unknown outcome.
        else if (outcome === 'refused') for (const pending of done) pending.reject(this.refusal(pending));
        // A split block `fence` left alone while its part was in flight: refused now, with what was stored.
        if (split !== null && this.fenced !== null && outcome !== 'closed') split.pending.reject(this.refusal(split.pending));
        if (outcome !== 'stored') return;
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * The next message: whole queued records from the head, up to `maxBytes` (at least one record);
   * `done`, the blocks it ends, and `split`, the block it holds the first part of (its records sent by then).
   */
  private nextMessage(): { data: Uint8Array; firstSeq: number; done: Pending[]; split: { pending: Pending; sent: number } | null } {
    const parts: Uint8Array[] = [];
    let bytes = 0;
    const firstSeq = this.queue[0].firstSeq + this.queue[0].sent;
    const done: Pending[] = [];
    while (this.queue.length > 0) {
      const head = this.queue[0];
      const from = head.sent;
      while (head.sent < head.records.length && (parts.length === 0 || bytes + head.records[head.sent].length <= this.maxBytes)) {
        bytes += head.records[head.sent].length;
        parts.push(head.records[head.sent++]);
      }
      // A block none of whose records fit is not in this message: nothing of it is in flight.
      if (head.sent < head.records.length) return { data: concat(parts), firstSeq, done, split: head.sent > from ? { pending: head, sent: head.sent } : null };
      done.push(this.queue.shift()!);
    }
    return { data: concat(parts), firstSeq, done, split: null };
  }

  /**
   * Whether the message was stored, refused (another writer appended: this one is fenced) or
   * given up (closed). `expect.lastSequence` puts a stored message at `streamSeq + 1`, so an
   * answer that says otherwise proves nothing, and neither does a refusal after a try whose
   * answer was lost (that try may be the message found there: a duplicate is recognised only
   * within the stream's duplicate window). Both are settled by reading the stream there
   * (`whoseAt`): this message, another writer's, or nothing yet (try again).
   */
  private async publish(firstSeq: number, data: Uint8Array): Promise<'stored' | 'refused' | 'closed'> {
    const id = `${this.writer}:${firstSeq}`;
    const next = this.streamSeq + 1;
    const stored = (): 'stored' => {
      this.streamSeq = next;
      this.shippedSeq = firstSeq + recordsOf(data).length - 1;
      this.shippedAt = Date.now();
      return 'stored';
    };
    const refused = (detail: string): 'refused' => {
      this.fence(new FencedError(`publishing seq ${firstSeq} after stream message ${next - 1}: ${detail}`));
      return 'refused';
    };
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        const ack = await this.js.publish(JOURNAL_SUBJECT, data, { msgID: id, expect: { lastSequence: next - 1 } });
        if (ack.seq === next) return stored();
        // A duplicate answered while its original was not applied yet (seq 0 before nats-server 2.10.19).
        const there = await this.whoseAt(next);
        if (there === id) return stored();
        if (there !== null) return refused(`the stream holds ${there} there`);
      } catch (error) {
        if (error instanceof this.apiError && error.code === WRONG_LAST_SEQUENCE) {
          if (attempt === 0) return refused(error.message);
          const there = await this.whoseAt(next).catch(() => undefined);
          if (there === id) return stored();
          if (there !== undefined) return refused(error.message);
        }
        if (attempt % 20 === 0) this.logger.warn({ seq: firstSeq, attempt, error: String(error) }, 'journal block not stored by JetStream yet: retrying');
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    return 'closed';
  }

  /** Marks this writer deposed: every waiting and later block is refused. */
  fence(error: FencedError): void {
    if (this.fenced) return;
    this.fenced = error;
    this.logger.error({ error: error.message }, 'journal publishing fenced: this node is no longer the primary');
    // A block split over messages whose first part the stream stored: those records were taken.
    // A split block whose next part is in flight waits for the server's answer (`run`): that part may be stored.
    for (const pending of this.queue) if (pending !== this.sending) pending.reject(this.refusal(pending));
    this.queue = [];
    this.onFenced(error);
  }

  /** Why `pending` is refused, once fenced: with the seqs of it the stream stored, if it was split and its first part stored. */
  private refusal(pending: Pending): FencedError {
    return pending.stored > 0 ? this.fenced!.partly(pending.firstSeq + pending.stored - 1) : this.fenced!;
  }

  /** Stops retrying (shutdown); waiting blocks stay unresolved. */
  close(): void {
    this.closed = true;
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
