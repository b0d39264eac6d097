/**
 * @module journal/journal
 *
 * The append-only journal: one global sequence, every record checksummed and hash-chained
 * (format in `record.ts`), stored through a `JournalStorage` (LMDB in production).
 *
 * Writing: `append(kind, payload)` assigns the next seq and queues the record; it returns at
 * once. Appends form group commits: at the end of the turn (setImmediate) the journal asks the
 * storage for a flush covering what was appended, one flush at a time — what is appended while
 * one is in flight goes in the next (see `endTurn`). `durable(seq)`
 * resolves only when the record `seq` is flushed to disk: acknowledge a client then, never
 * earlier. `isBehind()` says when too many records wait for their flush, so the gateway can
 * answer 503 before memory or latency run away.
 *
 * Opening (`Journal.open`): reads the last record and verifies records from `verifyFrom`
 * (default: all) to the end: checksum, sequence, hash chain. A damaged last record is deleted
 * as a torn write, with a loud log line, only when it cannot have been acknowledged: the
 * storage can tear a write (LMDB cannot: its transactions are atomic), and nothing shows the
 * record was flushed (`flushedThrough`: a snapshot at or beyond a seq was saved after that seq
 * was flushed). Anything else wrong refuses to start with a `JournalCorruptError` naming the seq.
 *
 * Commit vs flush: `committedSeq()` is the last seq whose write survives a crash of this
 * process (kill -9), `flushedSeq()` the last that survives a power cut. History is written only
 * up to what is committed (`whenCommitted`), so a crash never leaves it ahead of the journal.
 *
 * Reading: `range(from, to)` yields verified entries in order (replay, feed resume,
 * replication, the operator tool); it throws `JournalCorruptError` at the first bad record.
 *
 * Shipping (replication): with a `BlockSink` (`ship`), every group commit is handed to it once
 * flushed, in order, as the block of records it flushed (`block(firstSeq, records)`; the
 * contract and the bookkeeping of what was shipped and refused: `block-sink.ts`). A sink that
 * `holdsAcks` makes `durable(seq)` wait for its promise as well (acknowledged = flushed here and
 * stored elsewhere); one that does not is only told. A sink that rejects a block (it was fenced:
 * another writer owns the copy) refuses its seqs and every later one: none becomes durable, and
 * `isBehind` turns new commands away. It is no failed disk: what is appended still goes to this
 * one — the book events of commands already in flight — so history, a snapshot and a stop go on
 * (a deposed primary stops its pipeline and follows the stream, replication/node).
 * `appendRecord` appends a record made elsewhere (a replica's copy of the primary's), verified
 * as `range` verifies one.
 * Stopping waits only for this machine's disk (`flushedHere`, `close`): a sink that cannot store
 * (its cluster lost quorum) must not hang a stop; what it has not shipped stays in the local
 * journal, and the sink's owner ships it at the next start (replication/publisher `catchUp`).
 *
 * Invariants: seqs are 1, 2, 3… without gaps; `flushedSeq ≤ committedSeq ≤ lastSeq`; a seq reported durable
 * stays on disk through a power cut; after a storage failure nothing more is accepted; once the
 * sink refused a block, no seq from its first on is reported durable.
 * Caller obligations: single thread (the one that owns the journal); a payload's bytes are
 * copied at `append`, so the caller may reuse its buffer.
 *
 * May import: journal/block-sink, journal/record, journal/storage.
 */
import { Shipping, type BlockSink } from './block-sink.ts';
import type { JournalStorage } from './storage.ts';
import {
  Chain,
  JournalCorruptError,
  MAX_PAYLOAD_BYTES,
  PROBLEM_TEXT,
  Problem,
  chainIn,
  chainOf,
  checkRecord,
  isDamage,
  kJournalHeaderBytes,
  kJournalPayloadLength,
  recordKindOf,
  recordSeq,
  sealRecord,
  viewOf,
  writeRecord,
} from './record.ts';

