/**
 * @module journal/lmdb-storage
 *
 * The journal's records in LMDB (lmdb-js), in database `journal.blocks` of an environment at
 * `dir`: the records of one group commit are stored together as one value (a block: the
 * records back to back, each self-delimiting by its header's payload length), under the seq
 * of its first record as 8 bytes big-endian — so key order is seq order, and a range read for
 * a feed resume, a replication catch-up or a replay is one cursor walk. One LMDB put per
 * group commit instead of one per record: the records of a signed order (its command and
 * three or four book events) cost the writer part of one entry, not four. Blocks hold at most
 * `MAX_BLOCK_RECORDS` records.
 *
 * Older data directories kept one record per key in database `journal`: opening one for
 * writing moves its records into blocks first (one transaction); a read-only open asks for
 * that upgrade instead.
 *
 * Durability: lmdb-js batches the writes of one event-loop turn (here: one block) into one transaction,
 * committed on its writer thread. Under its default `overlappingSync`, a write's promise
 * resolves when the transaction is committed (visible, and safe from a process crash) but not
 * yet flushed: a power cut can still lose it. `sync()` therefore returns lmdb-js's `flushed`
 * promise, taken after the writes, which resolves only once their transaction is flushed
 * to disk (with `overlappingSync: false` every commit is flushed and `flushed` resolves at
 * commit). See docs/journal.md and test/journal/durable-ack.test.ts.
 *
 * Reads: `range` copies each block once and hands out views into the copy; `get` copies the
 * record.
 *
 * Opening checks the data file against its own header first (journal/lmdb-file): a truncated
 * file is refused by name instead of crashing the process when lmdb maps it.
 *
 * May import: lmdb, node:fs, node:path, journal/storage, journal/record (the header layout),
 * journal/lmdb-file, journal/refusal, journal/lmdb-commit-rejections.
 */
import { open, type Database, type DatabaseOptions, type RootDatabase } from 'lmdb';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { JournalStorage } from './storage.ts';
import { checkLmdbFile, lmdbDataFile } from './lmdb-file.ts';
import { DataRefusedError } from './refusal.ts';
import { kJournalHeaderBytes, kJournalPayloadLength } from './record.ts';
import { lmdbWrite, tolerateLmdbCommitRejections } from './lmdb-commit-rejections.ts';

/** Most records in one block (a burst of a turn is split). */
export const MAX_BLOCK_RECORDS = 4096;

/** Bytes of the record starting at `at` in `block` (clamped to the block: a damaged length reads as the rest). */
function recordSpan(block: Uint8Array, at: number): number {
  if (block.length - at < kJournalHeaderBytes) return block.length - at;
  const payload = new DataView(block.buffer, block.byteOffset + at + kJournalPayloadLength, 4).getUint32(0, true);
  return Math.min(kJournalHeaderBytes + payload, block.length - at);
}

/** The records of a block, in order (views into it): the one walk over the block layout. */
export function* blockRecords(block: Uint8Array): Generator<Uint8Array> {
  for (let at = 0; at < block.length; ) {
    const span = recordSpan(block, at);
    yield block.subarray(at, at + span);
    at += span;
  }
}

/** Byte offset of the `index`-th record of a block, or -1 past its end. */
function recordOffset(block: Uint8Array, index: number): number {
  let i = 0;
  for (const record of blockRecords(block)) if (i++ === index) return record.byteOffset - block.byteOffset;
  return -1;
}

function recordCount(block: Uint8Array): number {
  let count = 0;
  for (const _ of blockRecords(block)) count++;
  return count;
}

/** A copy of `bytes[start, end)` (lmdb-js hands out Buffers, whose `slice` is a view, not a copy). */
function copyOf(bytes: Uint8Array, start = 0, end = bytes.length): Uint8Array {
  const out = new Uint8Array(end - start);
  out.set(bytes.subarray(start, end));
  return out;
}

export function concat(records: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const r of records) size += r.length;
  const block = new Uint8Array(size);
  let at = 0;
  for (const r of records) {
    block.set(r, at);
    at += r.length;
  }
  return block;
}

