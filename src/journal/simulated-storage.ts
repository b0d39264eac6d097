/**
 * @module journal/simulated-storage
 *
 * An in-memory disk for tests, in the TigerBeetle/LazyFS spirit: writes land in a "page
 * cache" that reads see at once, and reach the "platter" only when flushed. A simulated power
 * cut (`powerLoss`) returns a new disk holding only what was flushed, optionally plus a prefix
 * of the writes that were being flushed, the last of them torn. `tear` and `corrupt` damage
 * stored records in place.
 *
 * Flushing is manual by default (`flush()`), so a test decides exactly when durability
 * happens; `autoFlush` flushes on the next macrotask after each `sync()`.
 *
 * Invariants: flushed writes are a prefix of all writes, in order. Not for production.
 * May import: journal/storage.
 */
import type { JournalStorage } from './storage.ts';

interface PendingWrite {
  seq: number;
  /** undefined = a delete (from truncateAfter). */
  record: Uint8Array | undefined;
}

interface SyncWaiter {
  /** Resolved once this many writes have been flushed in total. */
  upTo: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export interface PowerLossOptions {
  /** Of the writes not yet flushed, how many made it whole (default 0). */
  survivingWrites?: number;
  /** Then the next write survives torn, with only this many of its bytes (default: not at all). */
  tornBytes?: number;
}

export class SimulatedJournalStorage implements JournalStorage {
  /** Flush on the next macrotask after each `sync()` instead of waiting for `flush()`. */
  autoFlush: boolean;
  /** A simulated power cut can tear the write in flight (`powerLoss({ tornBytes })`). */
  readonly tearsWrites = true;
  private platter = new Map<number, Uint8Array>();
  private cache = new Map<number, Uint8Array>();
  /** The highest seq in `cache` (0 when empty), kept as writes and deletes happen. */
  private last = 0;
  private pending: PendingWrite[] = [];
  private flushedWrites = 0;
  private totalWrites = 0;
  private waiters: SyncWaiter[] = [];
  private failure: Error | null = null;
  private dead = false;

  constructor(options: { autoFlush?: boolean } = {}) {
    this.autoFlush = options.autoFlush ?? false;
  }

  put(seq: number, record: Uint8Array): void {
    this.assertAlive();
    this.cache.set(seq, record);
    if (seq > this.last) this.last = seq;
    this.pending.push({ seq, record });
    this.totalWrites++;
  }

  sync(): Promise<void> {
    return this.untilFlushed(this.autoFlush);
  }

  /** The simulated disk has no page cache that outlives the process: committed means flushed (it starts no flush). */
  committed(): Promise<void> {
    return this.untilFlushed(false);
  }

