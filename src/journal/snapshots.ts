/**
 * @module journal/snapshots
 *
 * State snapshots beside the journal: one file per snapshot in the data directory's
 * `snapshots/` (`DIR/snapshots`, the sibling of `DIR/journal`: `snapshotsDirectoryBeside`),
 * named by the journal seq it reflects, zero-padded so name order is seq order
 * (`00000000000000041724.snapshot`). A file holds one record:
 * ```
 * byte 0   u32  crc32c of bytes [4, end)
 * byte 4   u8   format version (3; 2: written by older builds, without the tie)
 * byte 6   u16  stateHash length (UTF-8 bytes)
 * byte 8   u64  seq
 * byte 16  u32  state length
 * byte 20  u32  reserved (0)
 * byte 24  u32  tie (version 3): the journal's chain value of record `seq`, its crc32c …
 * byte 28  u32  … and its crc32 (journal/record `Chain`)
 * byte 32       stateHash, then the state bytes (opaque: the cores' snapshot encoding);
 *               at byte 24 in version 2
 * ```
 * The tie says which journal the snapshot was taken of: a data directory's journal can be
 * replaced (re-seeded from another node, or a deposed primary's whose timeline diverged) while
 * `snapshots/` stays, and a snapshot of another journal restored and replayed on would be a
 * wrong state. Who starts from a snapshot compares its tie with the journal's record at its seq
 * and skips one that differs (journal/snapshot-tie). Version 2 records carry no tie and are used
 * as before (an upgrade needs no full replay); version 3 is written from this build on.
 * Start-up takes `validNewestFirst()` and replays the journal from `seq + 1`. A snapshot that
 * fails its checksum (a torn or damaged file, another format, a seq unlike its name's) is
 * skipped and the next older one is used, so a bad snapshot costs replay time, never
 * correctness. `prune(keep)` deletes all but the newest `keep` valid snapshots.
 *
 * Invariants:
 * - a file under a final name is whole and durable: `save` writes `NAME.tmp`, fsyncs it, renames
 *   it into place and fsyncs the directory, and resolves only then. A `.tmp` left by a crash is
 *   never read, and goes at the next `prune` or `removeLeftovers` (the data directory's open);
 * - one writer per directory: the snapshot thread writes; the open and `cutAfter` before and
 *   after it runs. An exchange holds the data directory's LOCK (storage/directory-lock); a
 *   replica or standby does not take it (known: two on one directory were already unsafe for
 *   the journal);
 * - an entry that cannot be used (not a regular file, unreadable, misnamed) is logged once and
 *   skipped, never a failed start: cleanup never throws either (test/journal/snapshots).
 *
 * Why files and not LMDB: snapshots were the `snapshots` database of the journal's environment,
 * written and pruned from the snapshot thread while the main thread appended journal blocks.
 * Each save wrote a large overflow value and each prune freed one, the heaviest freelist churn
 * the journal's file saw, from a second writer thread, and lmdb-js's LMDB aborted the process
 * under it (`Assertion 'freelist_written_start >= mop_len' failed in mdb_freelist_save()`,
 * test/e2e/restart-chaos about 1 run in 4). A write-once blob needs no B-tree; the journal's
 * environment now has one writer thread.
 *
 * Legacy: older data directories hold snapshots in that LMDB database (key: the seq, 8 bytes
 * big-endian; value: the same record). Given the environment (`legacy`), the reads see those too
 * (files first; a legacy one only where no file has its seq), and `migrateLegacy()` moves them
 * into files: every file written durably first, then the database cleared in one transaction,
 * so a process killed in between loses nothing and the next open redoes it. The writable open
 * (storage/data-directory) migrates; read-only opens (the journal CLI) read both. A move that
 * fails (a full disk) is logged and the start goes on reading them where they are; `dropAfter`
 * cuts both kinds, and `prune` refuses while legacy snapshots are unmoved (the snapshot thread's
 * instance has no legacy database: it prunes the files).
 *
 * May import: lmdb (types), node:fs, node:path, journal/checksum, journal/lmdb-storage (key encoder), journal/lmdb-commit-rejections, journal/journal (logger type).
 */