/** Keys as 8-byte big-endian integers (lmdb-js key encoder protocol). */
export const seqKeyEncoder = {
  writeKey(seq: number, target: Uint8Array, start: number): number {
    const hi = Math.floor(seq / 2 ** 32);
    const lo = seq >>> 0;
    target[start] = hi >>> 24;
    target[start + 1] = (hi >>> 16) & 0xff;
    target[start + 2] = (hi >>> 8) & 0xff;
    target[start + 3] = hi & 0xff;
    target[start + 4] = lo >>> 24;
    target[start + 5] = (lo >>> 16) & 0xff;
    target[start + 6] = (lo >>> 8) & 0xff;
    target[start + 7] = lo & 0xff;
    return start + 8;
  },
  readKey(target: Uint8Array, start: number): number {
    const hi = ((target[start] << 24) | (target[start + 1] << 16) | (target[start + 2] << 8) | target[start + 3]) >>> 0;
    const lo = ((target[start + 4] << 24) | (target[start + 5] << 16) | (target[start + 6] << 8) | target[start + 7]) >>> 0;
    return hi * 2 ** 32 + lo;
  },
};

/**
 * Values pass through untouched; reads hand out a view of lmdb-js's reused buffer instead of
 * a copy (`decoderCopies` mode: lmdb-js assumes the decoder copies, we copy only when keeping).
 */
const passThrough = {
  encode: (value: Uint8Array): Uint8Array => value,
  decode: (bytes: Uint8Array, size?: number): Uint8Array => (typeof size === 'number' ? bytes.subarray(0, size) : bytes),
};

export interface LmdbJournalOptions {
  /** lmdb-js default (true): commits overlap the previous flush; durability comes from `flushed`. */
  overlappingSync?: boolean;
  /** Initial map size in bytes; lmdb-js grows it as needed. */
  mapSize?: number;
  /** Open for reading only (the operator tool's inspect and verify). */
  readOnly?: boolean;
}

/**
 * Opens (creating) the journal's LMDB environment of a data directory (snapshots are files
 * beside it, journal/snapshots; an older build's are read from it and moved out once).
 * Every thread that opens it opens it here, so each tolerates lmdb-js's unheld commit
 * promise (journal/lmdb-commit-rejections).
 */
export function openEnvironment(dir: string, options: LmdbJournalOptions = {}): RootDatabase {
  tolerateLmdbCommitRejections();
  return open({
    path: dir,
    maxDbs: 8,
    ...(options.overlappingSync === undefined ? {} : { overlappingSync: options.overlappingSync }),
    ...(options.mapSize === undefined ? {} : { mapSize: options.mapSize }),
    ...(options.readOnly ? { readOnly: true } : {}),
  });
}

export class LmdbJournalStorage implements JournalStorage {
  /** An LMDB transaction is atomic: a record is stored whole or not at all. */
  readonly tearsWrites = false;
  readonly env: RootDatabase;
  /** Blocks of records under the seq of their first record. */
  readonly blocks: Database<Uint8Array, number>;
  private readonly ownsEnv: boolean;
  private readonly readOnly: boolean;
  /** Records put since the last `sync`, and the seq of the first. */
  private pending: Uint8Array[] = [];
  private pendingFrom = 0;
  /** The commit of the last block written (lmdb-js resolves a put at commit, before its flush). */
  private lastCommit: Promise<unknown> = Promise.resolve();

  constructor(env: RootDatabase, ownsEnv = false, readOnly = false) {
    this.env = env;
    this.ownsEnv = ownsEnv;
    this.readOnly = readOnly;
    // keyEncoder is an lmdb-js option its typings omit.
    const options = { keyEncoder: seqKeyEncoder, encoder: passThrough } as DatabaseOptions;
    this.blocks = env.openDB<Uint8Array, number>('journal.blocks', options);
    this.upgradeRecordPerKey(env.openDB<Uint8Array, number>('journal', options));
  }

  /**
   * The journal of the data directory `dir` (environment opened here, closed by `close()`).
   * A data file shorter than its own header says (truncated) is refused with a
   * `DataRefusedError` naming it, before lmdb maps it (mapped, it dies with SIGBUS); so is an
   * empty one opened read-only.
   */
  static open(dir: string, options: LmdbJournalOptions = {}): LmdbJournalStorage {
    // Opened for writing, the trees are walked too: lmdb would crash on an inconsistent copy.
    const file = checkLmdbFile(dir, { pages: !options.readOnly });
    if (file.state === 'damaged') {
      throw new DataRefusedError(
        `the journal file ${lmdbDataFile(dir)} is damaged: ${file.problem}. Nothing was changed. ` +
          'The journal holds every acknowledged write and cannot be rebuilt: restore the data directory from a replica or backup.',
      );
    }
    if (options.readOnly && file.state !== 'whole') throw new DataRefusedError(`there is no journal to read at ${lmdbDataFile(dir)} (the file is ${file.state})`);
    const env = openEnvironment(dir, options);
    try {
      return new LmdbJournalStorage(env, true, options.readOnly === true);
    } catch (error) {
      void env.close();
      throw error;
    }
  }