  private untilFlushed(scheduleFlush: boolean): Promise<void> {
    // After a power cut the old process is gone: its pending syncs never complete.
    if (this.dead) return new Promise(() => {});
    if (this.failure) return Promise.reject(this.failure);
    if (this.flushedWrites === this.totalWrites) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ upTo: this.totalWrites, resolve, reject });
      if (scheduleFlush) setImmediate(() => this.dead || this.flush());
    });
  }

  /** Flushes the oldest `count` pending writes (default all) and resolves the syncs they complete. */
  flush(count: number = this.pending.length): void {
    this.assertAlive();
    if (this.failure) return;
    for (const write of this.pending.splice(0, count)) this.applyToPlatter(write);
    this.flushedWrites += count;
    this.waiters = this.waiters.filter((w) => {
      if (w.upTo > this.flushedWrites) return true;
      w.resolve();
      return false;
    });
  }

  /** Makes the next flushes fail (an EIO): pending and future syncs reject with `error`. */
  fail(error: Error): void {
    this.failure = error;
    for (const w of this.waiters) w.reject(error);
    this.waiters = [];
  }

  /** Writes queued but not flushed. */
  unflushedWrites(): number {
    return this.pending.length;
  }

  /**
   * The disk as it is after a power cut now: flushed writes, plus `survivingWrites` of the
   * pending ones, plus the next one torn to `tornBytes`. This disk is dead afterwards.
   */
  powerLoss(options: PowerLossOptions = {}): SimulatedJournalStorage {
    this.assertAlive();
    const after = new SimulatedJournalStorage({ autoFlush: this.autoFlush });
    const surviving = Math.min(options.survivingWrites ?? 0, this.pending.length);
    for (let i = 0; i < surviving; i++) this.applyToPlatter(this.pending[i]);
    const torn = this.pending[surviving];
    if (torn?.record && options.tornBytes !== undefined) this.platter.set(torn.seq, torn.record.slice(0, options.tornBytes));
    // This disk is dead: the new one takes its platter as it is. Records are never changed in
    // place once written (`tear` and `corrupt` replace them), so nothing is copied.
    after.platter = this.platter;
    after.cache = new Map(this.platter);
    after.last = after.scanLastKey();
    this.platter = new Map();
    this.dead = true;
    this.waiters = [];
    return after;
  }

  /** Keeps only the first `keepBytes` bytes of the stored record `seq` (on the platter too). */
  tear(seq: number, keepBytes: number): void {
    this.replace(seq, (record) => record.slice(0, keepBytes));
  }

  /** Flips bit 0 of byte `byteIndex` of the stored record `seq`. */
  corrupt(seq: number, byteIndex: number): void {
    this.replace(seq, (record) => {
      const copy = record.slice();
      copy[byteIndex] ^= 1;
      return copy;
    });
  }

  /** Removes the stored record `seq` (a lost write in the middle). */
  drop(seq: number): void {
    this.cache.delete(seq);
    this.platter.delete(seq);
    if (seq === this.last) this.last = this.scanLastKey();
  }

  lastKey(): number {
    return this.last;
  }

  firstKey(): number {
    let first = 0;
    for (const seq of this.cache.keys()) if (first === 0 || seq < first) first = seq;
    return first;
  }

  get(seq: number): Uint8Array | undefined {
    return this.cache.get(seq);
  }

  *range(from: number, to: number): Iterable<Uint8Array> {
    const high = Math.min(to, this.last);
    const low = Math.max(from, 0);
    if (high - low >= 2 * this.cache.size) {
      // Sparse keys (a test's own seqs): sort what there is rather than walk the gaps.
      const keys = [...this.cache.keys()].filter((k) => k >= from && k <= to).sort((a, b) => a - b);
      for (const key of keys) yield this.cache.get(key)!;
      return;
    }
    // A journal's seqs are dense: walk them in order, skipping any dropped one.
    for (let seq = low; seq <= high; seq++) {
      const record = this.cache.get(seq);
      if (record) yield record;
    }
  }

  async truncateAfter(seq: number): Promise<void> {
    for (const key of [...this.cache.keys()]) {
      if (key > seq) {
        this.cache.delete(key);
        this.pending.push({ seq: key, record: undefined });
        this.totalWrites++;
      }
    }
    if (this.last > seq) this.last = this.scanLastKey();
    const done = this.sync();
    if (!this.autoFlush) this.flush();
    await done;
  }

  sizeBytes(): number {
    let bytes = 0;
    for (const record of this.cache.values()) bytes += record.length;
    return bytes;
  }

  async close(): Promise<void> {}

  private scanLastKey(): number {
    let last = 0;
    for (const seq of this.cache.keys()) if (seq > last) last = seq;
    return last;
  }

  private applyToPlatter(write: PendingWrite): void {
    if (write.record) this.platter.set(write.seq, write.record);
    else this.platter.delete(write.seq);
  }

  private replace(seq: number, change: (record: Uint8Array) => Uint8Array): void {
    const record = this.cache.get(seq);
    if (!record) throw new Error(`simulated disk: no record ${seq}`);
    const changed = change(record);
    this.cache.set(seq, changed);
    if (this.platter.has(seq)) this.platter.set(seq, changed);
  }

  private assertAlive(): void {
    if (this.dead) throw new Error('simulated disk: used after power loss');
  }
}
