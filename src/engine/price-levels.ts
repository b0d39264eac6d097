/**
 * @module engine/price-levels
 *
 * One side of a book: its live price levels and, per level, the total resting quantity and
 * the head and tail of its FIFO (order slots, linked by the book). Levels are numbered
 * slots in typed arrays, recycled through a free list.
 *
 * Order among levels: `keys` holds side × price for every live level in ascending order, so
 * the best level (highest bid, lowest ask) is always the last entry. The best price is O(1);
 * opening or closing a level costs a binary search plus a move of the entries behind it,
 * which near the top of the book (where nearly all activity is) is a handful. `byPrice`
 * (a `SlotIndex`) finds the level of an exact price in O(1) and is never iterated.
 *
 * May import: engine/. Nothing outside the engine.
 */
import { SlotIndex } from './slot-index.ts';
import type { Side } from './types.ts';

export const NO_LEVEL = -1;
export const NO_SLOT = -1;

export class PriceLevels {
  readonly side: Side;
  /** side × price of each live level, ascending: best last. */
  private keys = new Float64Array(64);
  /** The level at each position of `keys`. */
  private ranked = new Int32Array(64);
  private live = 0;
  private readonly byPrice = new SlotIndex(64);

  /** Per level: price, total resting lots, first and last order slot of its FIFO. */
  price = new Float64Array(64);
  total = new Float64Array(64);
  head = new Int32Array(64);
  tail = new Int32Array(64);
  private free = new Int32Array(64);
  private freeCount = 0;
  private used = 0;

  constructor(side: Side) {
    this.side = side;
  }

  /** How many levels are live. */
  get count(): number {
    return this.live;
  }

  /** The best level, or NO_LEVEL. */
  bestLevel(): number {
    return this.live === 0 ? NO_LEVEL : this.ranked[this.live - 1];
  }

  /** The best price, or 0 when the side is empty. */
  bestPrice(): number {
    return this.live === 0 ? 0 : this.side * this.keys[this.live - 1];
  }

  /** The level `rank` places from the best (0 = best). */
  levelAt(rank: number): number {
    return this.ranked[this.live - 1 - rank];
  }

  /** The level at exactly `price`, or NO_LEVEL. */
  find(price: number): number {
    return this.byPrice.get(price);
  }

  /** A new, empty level at `price` (which must have none). */
  open(price: number): number {
    const level = this.freeCount > 0 ? this.free[--this.freeCount] : this.allocate();
    this.price[level] = price;
    this.total[level] = 0;
    this.head[level] = NO_SLOT;
    this.tail[level] = NO_SLOT;
    this.byPrice.set(price, level);

    if (this.live === this.keys.length) this.growRanks();
    const key = this.side * price;
    const keys = this.keys;
    let at = this.live;
    if (at > 0 && keys[at - 1] > key) {
      // Binary search for the first key above `key`; everything from there moves up one.
      let lo = 0;
      let hi = at - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (keys[mid] > key) hi = mid;
        else lo = mid + 1;
      }
      at = lo;
      keys.copyWithin(at + 1, at, this.live);
      this.ranked.copyWithin(at + 1, at, this.live);
    }
    keys[at] = key;
    this.ranked[at] = level;
    this.live++;
    return level;
  }

  /** Removes an empty level. */
  close(level: number): void {
    const price = this.price[level];
    this.byPrice.delete(price);
    const key = this.side * price;
    const last = this.live - 1;
    if (this.keys[last] !== key) {
      let lo = 0;
      let hi = last;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (this.keys[mid] < key) lo = mid + 1;
        else hi = mid;
      }
      this.keys.copyWithin(lo, lo + 1, this.live);
      this.ranked.copyWithin(lo, lo + 1, this.live);
    }
    this.live = last;
    this.free[this.freeCount++] = level;
  }

  /** Throws if the ranking, the price index and the levels disagree. */
  validate(): void {
    if (this.byPrice.size !== this.live) throw new Error(`side ${this.side}: price index has ${this.byPrice.size} levels, ranking ${this.live}`);
    for (let i = 0; i < this.live; i++) {
      const level = this.ranked[i];
      if (i > 0 && !(this.keys[i - 1] < this.keys[i])) throw new Error(`side ${this.side}: levels out of price order at rank ${i}`);
      if (this.side * this.price[level] !== this.keys[i]) throw new Error(`side ${this.side}: level ${level} ranked under the wrong price`);
      if (this.byPrice.get(this.price[level]) !== level) throw new Error(`side ${this.side}: price index misses level ${level} at ${this.price[level]}`);
      if (this.head[level] === NO_SLOT) throw new Error(`side ${this.side}: empty level at price ${this.price[level]}`);
    }
  }

  private allocate(): number {
    if (this.used === this.price.length) {
      const n = this.price.length * 2;
      this.price = grownFloat64(this.price, n);
      this.total = grownFloat64(this.total, n);
      this.head = grownInt32(this.head, n);
      this.tail = grownInt32(this.tail, n);
      this.free = grownInt32(this.free, n);
    }
    return this.used++;
  }

  private growRanks(): void {
    this.keys = grownFloat64(this.keys, this.keys.length * 2);
    this.ranked = grownInt32(this.ranked, this.ranked.length * 2);
  }
}

export function grownFloat64(a: Float64Array, length: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(length);
  b.set(a);
  return b;
}

export function grownInt32(a: Int32Array, length: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(length);
  b.set(a);
  return b;
}

export function grownInt8(a: Int8Array, length: number): Int8Array<ArrayBuffer> {
  const b = new Int8Array(length);
  b.set(a);
  return b;
}
