/**
 * @module journal/record
 *
 * The journal record: self-contained (it carries its own sequence, kind and chain link, so a
 * replica or the operator tool needs nothing else) and verifiable on its own.
 *
 * ```
 * byte 0   u32  crc32c of bytes [4, end)
 * byte 4   u8   format version (1)
 * byte 5   u8   flags (0)
 * byte 6   u16  kind (the payload's RecordKind for engine records; any u16 for others)
 * byte 8   u32  payload length
 * byte 12  u32  reserved (0)
 * byte 16  u64  seq (one global sequence, from 1, no gaps)
 * byte 24  u32  chain link: crc32c of the previous record (0 for seq 1)
 * byte 28  u32  chain link: crc32 (IEEE) of the previous record's bytes [4, end) (0 for seq 1)
 * byte 32       payload
 * ```
 * All little-endian. A record's chain value is (crc32c, crc32) of its bytes [4, end); since
 * those bytes include the previous link, the chain covers the whole history: a record that
 * is missing, repeated, reordered or copied from another journal breaks the link of the next.
 *
 * Torn vs corrupt: a record that is too short, whose length disagrees with its header, or
 * whose checksum fails, is "damaged". If it is the last one and cannot have been acknowledged,
 * a write was torn (power cut mid-write) and recovery drops it (journal/journal decides when);
 * anywhere else, or a broken sequence or chain link anywhere, is corruption and the journal
 * refuses to start.
 *
 * May import: journal/checksum, journal/refusal.
 */
import { DataRefusedError } from './refusal.ts';
import { crc32, crc32c } from './checksum.ts';

const kJournalCrc = 0;
const kJournalVersion = 4;
const kJournalFlags = 5;
const kJournalKind = 6;
export const kJournalPayloadLength = 8;
const kJournalReserved = 12;
const kJournalSeq = 16;
const kJournalPrevCrc32c = 24;
export const kJournalPrevCrc32 = 28;
export const kJournalHeaderBytes = 32;

const JOURNAL_FORMAT_VERSION = 1;
/** Largest payload accepted (a batch of events fits easily; snapshots do not belong here). */
export const MAX_PAYLOAD_BYTES = 1 << 20;

/** The chain value of the last record seen: (crc32c, crc32) of its bytes [4, end). */
export class Chain {
  crc32c = 0;
  crc32 = 0;
  copyFrom(other: Chain): void {
    this.crc32c = other.crc32c;
    this.crc32 = other.crc32;
  }
}

/** Why a record failed verification. Damage (the first three) at the tail means a torn write. */
export const Problem = {
  Ok: 0,
  Short: 1,
  Length: 2,
  Checksum: 3,
  Version: 4,
  Sequence: 5,
  Chain: 6,
} as const;
export type Problem = (typeof Problem)[keyof typeof Problem];

export const PROBLEM_TEXT: Readonly<Record<number, string>> = {
  [Problem.Short]: 'shorter than a record header',
  [Problem.Length]: 'length disagrees with its header',
  [Problem.Checksum]: 'checksum mismatch',
  [Problem.Version]: 'unknown format version',
  [Problem.Sequence]: 'sequence number out of place (a record is missing or misplaced)',
  [Problem.Chain]: 'hash chain broken (does not follow the previous record)',
};

/** True for the problems a torn write leaves behind. */
export function isDamage(problem: Problem): boolean {
  return problem === Problem.Short || problem === Problem.Length || problem === Problem.Checksum;
}

/**
 * Writes a record into `target[offset, offset + kJournalHeaderBytes + length)` linking it to
 * `chain`, then advances `chain` to this record. Returns the record's size.
 */
export function writeRecord(target: Uint8Array, view: DataView, offset: number, seq: number, kind: number, chain: Chain, payload: Uint8Array, start: number, length: number): number {
  target.set(length === payload.length && start === 0 ? payload : payload.subarray(start, start + length), offset + kJournalHeaderBytes);
  return sealRecord(target, view, offset, seq, kind, chain, length);
}

/**
 * Seals the record whose `length` payload bytes are already in place after its header at
 * `offset` (written there without a copy, `Journal.appendText`): its header, checksum and link
 * to `chain`, which then advances to it. Returns the record's size.
 */
export function sealRecord(target: Uint8Array, view: DataView, offset: number, seq: number, kind: number, chain: Chain, length: number): number {
  view.setUint8(offset + kJournalVersion, JOURNAL_FORMAT_VERSION);
  view.setUint8(offset + kJournalFlags, 0);
  view.setUint16(offset + kJournalKind, kind, true);
  view.setUint32(offset + kJournalPayloadLength, length, true);
  view.setUint32(offset + kJournalReserved, 0, true);
  view.setUint32(offset + kJournalSeq, seq >>> 0, true);
  view.setUint32(offset + kJournalSeq + 4, Math.floor(seq / 2 ** 32), true);
  view.setUint32(offset + kJournalPrevCrc32c, chain.crc32c, true);
  view.setUint32(offset + kJournalPrevCrc32, chain.crc32, true);
  const end = offset + kJournalHeaderBytes + length;
  const sum = crc32c(target, offset + 4, end);
  view.setUint32(offset + kJournalCrc, sum, true);
  chain.crc32c = sum;
  chain.crc32 = crc32(target, offset + 4, end);
  return kJournalHeaderBytes + length;
}

