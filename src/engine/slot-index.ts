/**
 * @module engine/slot-index
 *
 * A hash map from an integer key (orderId, owner, price: any safe integer) to a slot number
 * (>= 0), in two typed arrays with linear probing and backward-shift deletion (no
 * tombstones). A JavaScript `Map` under steady insert/delete churn reallocates its table
 * every few thousand operations (~57 bytes per insert+delete measured on Node 20); this one
 * allocates only when it doubles, so the book's hot path allocates nothing.
 *
 * Keys must be integers (NaN never matches itself and could not be deleted); the sequencer,
 * the ledger and the price checks guarantee that. Load factor ≤ 1/2.
 * Complexity: get, set, delete O(1) expected. Iteration order is the table's: use it only
 * for checks, never for anything that emits events or shapes state.
 * May import: nothing.
 */
const EMPTY = -1;

export class SlotIndex {
  private keys: Float64Array;
  private values: Int32Array;
  private mask: number;
  private count = 0;

  constructor(initialCapacity = 1024) {
    let capacity = 16;
    while (capacity < initialCapacity * 2) capacity *= 2;
    this.keys = new Float64Array(capacity);
    this.values = new Int32Array(capacity).fill(EMPTY);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /** The slot stored under `key`, or -1. */
  get(key: number): number {
    const keys = this.keys;
    const values = this.values;
    const mask = this.mask;
    for (let i = home(key, mask); ; i = (i + 1) & mask) {
      const value = values[i];
      if (value === EMPTY || keys[i] === key) return value;
    }
  }

  has(key: number): boolean {
    return this.get(key) !== EMPTY;
  }

  /** Stores `value` (>= 0) under `key`, replacing any earlier value. */
  set(key: number, value: number): void {
    const mask = this.mask;
    let i = home(key, mask);
    while (this.values[i] !== EMPTY && this.keys[i] !== key) i = (i + 1) & mask;
    if (this.values[i] === EMPTY) {
      if (2 * (this.count + 1) > mask + 1) {
        this.grow();
        this.set(key, value);
        return;
      }
      this.count++;
      this.keys[i] = key;
    }
    this.values[i] = value;
  }

  /** Removes `key` if present; later entries of its probe run shift back to keep lookups short. */
  delete(key: number): void {
    const keys = this.keys;
    const values = this.values;
    const mask = this.mask;
    let hole = home(key, mask);
    for (;;) {
      if (values[hole] === EMPTY) return;
      if (keys[hole] === key) break;
      hole = (hole + 1) & mask;
    }
    this.count--;
    for (let j = (hole + 1) & mask; values[j] !== EMPTY; j = (j + 1) & mask) {
      const want = home(keys[j], mask);
      // Entry j may move into the hole unless its home lies cyclically in (hole, j].
      const stays = hole < j ? want > hole && want <= j : want > hole || want <= j;
      if (!stays) {
        keys[hole] = keys[j];
        values[hole] = values[j];
        hole = j;
      }
    }
    values[hole] = EMPTY;
  }

  /** Visits every entry, in table order (checks only). */
  forEach(visit: (key: number, value: number) => void): void {
    for (let i = 0; i <= this.mask; i++) if (this.values[i] !== EMPTY) visit(this.keys[i], this.values[i]);
  }

  private grow(): void {
    const keys = this.keys;
    const values = this.values;
    const capacity = (this.mask + 1) * 2;
    this.keys = new Float64Array(capacity);
    this.values = new Int32Array(capacity).fill(EMPTY);
    this.mask = capacity - 1;
    this.count = 0;
    for (let i = 0; i < keys.length; i++) if (values[i] !== EMPTY) this.set(keys[i], values[i]);
  }
}

/** Home bucket of an integer key below 2^53: both 32-bit halves mixed (murmur3 finaliser). */
function home(key: number, mask: number): number {
  let h = (key >>> 0) ^ Math.imul((key / 4294967296) >>> 0, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) & mask;
}
