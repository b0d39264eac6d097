/**
 * @module journal/lmdb-storage
 *
 * The journal's records in LMDB (lmdb-js): database `journal` of an environment at `dir`,
 * key = seq as 8 bytes big-endian (so key order is seq order and a range read for a feed
 * resume or replication is one cursor walk), value = the record bytes.
 *
 * Durability: lmdb-js batches the writes of one event-loop turn into one transaction,
 * committed on its writer thread. Under its default `overlappingSync`, a write's promise
 * resolves when the transaction is committed (visible, and safe from a process crash) but not
 * yet flushed: a power cut can still lose it. `sync()` therefore returns lmdb-js's `flushed`
 * promise, taken after the writes, which resolves only once their transaction is flushed
 * to disk (with `overlappingSync: false` every commit is flushed and `flushed` resolves at
 * commit). See docs/journal.md and test/journal/durable-ack.test.ts.
 *
 * Reads: values are views into lmdb-js's shared read buffer (no copy), valid until the next
 * read; `get` copies.
 *
 * May import: lmdb, node:fs, node:path, journal/storage.
 */
import { open, type Database, type DatabaseOptions, type RootDatabase } from 'lmdb';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { JournalStorage } from './storage.ts';

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

/** Opens (creating) the LMDB environment of a data directory. Journal and snapshots share it. */
export function openEnvironment(dir: string, options: LmdbJournalOptions = {}): RootDatabase {
  return open({
    path: dir,
    maxDbs: 8,
    ...(options.overlappingSync === undefined ? {} : { overlappingSync: options.overlappingSync }),
    ...(options.mapSize === undefined ? {} : { mapSize: options.mapSize }),
    ...(options.readOnly ? { readOnly: true } : {}),
  });
}

export class LmdbJournalStorage implements JournalStorage {
  readonly env: RootDatabase;
  readonly records: Database<Uint8Array, number>;
  private readonly ownsEnv: boolean;
  private readonly readOnly: boolean;

  constructor(env: RootDatabase, ownsEnv = false, readOnly = false) {
    this.env = env;
    this.ownsEnv = ownsEnv;
    this.readOnly = readOnly;
    // keyEncoder is an lmdb-js option its typings omit.
    this.records = env.openDB<Uint8Array, number>('journal', { keyEncoder: seqKeyEncoder, encoder: passThrough } as DatabaseOptions);
  }

  /** The journal of the data directory `dir` (environment opened here, closed by `close()`). */
  static open(dir: string, options: LmdbJournalOptions = {}): LmdbJournalStorage {
    return new LmdbJournalStorage(openEnvironment(dir, options), true, options.readOnly === true);
  }

  put(seq: number, record: Uint8Array): void {
    // The promise is not needed: durability is observed through sync(); failures surface there.
    void this.records.put(seq, record);
  }

  sync(): Promise<void> {
    // `flushed` is a thenable bound to the flush of the transaction holding the latest writes.
    return Promise.resolve(this.records.flushed).then(() => undefined);
  }

  lastKey(): number {
    for (const key of this.records.getKeys({ reverse: true, limit: 1 })) return key;
    return 0;
  }

  firstKey(): number {
    for (const key of this.records.getKeys({ limit: 1 })) return key;
    return 0;
  }

  get(seq: number): Uint8Array | undefined {
    const value = this.records.get(seq);
    if (value === undefined) return undefined;
    const copy = new Uint8Array(value.length);
    copy.set(value.subarray(0, value.length));
    return copy;
  }

  range(from: number, to: number): Iterable<Uint8Array> {
    return this.records.getRange({ start: from, end: to + 1 }).map((entry) => entry.value);
  }

  async truncateAfter(seq: number): Promise<void> {
    await this.records.transaction(() => {
      for (const key of this.records.getKeys({ start: seq + 1 })) this.records.remove(key);
    });
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
}
