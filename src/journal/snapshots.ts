/**
 * @module journal/snapshots
 *
 * State snapshots beside the journal: database `snapshots` of the same LMDB environment,
 * key = the journal seq the snapshot reflects (8 bytes big-endian), value =
 * ```
 * byte 0   u32  crc32c of bytes [4, end)
 * byte 4   u8   format version (2)
 * byte 6   u16  stateHash length (UTF-8 bytes)
 * byte 8   u64  seq
 * byte 16  u32  state length
 * byte 24       stateHash, then the state bytes (opaque: the cores' snapshot encoding)
 * ```
 * Start-up takes `loadLatestValid()` and replays the journal from `seq + 1`. A snapshot that
 * fails its checksum is skipped with a log line and the next older one is used, so a bad
 * snapshot costs replay time, never correctness. `prune(keep)` deletes all but the newest
 * `keep` valid snapshots.
 *
 * May import: lmdb, journal/checksum, journal/lmdb-storage (key encoder), journal/lmdb-commit-rejections, journal/journal (logger type).
 */
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
const kSnapshotHeaderBytes = 24;
/**
 * 2: the one state-hash recipe (numeric/state-hash; the ledger's part was FNV-1a before). A
 * snapshot of another version is skipped like a damaged one: the journal is replayed instead.
 */
const SNAPSHOT_FORMAT_VERSION = 2;

export interface Snapshot {
  seq: number;
  stateHash: string;
  bytes: Uint8Array;
}

export interface SnapshotInfo {
  seq: number;
  sizeBytes: number;
  valid: boolean;
}

/** A snapshot record as stored (checksummed header, hash, state); exported for the simulator's storage. */
export function encodeSnapshotRecord(seq: number, stateHash: string, state: Uint8Array): Uint8Array {
  const hash = new TextEncoder().encode(stateHash);
  const record = new Uint8Array(kSnapshotHeaderBytes + hash.length + state.length);
  const view = new DataView(record.buffer);
  view.setUint8(kSnapshotVersion, SNAPSHOT_FORMAT_VERSION);
  view.setUint16(kSnapshotHashLength, hash.length, true);
  view.setUint32(kSnapshotSeq, seq >>> 0, true);
  view.setUint32(kSnapshotSeq + 4, Math.floor(seq / 2 ** 32), true);
  view.setUint32(kSnapshotStateLength, state.length, true);
  record.set(hash, kSnapshotHeaderBytes);
  record.set(state, kSnapshotHeaderBytes + hash.length);
  view.setUint32(kSnapshotCrc, crc32c(record, 4), true);
  return record;
}

/** The snapshot stored under `key`, or undefined if it fails verification. */
export function decodeSnapshotRecord(key: number, record: Uint8Array): Snapshot | undefined {
  if (record.length < kSnapshotHeaderBytes) return undefined;
  const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
  if (view.getUint32(kSnapshotCrc, true) !== crc32c(record, 4)) return undefined;
  if (view.getUint8(kSnapshotVersion) !== SNAPSHOT_FORMAT_VERSION) return undefined;
  const hashLength = view.getUint16(kSnapshotHashLength, true);
  const stateLength = view.getUint32(kSnapshotStateLength, true);
  const seq = view.getUint32(kSnapshotSeq, true) + view.getUint32(kSnapshotSeq + 4, true) * 2 ** 32;
  if (seq !== key || kSnapshotHeaderBytes + hashLength + stateLength !== record.length) return undefined;
  const stateHash = new TextDecoder().decode(record.subarray(kSnapshotHeaderBytes, kSnapshotHeaderBytes + hashLength));
  return { seq, stateHash, bytes: new Uint8Array(record.subarray(kSnapshotHeaderBytes + hashLength)) };
}

export class Snapshots {
  readonly db: Database<Uint8Array, number>;
  private readonly logger: JournalLogger;

  constructor(env: RootDatabase, logger: JournalLogger = consoleLogger) {
    // keyEncoder is an lmdb-js option its typings omit.
    this.db = env.openDB<Uint8Array, number>('snapshots', { keyEncoder: seqKeyEncoder, encoding: 'binary' } as DatabaseOptions);
    this.logger = logger;
  }

  /** Stores a snapshot of the state after journal record `seq`; resolves once it is flushed. */
  async save(seq: number, stateHash: string, bytes: Uint8Array): Promise<void> {
    await lmdbWrite(this.db.put(seq, encodeSnapshotRecord(seq, stateHash, bytes)));
    await lmdbWrite(this.db.flushed);
  }

  /** The newest snapshot that verifies (newest first; bad ones are logged and skipped), or undefined. */
  loadLatestValid(): Snapshot | undefined {
    // A read-only environment has no snapshots database until a writer made one.
    if ((this.db as unknown) === undefined) return undefined;
    for (const { key, value } of this.db.getRange({ reverse: true })) {
      const snapshot = decodeSnapshotRecord(key, value);
      if (snapshot) return snapshot;
      this.logger.error({ seq: key }, `snapshot at seq ${key} fails verification; falling back to an older one`);
    }
    return undefined;
  }

  /** Every snapshot that verifies, newest first (a caller that cannot use one tries the next). */
  *validNewestFirst(): Generator<Snapshot> {
    if ((this.db as unknown) === undefined) return;
    for (const { key, value } of this.db.getRange({ reverse: true })) {
      const snapshot = decodeSnapshotRecord(key, value);
      if (snapshot) yield snapshot;
    }
  }

  /** Every stored snapshot, oldest first, with whether it verifies. */
  list(): SnapshotInfo[] {
    const out: SnapshotInfo[] = [];
    if ((this.db as unknown) === undefined) return out;
    for (const { key, value } of this.db.getRange()) out.push({ seq: key, sizeBytes: value.length, valid: decodeSnapshotRecord(key, value) !== undefined });
    return out;
  }

  /** Deletes the snapshots taken after journal record `seq` (their records are being cut: storage/data-directory). Returns how many. */
  async dropAfter(seq: number): Promise<number> {
    if ((this.db as unknown) === undefined) return 0;
    const doomed = [...this.db.getKeys({ start: seq + 1 })];
    if (doomed.length === 0) return 0;
    await lmdbWrite(this.db.transaction(() => {
      for (const key of doomed) this.db.remove(key);
    }));
    await lmdbWrite(this.db.flushed);
    return doomed.length;
  }

  /** Deletes every snapshot except the newest `keep` valid ones (invalid ones older than those go too). Returns how many were deleted. */
  async prune(keep = 2): Promise<number> {
    let validSeen = 0;
    const doomed: number[] = [];
    for (const { key, value } of this.db.getRange({ reverse: true })) {
      if (validSeen >= keep) doomed.push(key);
      else if (decodeSnapshotRecord(key, value)) validSeen++;
    }
    if (doomed.length === 0) return 0;
    await lmdbWrite(this.db.transaction(() => {
      for (const key of doomed) this.db.remove(key);
    }));
    await lmdbWrite(this.db.flushed);
    return doomed.length;
  }
}
