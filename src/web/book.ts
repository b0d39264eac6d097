/**
 * @module web/book
 *
 * The page's copy of one market's book, kept only from the `book.<symbol>` feed: the snapshot,
 * then each delta whose `previous_sequence_number` is the copy's `sequence_number` (levels get
 * their new totals; quantity "0" removes one). After every message the copy's checksum must be
 * the feed's (docs/feeds.md, "Checksum recipe"). A delta that does not chain on the copy, or a
 * checksum that differs, makes `apply` answer false: the page subscribes again for a fresh
 * snapshot rather than show a book that is not the exchange's.
 * May import: crc-32. Browser code: no Node module.
 */
// The whole module: crc-32 is CommonJS whose exports Node cannot name to an ES module.
import CRC32 from 'crc-32';

/** `[price, quantity]`, decimal strings as the feed sends them. */
export type Level = [string, string];

export interface BookMessage {
  type: 'snapshot' | 'delta';
  sequence_number: number;
  previous_sequence_number?: number;
  bids: Level[];
  asks: Level[];
  checksum: number;
}

/** Levels per side the checksum covers (docs/feeds.md). */
const CHECKSUM_LEVELS = 25;

export class LocalBook {
  /** -1 until the first snapshot. */
  sequence = -1;
  private readonly bids = new Map<string, string>();
  private readonly asks = new Map<string, string>();

  /** Applies a snapshot or a delta; false when it leaves a copy that is not the exchange's book. */
  apply(message: BookMessage): boolean {
    if (message.type === 'snapshot') {
      this.bids.clear();
      this.asks.clear();
    } else if (message.previous_sequence_number !== this.sequence) {
      return false;
    }
    for (const [side, levels] of [[this.bids, message.bids], [this.asks, message.asks]] as const) {
      for (const [price, quantity] of levels) {
        if (Number(quantity) === 0) side.delete(price);
        else side.set(price, quantity);
      }
    }
    this.sequence = message.sequence_number;
    return this.checksum() === message.checksum;
  }

  /** The best `count` levels of a side, best first. */
  best(side: 'bids' | 'asks', count: number): Level[] {
    const levels = [...this[side]];
    levels.sort(side === 'bids' ? (a, b) => Number(b[0]) - Number(a[0]) : (a, b) => Number(a[0]) - Number(b[0]));
    return levels.slice(0, count);
  }

  private checksum(): number {
    const text = (side: 'bids' | 'asks') => this.best(side, CHECKSUM_LEVELS).map(([p, q]) => `${p}:${q}`).join(',');
    // crc-32 answers a signed 32-bit integer; the feed sends it unsigned.
    return CRC32.str(`${text('bids')}|${text('asks')}`) >>> 0;
  }
}