import { existsSync, lstatSync, mkdirSync, promises as fs, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Database, DatabaseOptions, RootDatabase } from 'lmdb';
import { crc32c } from './checksum.ts';
import { consoleLogger, type JournalLogger } from './journal.ts';
import { seqKeyEncoder } from './lmdb-storage.ts';
import { lmdbWrite } from './lmdb-commit-rejections.ts';

const kSnapshotCrc = 0;
const kSnapshotVersion = 4;
const kSnapshotHashLength = 6;
const kSnapshotSeq = 8;
const kSnapshotStateLength = 16;
const kSnapshotTieCrc32c = 24;
const kSnapshotTieCrc32 = 28;
/**
 * 2: the one state-hash recipe (numeric/state-hash; the ledger's part was FNV-1a before).
 * 3: the same, with the tie to the journal (24-byte header in version 2, 32 in version 3). A
 * snapshot of another version is skipped like a damaged one: the journal is replayed instead.
 */
const SNAPSHOT_FORMAT_VERSION = 3;
const UNTIED_FORMAT_VERSION = 2;
const headerBytesOf = (version: number): number => (version === SNAPSHOT_FORMAT_VERSION ? 32 : 24);

/** The journal's chain value of the record a snapshot was taken after (journal/record `Chain`). */
export interface SnapshotTie {
  crc32c: number;
  crc32: number;
}

export interface Snapshot {
  seq: number;
  stateHash: string;
  bytes: Uint8Array;
  /** Version 3: the journal's chain value of record `seq`. Absent in a version 2 record (not tied). */
  tie?: SnapshotTie;
}

export interface SnapshotInfo {
  seq: number;
  sizeBytes: number;
  valid: boolean;
}

/**
 * A snapshot record as stored (checksummed header, tie, hash, state); exported for the
 * simulator's storage. With `tie` a version 3 record; without, version 2 (no tie: what older
 * builds wrote, for tests of them).
 */
export function encodeSnapshotRecord(seq: number, stateHash: string, state: Uint8Array, tie?: SnapshotTie): Uint8Array {
  const hash = new TextEncoder().encode(stateHash);
  const version = tie === undefined ? UNTIED_FORMAT_VERSION : SNAPSHOT_FORMAT_VERSION;
  const header = headerBytesOf(version);
  const record = new Uint8Array(header + hash.length + state.length);
  const view = new DataView(record.buffer);
  view.setUint8(kSnapshotVersion, version);
  view.setUint16(kSnapshotHashLength, hash.length, true);
  view.setUint32(kSnapshotSeq, seq >>> 0, true);
  view.setUint32(kSnapshotSeq + 4, Math.floor(seq / 2 ** 32), true);
  view.setUint32(kSnapshotStateLength, state.length, true);
  if (tie !== undefined) {
    view.setUint32(kSnapshotTieCrc32c, tie.crc32c >>> 0, true);
    view.setUint32(kSnapshotTieCrc32, tie.crc32 >>> 0, true);
  }
  record.set(hash, header);
  record.set(state, header + hash.length);
  view.setUint32(kSnapshotCrc, crc32c(record, 4), true);
  return record;
}

/** Whether `record` verifies as the snapshot at `key`, without copying its state. */
export function verifySnapshotRecord(key: number, record: Uint8Array): boolean {
  if (record.length < headerBytesOf(UNTIED_FORMAT_VERSION)) return false;
  const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
  const version = view.getUint8(kSnapshotVersion);
  if (version !== SNAPSHOT_FORMAT_VERSION && version !== UNTIED_FORMAT_VERSION) return false;
  const header = headerBytesOf(version);
  if (record.length < header) return false;
  const seq = view.getUint32(kSnapshotSeq, true) + view.getUint32(kSnapshotSeq + 4, true) * 2 ** 32;
  if (seq !== key || header + view.getUint16(kSnapshotHashLength, true) + view.getUint32(kSnapshotStateLength, true) !== record.length) return false;
  return view.getUint32(kSnapshotCrc, true) === crc32c(record, 4);
}

