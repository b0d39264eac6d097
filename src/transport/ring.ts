/**
 * @module transport/ring
 *
 * A single-producer single-consumer ring of fixed-size binary slots in a SharedArrayBuffer:
 * the hop between the gateway thread and a market thread (commands), and back (events).
 * Layout in `layout.ts`.
 *
 * Producer: `tryClaim()` gives the byte offset of the next free slot (or -1 when full), the
 * caller writes its record there through `view`/`bytes`, `commit()` keeps it, and `publish()`
 * makes every committed slot visible at once (a batch costs one atomic store and at most one
 * notify). `tryWrite()` does all three for a ready record. A full ring is reported, never
 * waited out on the gateway thread: the caller answers 503 and nothing accepted is dropped.
 * A worker that cannot refuse (a market thread emitting events) uses `claimWait()`.
 *
 * Consumer: `drain(handler)` calls `handler(view, offset)` for every published slot, then
 * releases them with one store. No allocation per message. When there is nothing to read,
 * `waitForRecords()` (workers, `Atomics.wait`) or `waitForRecordsAsync()` (main thread,
 * `Atomics.waitAsync`) spin briefly, then sleep; the producer notifies only when the
 * consumer has said it sleeps, so an idle ring burns no core and a busy one pays no syscall.
 *
 * Memory ordering: JavaScript `Atomics` operations are sequentially consistent, and plain
 * typed-array accesses are ordered by them (happens-before through a synchronising atomic
 * pair). The comments at each `Atomics` call say which pairing they rely on.
 *
 * Invariants: one producer thread and one consumer thread per ring (asserted on first use);
 * `0 ≤ (producerCursor − consumerCursor) | 0 ≤ capacity`; capacity is a power of two ≤ 2^30.
 *
 * May import: transport/layout, node:worker_threads.
 */
import { threadId } from 'node:worker_threads';
import {
  RING_MAGIC,
  RING_MAX_CAPACITY,
  kCacheLineBytes,
  kRingCapacity,
  kRingClosed,
  kRingConsumerCursor,
  kRingConsumerOwner,
  kRingConsumerSleeping,
  kRingMagic,
  kRingProducerCursor,
  kRingProducerOwner,
  kRingProducerSleeping,
  kRingSlotBytes,
  kRingSlotsOffset,
  kSlotBytes,
} from './layout.ts';

// Int32Array indexes of the header words.
const iMagic = kRingMagic >> 2;
const iCapacity = kRingCapacity >> 2;
const iSlotBytes = kRingSlotBytes >> 2;
const iProducer = kRingProducerCursor >> 2;
const iConsumer = kRingConsumerCursor >> 2;
const iConsumerSleeping = kRingConsumerSleeping >> 2;
const iProducerSleeping = kRingProducerSleeping >> 2;
const iProducerOwner = kRingProducerOwner >> 2;
const iConsumerOwner = kRingConsumerOwner >> 2;
const iClosed = kRingClosed >> 2;

/** `Atomics.waitAsync` (Node ≥ 16) is in lib ES2024; the project compiles against ES2022. */
type AtomicsWithWaitAsync = typeof Atomics & {
  waitAsync(array: Int32Array, index: number, value: number, timeout?: number): { async: false; value: string } | { async: true; value: Promise<string> };
};

/**
 * How long a waiting side keeps re-reading the cursor before it sleeps. A futex wake-up costs
 * tens to hundreds of µs on a VM; under steady traffic (gaps of a few µs) the consumer stays
 * awake, and after this much idleness it sleeps and stops burning the core.
 */
const DEFAULT_SPIN_MICROS = 50;

/** Called for each record; `offset` is the slot's byte offset in `view`. Must not keep `view` slices. */
export type SlotHandler = (view: DataView, offset: number) => void;

export class Ring {
  readonly buffer: SharedArrayBuffer;
  readonly view: DataView;
  readonly bytes: Uint8Array;
  readonly capacity: number;
  readonly slotBytes: number;
  /** Microseconds of spinning before sleeping; 0 sleeps at once. */
  spinMicros = DEFAULT_SPIN_MICROS;

  private readonly header: Int32Array;
  private readonly mask: number;
  // Producer-local state (only the producer thread touches these).
  private claimed = 0;
  private published = 0;
  private consumerSeen = 0;
  private producerChecked = false;
  // Consumer-local state.
  private readCursor = 0;
  private consumerChecked = false;