let cachedBuffer: ArrayBufferLike | null = null;
let cachedView: DataView = new DataView(new ArrayBuffer(0));

/** A DataView over the record's whole ArrayBuffer (cached: replay reads keep reusing one buffer). */
export function viewOf(record: Uint8Array): DataView {
  if (record.buffer !== cachedBuffer) {
    cachedBuffer = record.buffer;
    cachedView = new DataView(record.buffer);
  }
  return cachedView;
}

/**
 * Verifies `record` as the record `expectedSeq` following `chain`; on success advances
 * `chain` to it. Never throws: returns the problem.
 */
export function checkRecord(record: Uint8Array, expectedSeq: number, chain: Chain): Problem {
  if (record.length < kJournalHeaderBytes) return Problem.Short;
  const view = viewOf(record);
  const at = record.byteOffset;
  if (kJournalHeaderBytes + view.getUint32(at + kJournalPayloadLength, true) !== record.length) return Problem.Length;
  const sum = crc32c(record, 4, record.length);
  if (sum !== view.getUint32(at + kJournalCrc, true)) return Problem.Checksum;
  if (view.getUint8(at + kJournalVersion) !== JOURNAL_FORMAT_VERSION) return Problem.Version;
  if (recordSeq(view, at) !== expectedSeq) return Problem.Sequence;
  if (view.getUint32(at + kJournalPrevCrc32c, true) !== chain.crc32c || view.getUint32(at + kJournalPrevCrc32, true) !== chain.crc32) return Problem.Chain;
  chain.crc32c = sum;
  chain.crc32 = crc32(record, 4, record.length);
  return Problem.Ok;
}

/** The chain value of a record whose checksum has been verified. */
export function chainOf(record: Uint8Array, into: Chain = new Chain()): Chain {
  into.crc32c = viewOf(record).getUint32(record.byteOffset + kJournalCrc, true);
  into.crc32 = crc32(record, 4, record.length);
  return into;
}

/**
 * The chain value of `record` as stored under `seq`: undefined unless it is whole (length and
 * checksum) and is record `seq` (its link to the previous record is not checked). What a
 * snapshot taken after record `seq` records, to be told from another journal's (journal/snapshot-tie).
 */
export function storedChain(record: Uint8Array | undefined, seq: number): Chain | undefined {
  if (record === undefined || record.length < kJournalHeaderBytes) return undefined;
  const view = viewOf(record);
  const at = record.byteOffset;
  if (kJournalHeaderBytes + view.getUint32(at + kJournalPayloadLength, true) !== record.length || recordSeq(view, at) !== seq) return undefined;
  const sum = crc32c(record, 4, record.length);
  if (sum !== view.getUint32(at + kJournalCrc, true)) return undefined;
  const chain = new Chain();
  chain.crc32c = sum;
  chain.crc32 = crc32(record, 4, record.length);
  return chain;
}

/** `storedChain` of record `seq` of `storage`, whose records end at `last`: undefined beyond them. */
export function chainIn(storage: { get(seq: number): Uint8Array | undefined }, seq: number, last: number): Chain | undefined {
  return seq >= 1 && seq <= last ? storedChain(storage.get(seq), seq) : undefined;
}

/** A record's seq, from a view in which the record starts at `offset`. */
export function recordSeq(view: DataView, offset = 0): number {
  return view.getUint32(offset + kJournalSeq, true) + view.getUint32(offset + kJournalSeq + 4, true) * 2 ** 32;
}

/** A record's kind, from a view in which the record starts at `offset`. */
export function recordKindOf(view: DataView, offset = 0): number {
  return view.getUint16(offset + kJournalKind, true);
}

/** A journal that must not be opened: names the first bad record and why. */
export class JournalCorruptError extends DataRefusedError {
  override name = 'JournalCorruptError';

  constructor(
    readonly seq: number,
    readonly problem: Problem,
    /** Why damage at the tail is not taken for a torn write, when that is the case. */
    why?: string,
  ) {
    super(
      `journal corrupt at seq ${seq}: ${PROBLEM_TEXT[problem]}${why === undefined ? '' : ` (${why})`}; refusing to start, nothing was changed. ` +
        `Restore this data directory from a replica or backup; \`npm run journal -- copy --data-dir DIR --to NEWDIR --until ${Math.max(0, seq - 1)}\` keeps the good records before it in a new data directory to start from.`,
    );
  }
}