/** The snapshot stored under `key`, or undefined if it fails verification. */
export function decodeSnapshotRecord(key: number, record: Uint8Array): Snapshot | undefined {
  if (!verifySnapshotRecord(key, record)) return undefined;
  const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
  const version = view.getUint8(kSnapshotVersion);
  const header = headerBytesOf(version);
  const hashLength = view.getUint16(kSnapshotHashLength, true);
  const stateHash = new TextDecoder().decode(record.subarray(header, header + hashLength));
  const snapshot: Snapshot = { seq: key, stateHash, bytes: new Uint8Array(record.subarray(header + hashLength)) };
  if (version === SNAPSHOT_FORMAT_VERSION) snapshot.tie = { crc32c: view.getUint32(kSnapshotTieCrc32c, true), crc32: view.getUint32(kSnapshotTieCrc32, true) };
  return snapshot;
}

/** The data directory's snapshots directory beside its journal directory: `DIR/snapshots` for `DIR/journal`. */
export function snapshotsDirectoryBeside(journalDir: string): string {
  return join(dirname(resolve(journalDir)), 'snapshots');
}

const SUFFIX = '.snapshot';
const TEMP_SUFFIX = '.tmp';
const FILE_NAME = /^(\d{20})\.snapshot$/;

/** The file name of the snapshot at `seq`: 20 digits, so name order is seq order. */
export function snapshotFileName(seq: number): string {
  return `${String(seq).padStart(20, '0')}${SUFFIX}`;
}

/** A stored snapshot: a file of the directory, or (legacy) a value of the LMDB database. */
interface Entry {
  seq: number;
  legacy: boolean;
}

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** fsync of a directory: makes the renames and unlinks in it durable. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface SnapshotsOptions {
  logger?: JournalLogger;
  /** The journal's LMDB environment, to read (and `migrateLegacy`) snapshots an older build stored in its `snapshots` database. */
  legacy?: RootDatabase;
}

export class Snapshots {
  /** The directory the snapshot files are in (created by the first save if missing). */
  readonly dir: string;
  private readonly logger: JournalLogger;
  /** The legacy LMDB database, while it may hold snapshots (undefined: none, or none left). */
  private legacyDb: Database<Uint8Array, number> | undefined;
  /** Entries already reported as unusable (each is logged once). */
  private readonly reported = new Set<string>();

  constructor(dir: string, options: SnapshotsOptions = {}) {
    this.dir = dir;
    this.logger = options.logger ?? consoleLogger;
    // keyEncoder is an lmdb-js option its typings omit; `create: false`: a data directory
    // without the database gets none (undefined, as read-only opens get when it is absent).
    this.legacyDb = options.legacy?.openDB<Uint8Array, number>('snapshots', { keyEncoder: seqKeyEncoder, encoding: 'binary', create: false } as DatabaseOptions);
  }

  /**
   * Creates the directory if it is missing, its entry made durable in the parent (fsync): the
   * legacy move clears LMDB only after the files are durable, and a directory entry lost to a
   * power cut would take every moved file with it.
   */
  async createDirectory(): Promise<void> {
    if (existsSync(this.dir)) return;
    mkdirSync(this.dir, { recursive: true });
    await syncDirectory(dirname(resolve(this.dir)));
  }

  /**
   * Stores a snapshot of the state after journal record `seq`, tied to the journal by `tie`, its
   * chain value of record `seq` (without: a version 2 record, as older builds wrote); resolves once it is durable.
   */
  async save(seq: number, stateHash: string, bytes: Uint8Array, tie?: SnapshotTie): Promise<void> {
    await this.saveRecord(seq, encodeSnapshotRecord(seq, stateHash, bytes, tie));
  }