  private constructor(buffer: SharedArrayBuffer) {
    this.buffer = buffer;
    this.header = new Int32Array(buffer, 0, kRingSlotsOffset >> 2);
    // Atomics.load (seq-cst): the configuration was written before the buffer was shared
    // (postMessage synchronises too); an atomic read keeps the intent explicit.
    if (Atomics.load(this.header, iMagic) !== RING_MAGIC) throw new Error('Ring: not a ring buffer (bad magic)');
    this.capacity = this.header[iCapacity];
    this.slotBytes = this.header[iSlotBytes];
    this.mask = this.capacity - 1;
    if (buffer.byteLength !== kRingSlotsOffset + this.capacity * this.slotBytes) throw new Error('Ring: buffer size does not match its header');
    this.view = new DataView(buffer);
    this.bytes = new Uint8Array(buffer);
    // Atomics.load (seq-cst): whichever side attaches picks up the cursors as they stand.
    this.published = this.claimed = Atomics.load(this.header, iProducer);
    this.readCursor = this.consumerSeen = Atomics.load(this.header, iConsumer);
  }

  /** A new ring of `capacity` slots (a power of two) of `slotBytes` bytes (a multiple of 8). */
  static create(capacity: number, slotBytes: number = kSlotBytes): Ring {
    if (!Number.isInteger(capacity) || capacity < 2 || capacity > RING_MAX_CAPACITY || (capacity & (capacity - 1)) !== 0) {
      throw new RangeError(`Ring: capacity must be a power of two in [2, 2^30], got ${capacity}`);
    }
    if (!Number.isInteger(slotBytes) || slotBytes < 8 || slotBytes % 8 !== 0) throw new RangeError(`Ring: slotBytes must be a positive multiple of 8, got ${slotBytes}`);
    const buffer = new SharedArrayBuffer(kRingSlotsOffset + capacity * slotBytes);
    const header = new Int32Array(buffer, 0, kRingSlotsOffset >> 2);
    header[iCapacity] = capacity;
    header[iSlotBytes] = slotBytes;
    // Atomics.store (seq-cst) after the plain configuration writes: a reader that sees the
    // magic sees the configuration.
    Atomics.store(header, iMagic, RING_MAGIC);
    return new Ring(buffer);
  }

  /** The same ring seen from another thread (the buffer came through postMessage or workerData). */
  static attach(buffer: SharedArrayBuffer): Ring {
    return new Ring(buffer);
  }

  /** Byte offset of the slot holding sequence `seq`. */
  slotOffset(seq: number): number {
    return kRingSlotsOffset + (seq & this.mask) * this.slotBytes;
  }

  // ── Producer ──────────────────────────────────────────────────────────────────────────────

  /** Byte offset of the next free slot, or -1 when the ring is full. Does not take the slot: `commit()` does. */
  tryClaim(): number {
    if (!this.producerChecked) this.assertOwner(iProducerOwner, 'producer');
    if (((this.claimed - this.consumerSeen) | 0) >= this.capacity) {
      // Atomics.load (seq-cst) pairs with the consumer's Atomics.store of its cursor in
      // drain(): the consumer has finished reading every slot below the value we see, so
      // those slots may be overwritten.
      this.consumerSeen = Atomics.load(this.header, iConsumer);
      if (((this.claimed - this.consumerSeen) | 0) >= this.capacity) return -1;
    }
    return kRingSlotsOffset + (this.claimed & this.mask) * this.slotBytes;
  }

  /** Keeps the slot last returned by `tryClaim()`/`claimWait()`; it becomes visible at `publish()`. */
  commit(): void {
    this.claimed = (this.claimed + 1) | 0;
  }

  /** Makes every committed slot visible to the consumer and wakes it if it sleeps. */
  publish(): void {
    if (this.publishWithoutWake()) this.wake();
  }

  /**
   * Makes every committed slot visible and returns true when the consumer sleeps and is owed a
   * wake (`wake()`), without waking it: a producer that publishes many times in one event-loop
   * turn pays for one wake-up (a futex syscall) instead of one per record.
   */
  publishWithoutWake(): boolean {
    if (this.claimed === this.published) return false;
    this.published = this.claimed;
    // Atomics.store (seq-cst) is the release: the plain writes into the slots happen before
    // it, and the consumer's Atomics.load of this cursor happens after it.
    Atomics.store(this.header, iProducer, this.published);
    // Atomics.load (seq-cst) after the store above (StoreLoad order, which seq-cst gives):
    // either the consumer's re-check after raising its flag sees our cursor, or we see its
    // flag here and it is owed a wake. No wake-up is lost.
    return Atomics.load(this.header, iConsumerSleeping) !== 0;
  }