/** The subset of a pino logger the journal uses (pino loggers satisfy it). */
export interface JournalLogger {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export const consoleLogger: JournalLogger = {
  info: (fields, message) => console.log(`[journal] ${message}`, JSON.stringify(fields)),
  error: (fields, message) => console.error(`[journal] ERROR ${message}`, JSON.stringify(fields)),
};

export interface JournalOptions {
  logger?: JournalLogger;
  /** `isBehind()` turns true above this many appended-but-unflushed records (default 100,000). */
  maxUnflushed?: number;
  /** First seq verified on open (default 1: everything). Pass the replay start to open faster. */
  verifyFrom?: number;
  /**
   * A seq known flushed before this open — the newest snapshot's (a snapshot is saved only once
   * the records it covers are flushed). A damaged record at or below it was flushed, and may have
   * been acknowledged: it is refused as corruption, never deleted as a torn write.
   */
  flushedThrough?: number;
  /** Inspect only: a torn tail is reported but not deleted, and `append` is refused. */
  readOnly?: boolean;
  /** Read-only: open as if the journal ended at this seq (records after it are not read: copy salvages a good prefix). */
  upTo?: number;
  /** Called after each flush (group commit) with its record count and duration: the operator's metrics. */
  onFlush?: (records: number, seconds: number) => void;
  /**
   * Called once when the storage fails a flush (a full disk, an I/O error): the exchange cannot
   * go on, since what it holds in memory is then ahead of what a restart replays (pipeline:
   * fatal, exit 70). A replication sink refusing a block is not this: the node is deposed.
   */
  onStorageFailed?: (error: JournalFailedError) => void;
}

/** One record as `range` yields it. The object and its views are reused: copy what you keep. */
export interface JournalEntry {
  seq: number;
  kind: number;
  /** The whole record (header + payload). */
  record: Uint8Array;
  /** A view over `record.buffer`; the payload starts at `payloadOffset` in it. */
  view: DataView;
  payloadOffset: number;
  payloadLength: number;
}

/** The journal can no longer accept writes (the storage failed). Maps to HTTP 500. */
export class JournalFailedError extends Error {
  constructor(cause: unknown) {
    super(`journal storage failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'JournalFailedError';
  }
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

const SLAB_BYTES = 1 << 20;
const RESOLVED = Promise.resolve();

export class Journal {
  private readonly storage: JournalStorage;
  private readonly logger: JournalLogger;
  private readonly maxUnflushed: number;
  private readonly onFlush: ((records: number, seconds: number) => void) | undefined;
  private readonly onStorageFailed: ((error: JournalFailedError) => void) | undefined;
  private last: number;
  private committed: number;
  private commitWaiters: Waiter[] = [];
  private flushed: number;
  /** The highest seq flushed to this machine's disk (ahead of `flushed` while a sink ships it). */
  private flushedLocally: number;
  private readonly chain: Chain;
  private waiters: Waiter[] = [];
  private waiterHead = 0;
  private turnScheduled = false;
  /** A flush is in flight: records appended meanwhile wait for it and go in the next one. */
  private flushing = false;
  private failure: JournalFailedError | null = null;
  private closed: boolean;
  // Records are carved from slabs that are never rewritten: the storage may hold a record's
  // bytes until its flush, and a slab is garbage once every record in it is released.
  private slab = new Uint8Array(SLAB_BYTES);
  private slabView = new DataView(this.slab.buffer);
  /** The slab as a Buffer, for `appendText`: `write` encodes into it in place, where `encodeInto` needed a subarray and a result object per record. */
  private slabBuffer = Buffer.from(this.slab.buffer);
  private slabUsed = 0;
  /** The block sink, what waits to be shipped to it, and whether it refused (block-sink.ts). */
  private readonly shipping = new Shipping({
    markFlushed: (seq) => this.markFlushed(seq),
    flushedSeq: () => this.flushed,
    rejectFrom: (from, error) => this.rejectFrom(from, error),
    logRefusal: (from, error) =>
      this.logger.error({ from, lastSeq: this.last, flushedSeq: this.flushed, error: String(error) }, 'journal shipping refused: no further writes are accepted'),
  });

  private constructor(storage: JournalStorage, lastSeq: number, chain: Chain, options: JournalOptions) {
    this.storage = storage;
    this.logger = options.logger ?? consoleLogger;
    this.maxUnflushed = options.maxUnflushed ?? 100_000;
    this.onFlush = options.onFlush;
    this.onStorageFailed = options.onStorageFailed;
    this.last = lastSeq;
    this.committed = lastSeq;
    this.flushed = lastSeq;
    this.flushedLocally = lastSeq;
    this.chain = chain;
    this.closed = options.readOnly === true;
  }

  /** Opens the journal on `storage`: verifies, repairs a torn tail, refuses corruption. */
  static async open(storage: JournalStorage, options: JournalOptions = {}): Promise<Journal> {
    const logger = options.logger ?? consoleLogger;
    if (options.upTo !== undefined && !options.readOnly) throw new Error('journal: upTo is for read-only opens');
    const lastKey = Math.min(storage.lastKey(), options.upTo ?? Number.MAX_SAFE_INTEGER);
    const chain = new Chain();
    if (lastKey === 0) return new Journal(storage, 0, chain, options);
    const firstKey = storage.firstKey();
    if (firstKey !== 1) throw new JournalCorruptError(1, Problem.Sequence);
    const from = Math.min(Math.max(1, options.verifyFrom ?? 1), lastKey);
    if (from > 1) {
      const previous = storage.get(from - 1);
      const problem = previous ? checkRecord(previous, from - 1, new Chain()) : Problem.Sequence;
      // The link of `previous` itself is not checked (its predecessor is not read): a chain
      // problem is expected there, anything else is damage in the middle.
      if (previous === undefined || (problem !== Problem.Ok && problem !== Problem.Chain)) throw new JournalCorruptError(from - 1, problem);
      chainOf(previous, chain);
    }
    let expected = from;
    let torn = false;
    for (const record of storage.range(from, lastKey)) {
      const problem = checkRecord(record, expected, chain);
      if (problem !== Problem.Ok) {
        if (expected === lastKey && isDamage(problem)) {
          const flushedThrough = options.flushedThrough ?? 0;
          if (!storage.tearsWrites) throw new JournalCorruptError(expected, problem, 'it is the last record, but this storage never tears a write (its transactions are atomic), so it was written whole and may have been acknowledged');
          if (lastKey <= flushedThrough) throw new JournalCorruptError(expected, problem, `it is the last record, but the snapshot at seq ${flushedThrough} shows it was flushed, so it may have been acknowledged`);
          torn = true;
          break;
        }
        throw new JournalCorruptError(expected, problem);
      }
      expected++;
    }
    if (!torn && expected !== lastKey + 1) throw new JournalCorruptError(expected, Problem.Sequence);
    if (torn) {
      logger.error(
        { seq: lastKey, problem: PROBLEM_TEXT[checkRecord(storage.get(lastKey) ?? new Uint8Array(0), lastKey, new Chain())] },
        `TORN TAIL: the last journal record (seq ${lastKey}) is incomplete, as a power cut mid-write leaves it; it was never acknowledged. ${options.readOnly ? 'Read-only: left in place' : 'Deleting it'}; continuing from seq ${lastKey - 1}.`,
      );
      if (!options.readOnly) await storage.truncateAfter(lastKey - 1);
    }
    const lastSeq = torn ? lastKey - 1 : lastKey;
    logger.info({ lastSeq, verifiedFrom: from }, 'journal opened');
    return new Journal(storage, lastSeq, chain, options);
  }

  /** The last seq appended (0 when empty). */
  lastSeq(): number {
    return this.last;
  }

  /** The highest seq whose write survives a crash of this process (committed; flushed or not). */
  committedSeq(): number {
    return this.committed;
  }

  /** Resolves once record `seq` (and every one before it) is committed; rejects if the storage fails first (not if the sink refused it: it is committed here all the same). */
  whenCommitted(seq: number): Promise<void> {
    if (seq <= this.committed) return RESOLVED;
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.commitWaiters.push({ seq, resolve, reject }));
  }

  /** The highest seq known flushed to disk (with a sink that holds acks: and shipped). */
  flushedSeq(): number {
    return this.flushed;
  }

  /** Why the journal takes no writes (its storage failed, its sink refused a block, or it is closed), or null (GET /ready). */
  problem(): string | null {
    if (this.failure !== null) return this.failure.message;
    const refused = this.shipping.refused();
    if (refused !== null) return refused.error.message;
    return this.closed ? 'journal is closed' : null;
  }

  /** Records appended but not yet flushed. */
  unflushed(): number {
    return this.last - this.flushed;
  }

  /** True when the caller should refuse new writes (HTTP 503): the flush is too far behind, the storage failed or the sink refused a block. */
  isBehind(): boolean {
    return this.failure !== null || this.shipping.refused() !== null || this.last - this.flushed > this.maxUnflushed;
  }

  /** Appends one record and returns its seq. Durable only once `durable(seq)` resolves. */
  append(kind: number, payload: Uint8Array, start = 0, length: number = payload.length - start): number {
    this.assertWritable();
    if (length > MAX_PAYLOAD_BYTES) throw new RangeError(`journal: payload of ${length} bytes exceeds ${MAX_PAYLOAD_BYTES}`);
    const offset = this.room(kJournalHeaderBytes + length);
    const seq = this.last + 1;
    const size = writeRecord(this.slab, this.slabView, offset, seq, kind, this.chain, payload, start, length);
    return this.appended(seq, offset, size);
  }

  /**
   * Appends one record whose payload is `text` in UTF-8, encoded straight into the journal's
   * buffer: no payload array per record (a command's JSON, sequencer), which the garbage
   * collector would track and free. Returns its seq, as `append`.
   */
  appendText(kind: number, text: string): number {
    this.assertWritable();
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const offset = this.room(kJournalHeaderBytes + text.length * 3);
    const start = offset + kJournalHeaderBytes;
    const length = this.slabBuffer.write(text, start, text.length * 3);
    if (length > MAX_PAYLOAD_BYTES) throw new RangeError(`journal: payload of ${length} bytes exceeds ${MAX_PAYLOAD_BYTES}`);
    const seq = this.last + 1;
    const size = sealRecord(this.slab, this.slabView, offset, seq, kind, this.chain, length);
    return this.appended(seq, offset, size);
  }

  private assertWritable(): void {
    if (this.failure) throw this.failure;
    if (this.closed) throw new Error('journal: append after close (or on a read-only journal)');
  }

  /** Where a record of up to `size` bytes goes in the slab: a fresh one when this one is full (records are never written over: see `slab`). */
  private room(size: number): number {
    if (this.slabUsed + size > this.slab.length) {
      this.slab = new Uint8Array(Math.max(SLAB_BYTES, size));
      this.slabView = new DataView(this.slab.buffer);
      this.slabBuffer = Buffer.from(this.slab.buffer);
      this.slabUsed = 0;
    }
    return this.slabUsed;
  }

  /** The record of `size` bytes at `offset` is written: it takes its seq and goes to storage. */
  private appended(seq: number, offset: number, size: number): number {
    this.slabUsed += (size + 7) & ~7;
    this.last = seq;
    this.put(seq, this.slab.subarray(offset, offset + size));
    return seq;
  }

  /**
   * Appends a whole record written by another journal (a replica's copy of the primary's):
   * it must be the next seq and follow this journal's chain, as `range` checks on reading.
   * Throws `JournalCorruptError` otherwise; the bytes are copied.
   */
  appendRecord(record: Uint8Array): number {
    this.assertWritable();
    const seq = this.last + 1;
    const problem = checkRecord(record, seq, this.chain);
    if (problem !== Problem.Ok) throw new JournalCorruptError(seq, problem, 'a record received for this journal does not continue it');
    const offset = this.room(record.length);
    this.slab.set(record, offset);
    return this.appended(seq, offset, record.length);
  }

  /**
   * From now on every flushed block goes to `sink` (one sink; set it before the first append
   * that should ship: what was appended earlier is the caller's to ship).
   */
  ship(sink: BlockSink): void {
    if (this.shipping.attached()) throw new Error('journal: a block sink is already attached');
    if (this.last !== this.flushed || this.flushing) throw new Error('journal: attach the block sink while nothing waits for a flush');
    this.shipping.attach(sink);
  }

  private put(seq: number, record: Uint8Array): void {
    this.storage.put(seq, record);
    this.shipping.keep(record);
    if (!this.turnScheduled) {
      this.turnScheduled = true;
      setImmediate(this.endTurn);
    }
  }

  /** Resolves when record `seq` (and every one before it) is flushed; rejects if the storage fails first, or the sink refuses it. */
  durable(seq: number): Promise<void> {
    if (seq <= this.flushed) return RESOLVED;
    if (this.failure) return Promise.reject(this.failure);
    const refused = this.shipping.refused();
    if (refused !== null && seq >= refused.from) return Promise.reject(refused.error);
    if (seq > this.last) return Promise.reject(new RangeError(`journal: seq ${seq} was never appended (last ${this.last})`));
    return new Promise((resolve, reject) => {
      const waiter = { seq, resolve, reject };
      const waiters = this.waiters;
      // Callers ask in ascending order almost always: append; else insert in place.
      let i = waiters.length;
      while (i > this.waiterHead && waiters[i - 1].seq > seq) i--;
      if (i === waiters.length) waiters.push(waiter);
      else waiters.splice(i, 0, waiter);
    });
  }

  /**
   * The group commit: one flush for everything appended since the last one. One flush at a
   * time: what is appended while one is in flight goes in the next, started as soon as it
   * lands. Under load a commit then covers many turns — each costs the storage a transaction
   * and a sync, whatever its size — and when idle a record still goes out at the end of its turn.
   */
  private readonly endTurn = (): void => {
    this.turnScheduled = false;
    if (this.flushing || this.failure) return;
    this.flushing = true;
    const upTo = this.last;
    const block = this.shipping.take();
    const from = this.flushed;
    const started = performance.now();
    const flushed = this.storage.sync();
    // Failures surface through the flush (fail); the commit only moves the committed position.
    this.storage.committed().then(() => this.markCommitted(upTo), () => {});
    flushed.then(
      () => {
        this.flushing = false;
        this.flushedLocally = upTo;
        this.onFlush?.(upTo - from, (performance.now() - started) / 1000);
        // Durable at once, or once the sink has stored the block, or never once it refused one.
        this.shipping.landed(upTo, block);
        if (this.last > upTo) this.endTurn();
      },
      (error: unknown) => {
        this.fail(error);
        this.onStorageFailed?.(this.failure!);
      },
    );
  };

  private markCommitted(upTo: number): void {
    if (upTo <= this.committed) return;
    this.committed = upTo;
    const waiting = this.commitWaiters;
    this.commitWaiters = [];
    for (const w of waiting) {
      if (w.seq <= upTo) w.resolve();
      else this.commitWaiters.push(w);
    }
  }

  private markFlushed(upTo: number): void {
    if (upTo <= this.flushed) return;
    this.markCommitted(upTo);
    this.flushed = upTo;
    const waiters = this.waiters;
    let head = this.waiterHead;
    while (head < waiters.length && waiters[head].seq <= upTo) waiters[head++].resolve();
    if (head === waiters.length) {
      this.waiters = [];
      this.waiterHead = 0;
    } else if (head > 1024) {
      this.waiters = waiters.slice(head);
      this.waiterHead = 0;
    } else {
      this.waiterHead = head;
    }
  }

  /** The storage failed: nothing more is accepted, and every waiter is rejected. */
  private fail(error: unknown): void {
    if (this.failure === null) {
      this.failure = new JournalFailedError(error);
      this.logger.error({ lastSeq: this.last, flushedSeq: this.flushed, error: String(error) }, 'journal storage failed: no further writes are accepted');
    }
    this.rejectFrom(0, this.failure);
    for (const w of this.commitWaiters) w.reject(this.failure);
    this.commitWaiters = [];
  }

  /** Rejects the waiters for `from` and later (all of them when the storage failed; from the sink's refusal on, block-sink.ts). */
  private rejectFrom(from: number, error: Error): void {
    const kept: Waiter[] = [];
    for (let i = this.waiterHead; i < this.waiters.length; i++) {
      if (this.waiters[i].seq >= from) this.waiters[i].reject(error);
      else kept.push(this.waiters[i]);
    }
    this.waiters = kept;
    this.waiterHead = 0;
  }

  /**
   * Verified entries with `from ≤ seq ≤ to` (default: to the end), in order. The entry object
   * is reused between steps. Throws `JournalCorruptError` at the first bad record or gap.
   */
  *range(from: number, to: number = this.last): Generator<JournalEntry> {
    if (from < 1) from = 1;
    if (to > this.last) to = this.last;
    if (from > to) return;
    const chain = new Chain();
    if (from > 1) {
      const previous = this.storage.get(from - 1);
      if (!previous) throw new JournalCorruptError(from - 1, Problem.Sequence);
      const problem = checkRecord(previous, from - 1, new Chain());
      if (problem !== Problem.Ok && problem !== Problem.Chain) throw new JournalCorruptError(from - 1, problem);
      chainOf(previous, chain);
    }
    const entry: JournalEntry = { seq: 0, kind: 0, record: new Uint8Array(0), view: viewOf(new Uint8Array(0)), payloadOffset: 0, payloadLength: 0 };
    let expected = from;
    for (const record of this.storage.range(from, to)) {
      const problem = checkRecord(record, expected, chain);
      if (problem !== Problem.Ok) throw new JournalCorruptError(expected, problem);
      const view = viewOf(record);
      entry.seq = expected;
      entry.kind = recordKindOf(view, record.byteOffset);
      entry.record = record;
      entry.view = view;
      entry.payloadOffset = record.byteOffset + kJournalHeaderBytes;
      entry.payloadLength = view.getUint32(record.byteOffset + kJournalPayloadLength, true);
      yield entry;
      expected++;
    }
    if (expected !== to + 1) throw new JournalCorruptError(expected, Problem.Sequence);
  }

  /**
   * The chain value of record `seq` (journal/record `storedChain`), or undefined when this
   * journal does not hold it whole: what a snapshot taken of this journal after `seq` records
   * (journal/snapshot-tie).
   */
  chainAt(seq: number): Chain | undefined {
    return chainIn(this.storage, seq, this.last);
  }

  /** Bytes used on disk. */
  sizeBytes(): number {
    return this.storage.sizeBytes();
  }

  /**
   * Resolves once record `upTo` (by default every record appended so far) is flushed to this
   * machine's disk, shipped or not — what a stop and a snapshot wait for; rejects if the storage
   * fails first.
   */
  async flushedHere(upTo = this.last): Promise<void> {
    if (this.shipping.ackedAtFlush()) return this.durable(upTo);
    if (!this.turnScheduled && !this.flushing && this.flushedLocally < upTo) this.endTurn();
    // Waiters resolve on `durable`, which a stalled sink holds back (and a refused one never
    // resolves): look at the local position instead, once a millisecond — only a stop waits here.
    while (this.flushedLocally < upTo) {
      if (this.failure) throw this.failure;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  /** Waits for every appended record to reach this machine's disk, then closes the storage. */
  async close(): Promise<void> {
    if (this.closed) return this.storage.close();
    this.closed = true;
    if (!this.failure && this.last > this.flushedLocally) await this.flushedHere();
    await this.storage.close();
  }
}

/** The entry of one whole, verified record (a replica applies what it appended, as `range` yields it). */
export function entryOf(record: Uint8Array): JournalEntry {
  const view = viewOf(record);
  return {
    seq: recordSeq(view, record.byteOffset),
    kind: recordKindOf(view, record.byteOffset),
    record,
    view,
    payloadOffset: record.byteOffset + kJournalHeaderBytes,
    payloadLength: view.getUint32(record.byteOffset + kJournalPayloadLength, true),
  };
}

/** An entry's payload as a view into its record, valid while the entry is (no copy). */
export function payloadView(entry: JournalEntry): Uint8Array {
  return entry.record.subarray(kJournalHeaderBytes, kJournalHeaderBytes + entry.payloadLength);
}
