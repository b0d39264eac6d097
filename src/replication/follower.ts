/**
 * @module replication/follower
 *
 * The journal stream read from a journal seq on: a `BlockSource` (replication/replica) over an
 * ordered JetStream consumer starting at the message that holds the seq after the local
 * journal's last.
 *
 * Riding through the loss of a NATS node: the client reconnects to another node and the ordered
 * consumer recreates itself after the last message it delivered, but only once it notices —
 * two missed heartbeats — and it retries a failed check only every `expires`. The library's
 * default (30 s) left a replica silent for half a minute or more while the stream elected a
 * new leader, so pulls here expire after `PULL_EXPIRES_MS` (heartbeats at half that). And the
 * consumer may still give up (its iterator ends, or throws), keep missing heartbeats without
 * recovering, or stall — heartbeats but no messages while the stream grows. The follower then
 * starts a new one after the last stream message it yielded, with a growing pause, and logs
 * why, so a replica never stops following while it runs — and a stop never waits for a
 * consumer still being made.
 *
 * May import: @nats-io/jetstream (types), pino (types), replication/jetstream, replication/replica.
 */
import type { ConsumerMessages } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { JOURNAL_STREAM, messageHolding, recordsOf, retried, seqSpan, streamTail, type JetStreamLink } from './jetstream.ts';
import type { BlockSource, ShippedBlock } from './replica.ts';

/** How long one pull waits on the server: a lost node is noticed within about this long. */
const PULL_EXPIRES_MS = 4000;
/** Pauses between attempts to start a consumer again: 0.25 s doubling to 4 s. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 4000;
/** A consumer silent this long while the stream holds more is replaced (checked as often). */
const STALL_MS = 3000;
/** Missed heartbeats (each half of `PULL_EXPIRES_MS`) after which a consumer is replaced. */
const GIVE_UP_AFTER_MISSED = 3;

export class JetStreamSource implements BlockSource {
  private messages: ConsumerMessages | null = null;
  private closed = false;
  private onClose: () => void = () => {};
  /** Settles (null) at `close`: what a consumer still being made waits for at most. */
  private readonly closing = new Promise<null>((resolve) => (this.onClose = () => resolve(null)));

  constructor(
    private readonly link: JetStreamLink,
    private readonly logger: Logger,
  ) {}

  async *follow(after: number): AsyncGenerator<ShippedBlock> {
    // The stream seq of the last message yielded: where a new consumer resumes.
    let lastStreamSeq: number | null = null;
    let pause = RETRY_FIRST_MS;
    while (!this.closed) {
      let why: unknown = 'the consumer ended';
      try {
        const start = lastStreamSeq === null ? await messageHolding(this.link.jsm, after + 1) : lastStreamSeq + 1;
        const consumer = await this.link.js.consumers.get(JOURNAL_STREAM, { deliver_policy: this.link.api.DeliverPolicy.StartSequence, opt_start_seq: start });
        // Making an ordered consumer retries until JetStream answers, for ever while a node
        // recovers: a stop waits for it no longer (a standby's stop took over 30 s in CI).
        const made = consumer.consume({ max_messages: 256, expires: PULL_EXPIRES_MS });
        const messages = await Promise.race([made, this.closing]);
        // Closed while this consumer was being made: `close` could only close the one before.
        if (messages === null || this.closed) {
          void made.then((m) => m.close(), () => {});
          return;
        }
        this.messages = messages;
        this.report(messages).catch(() => {});
        let lastMessageAt = performance.now();
        const watchdog = setInterval(() => void this.checkStalled(messages, lastStreamSeq ?? start - 1, lastMessageAt).catch(() => {}), STALL_MS);
        try {
          for await (const message of messages) {
            lastStreamSeq = message.seq;
            lastMessageAt = performance.now();
            pause = RETRY_FIRST_MS;
            // The consumer reuses nothing, but keep the records independent of the message object.
            yield { records: recordsOf(new Uint8Array(message.data)), storedAt: Math.floor(message.info.timestampNanos / 1e6) };
          }
        } finally {
          clearInterval(watchdog);
        }
      } catch (error) {
        why = error;
      }
      if (this.closed) return;
      this.logger.warn({ err: why instanceof Error ? why : undefined, reason: why instanceof Error ? undefined : why, resumeAtStreamSeq: lastStreamSeq === null ? null : lastStreamSeq + 1, retryMs: pause }, 'journal stream consumer stopped; starting a new one');
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, RETRY_MAX_MS);
    }
  }

  /**
   * The consumer's own troubles (missed heartbeats, resets), logged as they come. A consumer
   * that keeps missing heartbeats is given up here: it can live on a node that is gone while
   * the library's check of it does not fail (seen when the stream's leader was killed), and
   * then the library retries forever; closing it ends the iterator and `follow` starts anew.
   */
  private async report(messages: ConsumerMessages): Promise<void> {
    for await (const status of messages.status()) {
      if (status.type === 'heartbeats_missed' || status.type === 'reset' || status.type === 'consumer_not_found' || status.type === 'stream_not_found') {
        this.logger.warn({ status }, 'journal stream consumer');
      }
      if (status.type === 'heartbeats_missed' && status.count >= GIVE_UP_AFTER_MISSED) await messages.close();
    }
  }

  /**
   * A consumer that delivers nothing for `STALL_MS` while the stream holds messages after the
   * last one it delivered is replaced. Seen after the loss of a node: the consumer answered
   * heartbeats from a node whose copy of the stream no longer moved, so nothing else noticed.
   */
  private async checkStalled(messages: ConsumerMessages, deliveredStreamSeq: number, lastMessageAt: number): Promise<void> {
    if (performance.now() - lastMessageAt < STALL_MS) return;
    const info = await this.link.jsm.streams.info(JOURNAL_STREAM);
    if (info.state.last_seq <= deliveredStreamSeq) return;
    this.logger.warn({ deliveredStreamSeq, streamLastSeq: info.state.last_seq, leader: info.cluster?.leader }, 'journal stream consumer stalled behind the stream');
    await messages.close();
  }

  async recordAt(seq: number): Promise<Uint8Array | null> {
    return retried(async () => {
      const at = await messageHolding(this.link.jsm, seq);
      const message = await this.link.jsm.streams.getMessage(JOURNAL_STREAM, { seq: at }).catch(() => null);
      if (message === null) return null;
      const { first } = seqSpan(message.data);
      return first > seq ? null : (recordsOf(message.data)[seq - first] ?? null);
    });
  }

  async tail(): Promise<number> {
    return (await streamTail(this.link.jsm)).journalSeq;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.onClose();
    await this.messages?.close();
  }
}
