/**
 * A client's copy of an order book kept only from the book feed, as docs/feeds.md tells a client
 * to keep one: the snapshot, then each delta that chains on the copy (`previous_sequence_number`
 * equal to the copy's `sequence_number`, any other is a gap), the checksum checked after each.
 */
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import type { FeedMessage } from './feed-client.ts';

/** A client's copy of one book, built only from the feed. */
export class BookCopy {
  sequence = -1;
  readonly bids = new Map<string, string>();
  readonly asks = new Map<string, string>();

  apply(m: FeedMessage): void {
    if (m.type === 'snapshot') {
      this.bids.clear();
      this.asks.clear();
    } else {
      assert.equal(m.previous_sequence_number, this.sequence, `${m.channel}: a delta from ${m.previous_sequence_number} on a copy at ${this.sequence} (a gap)`);
    }
    for (const [side, levels] of [[this.bids, m.bids], [this.asks, m.asks]] as const) {
      for (const [price, quantity] of levels as [string, string][]) {
        if (Number(quantity) === 0) side.delete(price);
        else side.set(price, quantity);
      }
    }
    this.sequence = m.sequence_number;
    assert.equal(this.checksum(), m.checksum, `${m.channel} at ${this.sequence}: checksum of the copy differs from the feed's`);
  }

  sorted(side: 'bids' | 'asks'): { price: string; quantity: string }[] {
    const levels = [...this[side]].map(([price, quantity]) => ({ price, quantity }));
    return levels.sort((a, b) => (side === 'bids' ? Number(b.price) - Number(a.price) : Number(a.price) - Number(b.price)));
  }

  /** docs/feeds.md: CRC-32 of the best 25 bids then the best 25 asks, `price:quantity`, `,` between levels, `|` between sides. */
  checksum(): number {
    const side = (s: 'bids' | 'asks') => this.sorted(s).slice(0, 25).map((l) => `${l.price}:${l.quantity}`).join(',');
    return crc32(`${side('bids')}|${side('asks')}`);
  }
}