  /** Stores `record` (as `encodeSnapshotRecord` makes it, verbatim) as the snapshot at `seq`: temporary file, fsync, rename, fsync of the directory. */
  async saveRecord(seq: number, record: Uint8Array): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const name = snapshotFileName(seq);
    const temp = join(this.dir, name + TEMP_SUFFIX);
    try {
      const handle = await fs.open(temp, 'w');
      try {
        await handle.writeFile(record);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temp, join(this.dir, name));
    } catch (error) {
      await fs.rm(temp, { force: true }).catch(() => {});
      throw error;
    }
    await syncDirectory(this.dir);
  }

  /** Every stored snapshot, oldest first: the files, and legacy ones whose seq no file has. */
  private entries(): Entry[] {
    const bySeq = new Map<number, Entry>();
    for (const seq of this.fileSeqs()) bySeq.set(seq, { seq, legacy: false });
    if (this.legacyDb !== undefined) {
      for (const seq of this.legacyDb.getKeys()) if (!bySeq.has(seq)) bySeq.set(seq, { seq, legacy: true });
    }
    return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  }

  private fileSeqs(): number[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const seqs: number[] = [];
    for (const name of names) {
      const match = FILE_NAME.exec(name);
      if (match !== null) seqs.push(Number(match[1]));
      else if (!name.endsWith(TEMP_SUFFIX)) this.reportOnce(name, `${join(this.dir, name)} is not named as a snapshot (20 digits, then .snapshot): ignored, never read or pruned`);
    }
    return seqs;
  }

  /** Logs `message` once per entry and process: an entry that stays unusable is read at every prune. */
  private reportOnce(name: string, message: string): void {
    if (this.reported.has(name)) return;
    this.reported.add(name);
    this.logger.error({ dir: this.dir, name }, message);
  }

  /** The stored record of `entry`, or undefined if it is gone (pruned meanwhile by the writer). */
  private read(entry: Entry): Uint8Array | undefined {
    if (entry.legacy) {
      const value = this.legacyDb?.get(entry.seq);
      return value === undefined ? undefined : new Uint8Array(value); // a copy: lmdb-js may reuse its buffer
    }
    const name = snapshotFileName(entry.seq);
    const path = join(this.dir, name);
    try {
      // Only a regular file is read: a FIFO under a snapshot's name would block the start for
      // ever, a directory throws. Anything else unreadable (permissions, I/O) is skipped like a
      // damaged snapshot — an older one or the journal stands in — never a failed start.
      if (!lstatSync(path).isFile()) {
        this.reportOnce(name, `${path} is not a regular file: skipped`);
        return undefined;
      }
      return readFileSync(path);
    } catch (error) {
      if (!isMissing(error)) this.reportOnce(name, `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}): skipped`);
      return undefined;
    }
  }

  /** The newest snapshot that verifies (newest first; bad ones are logged and skipped), or undefined. */
  loadLatestValid(): Snapshot | undefined {
    for (const entry of this.entries().reverse()) {
      const record = this.read(entry);
      if (record === undefined) continue;
      const snapshot = decodeSnapshotRecord(entry.seq, record);
      if (snapshot) return snapshot;
      this.logger.error({ seq: entry.seq }, `snapshot at seq ${entry.seq} fails verification; falling back to an older one`);
    }
    return undefined;
  }

  /** Every snapshot that verifies, newest first (a caller that cannot use one tries the next). */
  *validNewestFirst(): Generator<Snapshot> {
    for (const entry of this.entries().reverse()) {
      const record = this.read(entry);
      const snapshot = record === undefined ? undefined : decodeSnapshotRecord(entry.seq, record);
      if (snapshot) yield snapshot;
    }
  }

  /** Every stored snapshot, oldest first, with whether it verifies. */
  list(): SnapshotInfo[] {
    const out: SnapshotInfo[] = [];
    for (const entry of this.entries()) {
      const record = this.read(entry);
      if (record !== undefined) out.push({ seq: entry.seq, sizeBytes: record.length, valid: decodeSnapshotRecord(entry.seq, record) !== undefined });
    }
    return out;
  }

  /** Every stored record up to seq `upTo` (default all), oldest first, verbatim (the journal CLI's copy). */
  *records(upTo = Infinity): Generator<{ seq: number; record: Uint8Array }> {
    for (const entry of this.entries()) {
      if (entry.seq > upTo) break;
      const record = this.read(entry);
      if (record !== undefined) yield { seq: entry.seq, record };
    }
  }

  /** Deletes the snapshots taken after journal record `seq` (their records are being cut: storage/data-directory). Returns how many. */
  async dropAfter(seq: number): Promise<number> {
    const doomed = this.fileSeqs().filter((s) => s > seq);
    await this.remove(doomed);
    // Legacy ones not yet moved (a move that failed at this start) go too, as the LMDB build cut them.
    const db = this.legacyDb;
    const legacy = db === undefined ? [] : [...db.getKeys({ start: seq + 1 })];
    if (db !== undefined && legacy.length > 0) {
      await lmdbWrite(db.transaction(() => {
        for (const key of legacy) db.remove(key);
      }));
      await lmdbWrite(db.flushed);
    }
    return doomed.length + legacy.length;
  }

  /** Deletes every snapshot except the newest `keep` valid ones (invalid ones older than those go too), and leftover temporary files. Returns how many snapshots were deleted. */
  async prune(keep = 2): Promise<number> {
    this.refuseUnmoved('prune');
    await this.removeLeftovers();
    let validSeen = 0;
    const doomed: number[] = [];
    for (const seq of this.fileSeqs().sort((a, b) => b - a)) {
      if (validSeen >= keep) doomed.push(seq);
      else {
        const record = this.read({ seq, legacy: false });
        if (record !== undefined && verifySnapshotRecord(seq, record)) validSeen++;
      }
    }
    await this.remove(doomed);
    return doomed.length;
  }

  /** Deletes the temporary files a save killed half-way left (never read). Returns how many. */
  async removeLeftovers(): Promise<number> {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (error) {
      if (isMissing(error)) return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names.filter((n) => n.endsWith(TEMP_SUFFIX))) if (await this.unlink(name)) removed++;
    if (removed > 0) await syncDirectory(this.dir);
    return removed;
  }

  /**
   * Removes the regular file `name`; anything else under it (a directory, a FIFO) or a file that
   * cannot be removed is logged once and left: cleanup never fails an open or a prune (a prune
   * that threw after every save would keep every snapshot until the disk filled).
   */
  private async unlink(name: string): Promise<boolean> {
    const path = join(this.dir, name);
    try {
      if (!lstatSync(path).isFile()) {
        this.reportOnce(name, `${path} is not a regular file: not removed`);
        return false;
      }
      await fs.rm(path, { force: true });
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      this.reportOnce(name, `${path} cannot be removed (${(error as NodeJS.ErrnoException).code ?? String(error)}): left`);
      return false;
    }
  }

  /**
   * Moves the snapshots of the legacy LMDB database into files: each written durably first,
   * then the database cleared in one transaction. Killed in between, the next call redoes it;
   * a seq that already has a file is not written again (a file under its final name is whole:
   * it was moved, and the reads took it over its legacy copy). Returns how many were in LMDB.
   */
  async migrateLegacy(): Promise<number> {
    const db = this.legacyDb;
    if (db === undefined) return 0;
    const keys = [...db.getKeys()];
    const moved = new Set(this.fileSeqs());
    for (const seq of keys) {
      if (moved.has(seq)) continue;
      const record = this.read({ seq, legacy: true });
      if (record !== undefined) await this.saveRecord(seq, record);
    }
    if (keys.length > 0) {
      await lmdbWrite(db.transaction(() => {
        for (const seq of keys) db.remove(seq);
      }));
      await lmdbWrite(db.flushed);
      this.logger.info({ snapshots: keys.length, dir: this.dir }, 'snapshots moved from the journal\'s LMDB environment into files');
    }
    this.legacyDb = undefined;
    return keys.length;
  }

  private refuseUnmoved(what: string): void {
    if (this.legacyDb === undefined) return;
    for (const _ of this.legacyDb.getKeys({ limit: 1 })) throw new Error(`snapshots: ${what} before the legacy snapshots in LMDB were moved into files (migrateLegacy)`);
  }

  private async remove(seqs: number[]): Promise<void> {
    if (seqs.length === 0) return;
    for (const seq of seqs) await this.unlink(snapshotFileName(seq));
    await syncDirectory(this.dir);
  }
}