  /** Wakes a consumer sleeping on the producer cursor (after `publishWithoutWake()`). */
  wake(): void {
    // Atomics.notify wakes the consumer blocked in Atomics.wait/waitAsync on the cursor word;
    // it re-reads the cursor, so a late wake is harmless.
    Atomics.notify(this.header, iProducer, 1);
  }

  /** Copies `record[0, length)` into the next slot and publishes it; false when the ring is full. */
  tryWrite(record: Uint8Array, length: number = record.length): boolean {
    if (length > this.slotBytes) throw new RangeError(`Ring: record of ${length} bytes exceeds the ${this.slotBytes}-byte slot`);
    const offset = this.tryClaim();
    if (offset < 0) return false;
    this.bytes.set(length === record.length ? record : record.subarray(0, length), offset);
    this.commit();
    this.publish();
    return true;
  }

  /** Slots the producer can still claim. */
  freeSlots(): number {
    // Atomics.load (seq-cst): a fresh view of the consumer's progress.
    this.consumerSeen = Atomics.load(this.header, iConsumer);
    return this.capacity - ((this.claimed - this.consumerSeen) | 0);
  }

  /**
   * For a worker producer that cannot refuse: like `tryClaim()`, but publishes what it holds
   * and sleeps until the consumer frees a slot. Returns -1 on timeout or when the ring is
   * closed. Blocks the thread: never call it on the gateway thread.
   */
  claimWait(timeoutMs: number = Infinity): number {
    let offset = this.tryClaim();
    if (offset >= 0) return offset;
    this.publish();
    const deadline = timeoutMs === Infinity ? Infinity : Date.now() + timeoutMs;
    for (;;) {
      const spinEnd = performance.now() + this.spinMicros / 1000;
      do {
        for (let i = 0; i < 64; i++) {
          offset = this.tryClaim();
          if (offset >= 0) return offset;
        }
      } while (performance.now() < spinEnd);
      if (this.isClosed()) return -1;
      const seen = this.consumerSeen;
      // Atomics.store (seq-cst) of the flag, then the re-check below: pairs with the
      // consumer's store-cursor-then-load-flag in drain() (Dekker-style, needs seq-cst).
      Atomics.store(this.header, iProducerSleeping, 1);
      offset = this.tryClaim();
      if (offset < 0) {
        const left = deadline === Infinity ? Infinity : deadline - Date.now();
        // Atomics.wait sleeps only while the consumer cursor still equals `seen` (checked
        // atomically with going to sleep), so a release that raced us returns at once.
        if (left > 0) Atomics.wait(this.header, iConsumer, seen, left);
      }
      // Atomics.store (seq-cst): the consumer stops notifying.
      Atomics.store(this.header, iProducerSleeping, 0);
      if (offset >= 0) return offset;
      if (Date.now() >= deadline) return -1;
    }
  }

  // ── Consumer ──────────────────────────────────────────────────────────────────────────────

  /** Published records not yet drained. */
  available(): number {
    // Atomics.load (seq-cst) pairs with the producer's Atomics.store in publish() (acquire).
    return (Atomics.load(this.header, iProducer) - this.readCursor) | 0;
  }

  /** Calls `handler(view, offset)` for up to `max` published records, oldest first; returns how many. */
  drain(handler: SlotHandler, max: number = this.capacity): number {
    if (!this.consumerChecked) this.assertOwner(iConsumerOwner, 'consumer');
    // Atomics.load (seq-cst) is the acquire that pairs with publish()'s store: every slot
    // below `write` is fully written and visible to the plain reads the handler does.
    const write = Atomics.load(this.header, iProducer);
    let count = (write - this.readCursor) | 0;
    if (count === 0) return 0;
    if (count > max) count = max;
    const view = this.view;
    let done = 0;
    try {
      while (done < count) {
        handler(view, kRingSlotsOffset + ((this.readCursor + done) & this.mask) * this.slotBytes);
        done++;
      }
    } finally {
      if (done > 0) this.release(done);
    }
    return done;
  }

  private release(count: number): void {
    this.readCursor = (this.readCursor + count) | 0;
    // Atomics.store (seq-cst) is the release of the slots: our plain reads of them happen
    // before it, the producer's Atomics.load in tryClaim() happens after it.
    Atomics.store(this.header, iConsumer, this.readCursor);
    // Atomics.load (seq-cst) after the store (StoreLoad): pairs with claimWait()'s
    // flag-store-then-recheck, so a producer waiting for space is never left asleep.
    if (Atomics.load(this.header, iProducerSleeping) !== 0) {
      // Atomics.notify wakes the producer blocked on the consumer cursor word.
      Atomics.notify(this.header, iConsumer, 1);
    }
  }

