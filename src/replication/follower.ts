/**
 * @module replication/follower
 *
 * The journal stream read from a journal seq on: a `BlockSource` (replication/replica) over an
 * ordered JetStream consumer starting at the message that holds the seq after the local
 * journal's last. Ordered consumers are recreated by the client at the right place after a NATS
 * node restarts, so a replica rides through one without missing or repeating a message.
 *
 * May import: @nats-io/jetstream, replication/jetstream, replication/replica.
 */
import { DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import { JOURNAL_STREAM, messageHolding, recordsOf, streamTail, type JetStreamLink } from './jetstream.ts';
import type { BlockSource, ShippedBlock } from './replica.ts';

export class JetStreamSource implements BlockSource {
  private messages: ConsumerMessages | null = null;

  constructor(private readonly link: JetStreamLink) {}

  async *follow(after: number): AsyncGenerator<ShippedBlock> {
    const start = await messageHolding(this.link.jsm, after + 1);
    const consumer = await this.link.js.consumers.get(JOURNAL_STREAM, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start });
    this.messages = await consumer.consume({ max_messages: 256 });
    for await (const message of this.messages) {
      // The consumer reuses nothing, but keep the records independent of the message object.
      yield { records: recordsOf(new Uint8Array(message.data)), storedAt: Math.floor(message.info.timestampNanos / 1e6) };
    }
  }

  async tail(): Promise<number> {
    return (await streamTail(this.link.jsm)).journalSeq;
  }

  async close(): Promise<void> {
    await this.messages?.close();
  }
}