  put(seq: number, record: Uint8Array): void {
    if (this.pending.length === 0) this.pendingFrom = seq;
    else if (seq !== this.pendingFrom + this.pending.length) throw new Error(`journal storage: put ${seq} after ${this.pendingFrom + this.pending.length - 1}`);
    // Kept by reference until the block is written at `sync` (the journal does not reuse it).
    this.pending.push(record);
  }

  committed(): Promise<void> {
    this.writePending();
    return this.lastCommit.then(() => undefined);
  }

  sync(): Promise<void> {
    this.writePending();
    // `flushed` is a thenable bound to the flush of the transaction holding the latest writes.
    // lmdb-js never settles it when that transaction fails (it only resolves its flush), so the
    // failure comes from the commit of the same writes, awaited beside it: a full disk fails
    // the flush instead of leaving every reply waiting (test/e2e/disk-full).
    return Promise.all([lmdbWrite(this.blocks.flushed), this.lastCommit]).then(() => undefined);
  }

  /** Writes what was put since the last sync as blocks (durability is observed through sync(), a commit through committed()). */
  private writePending(): void {
    const pending = this.pending;
    for (let i = 0; i < pending.length; i += MAX_BLOCK_RECORDS) {
      // A failed write is reported by sync() (and to whoever awaits committed()), not as an
      // unhandled rejection; the failure carries lmdb's own error (journal/lmdb-commit-rejections).
      const commit = lmdbWrite(this.blocks.put(this.pendingFrom + i, concat(pending.slice(i, i + MAX_BLOCK_RECORDS))));
      commit.catch(() => {});
      this.lastCommit = commit;
    }
    this.pending = [];
  }

  lastKey(): number {
    for (const { key, value } of this.blocks.getRange({ reverse: true, limit: 1 })) return key + recordCount(value) - 1;
    return 0;
  }

  firstKey(): number {
    for (const key of this.blocks.getKeys({ limit: 1 })) return key;
    return 0;
  }

  get(seq: number): Uint8Array | undefined {
    for (const { key, value } of this.blocks.getRange({ start: seq, reverse: true, limit: 1 })) {
      const at = recordOffset(value, seq - key);
      if (at < 0) return undefined;
      return copyOf(value, at, at + recordSpan(value, at));
    }
    return undefined;
  }

  *range(from: number, to: number): Iterable<Uint8Array> {
    let start = from;
    for (const key of this.blocks.getKeys({ start: from, reverse: true, limit: 1 })) start = key;
    for (const { key, value } of this.blocks.getRange({ start, end: to + 1 })) {
      // One copy per block: the caller may read LMDB (any database) between records, which
      // would overwrite lmdb-js's shared read buffer under a view.
      const block = copyOf(value);
      let seq = key;
      for (const record of blockRecords(block)) {
        if (seq > to) return;
        if (seq >= from) yield record;
        seq++;
      }
    }
  }

  async truncateAfter(seq: number): Promise<void> {
    this.writePending();
    await lmdbWrite(this.blocks.transaction(() => {
      for (const { key, value } of this.blocks.getRange({ start: seq, reverse: true, limit: 1 })) {
        // The block holding `seq` keeps its records up to it.
        const end = recordOffset(value, seq - key + 1);
        if (end >= 0) this.blocks.put(key, copyOf(value, 0, end));
      }
      for (const key of this.blocks.getKeys({ start: seq + 1 })) this.blocks.remove(key);
    }));
    await this.sync();
  }

  sizeBytes(): number {
    try {
      return statSync(join((this.env as unknown as { path: string }).path, 'data.mdb')).size;
    } catch {
      return 0;
    }
  }

  async close(): Promise<void> {
    if (!this.readOnly) await this.sync();
    if (this.ownsEnv) await this.env.close();
  }

  /** Moves the records of the one-record-per-key layout (before blocks) into blocks. */
  private upgradeRecordPerKey(legacy: Database<Uint8Array, number>): void {
    let first = 0;
    for (const key of legacy.getKeys({ limit: 1 })) first = key;
    if (first === 0) return;
    if (this.readOnly) throw new Error('journal: this data directory uses the one-record-per-key layout; start the exchange on it once to upgrade it, then read it');
    this.env.transactionSync(() => {
      let block: Uint8Array[] = [];
      let blockFrom = first;
      for (const { key, value } of legacy.getRange({ start: first })) {
        if (block.length === 0) blockFrom = key;
        block.push(copyOf(value));
        if (block.length === MAX_BLOCK_RECORDS) {
          this.blocks.putSync(blockFrom, concat(block));
          block = [];
        }
      }
      if (block.length > 0) this.blocks.putSync(blockFrom, concat(block));
      legacy.clearSync();
    });
  }
}