  /**
   * Worker side: returns true as soon as records are available, false on timeout or when
   * the ring is closed and empty. Spins up to `spinMicros`, then sleeps in `Atomics.wait`.
   */
  waitForRecords(timeoutMs: number = Infinity): boolean {
    if (this.spinForRecords()) return true;
    const seen = this.readCursor;
    // Atomics.store (seq-cst) of the flag before the re-check: pairs with publish()'s
    // store-cursor-then-load-flag (Dekker-style; needs the total order seq-cst gives).
    Atomics.store(this.header, iConsumerSleeping, 1);
    if (this.available() === 0 && !this.isClosed()) {
      // Atomics.wait sleeps only while the producer cursor still equals `seen`, checked
      // atomically with going to sleep: a publish that raced the re-check returns at once.
      Atomics.wait(this.header, iProducer, seen, timeoutMs);
    }
    // Atomics.store (seq-cst): the producer stops notifying.
    Atomics.store(this.header, iConsumerSleeping, 0);
    return this.available() > 0;
  }

  /** Main-thread side of `waitForRecords()`: the event loop keeps running while it sleeps. */
  async waitForRecordsAsync(timeoutMs: number = Infinity): Promise<boolean> {
    if (this.spinForRecords()) return true;
    const seen = this.readCursor;
    // Atomics.store (seq-cst): as in waitForRecords().
    Atomics.store(this.header, iConsumerSleeping, 1);
    try {
      if (this.available() === 0 && !this.isClosed()) {
        // Atomics.waitAsync: the same value check as Atomics.wait, resolved by publish()'s notify.
        const waiting = (Atomics as AtomicsWithWaitAsync).waitAsync(this.header, iProducer, seen, timeoutMs);
        if (waiting.async) await waiting.value;
      }
    } finally {
      // Atomics.store (seq-cst): the producer stops notifying.
      Atomics.store(this.header, iConsumerSleeping, 0);
    }
    return this.available() > 0;
  }

  /** Spins up to `spinMicros` for a record to be published; true when one is. */
  private spinForRecords(): boolean {
    if (this.available() > 0) return true;
    if (this.spinMicros <= 0) return false;
    const spinEnd = performance.now() + this.spinMicros / 1000;
    do {
      for (let i = 0; i < 64; i++) if (this.available() > 0) return true;
    } while (performance.now() < spinEnd);
    return false;
  }

  /**
   * A worker's consume loop: drains and sleeps until the ring is closed and empty.
   * Returns the number of records handled.
   */
  consume(handler: SlotHandler): number {
    let total = 0;
    for (;;) {
      const n = this.drain(handler);
      total += n;
      if (n === 0 && !this.waitForRecords() && this.isClosed() && this.available() === 0) return total;
    }
  }

  // ── Both sides ────────────────────────────────────────────────────────────────────────────

  /** No more records will be published; wakes both sides. */
  close(): void {
    this.publish();
    // Atomics.store (seq-cst): a side that wakes and loads the flag sees it.
    Atomics.store(this.header, iClosed, 1);
    // Atomics.notify wakes a sleeping consumer (cursor word) and a sleeping producer.
    Atomics.notify(this.header, iProducer);
    Atomics.notify(this.header, iConsumer);
  }

  isClosed(): boolean {
    // Atomics.load (seq-cst) pairs with close()'s store.
    return Atomics.load(this.header, iClosed) !== 0;
  }

  /** The single-writer / single-reader assert: the first thread to use a side owns it. */
  private assertOwner(index: number, side: 'producer' | 'consumer'): void {
    // Atomics.compareExchange (seq-cst read-modify-write): exactly one thread wins the claim.
    const owner = Atomics.compareExchange(this.header, index, 0, threadId + 1);
    if (owner !== 0 && owner !== threadId + 1) {
      throw new Error(`Ring: ${side} already owned by thread ${owner - 1}, used from thread ${threadId}`);
    }
    if (side === 'producer') this.producerChecked = true;
    else this.consumerChecked = true;
  }
}

/** Guard that the cursor lines stay apart if someone edits the layout. */
if (kRingConsumerCursor - kRingProducerCursor < kCacheLineBytes) throw new Error('layout: ring cursors share a cache line');
