/**
 * @module transport/layout
 *
 * Every byte offset shared between threads, in one place: the ring header in a
 * SharedArrayBuffer, the slots after it, and the binary records (commands and book events)
 * that travel in the slots and in journal payloads. A `k*` constant names each offset; nothing
 * else in the transport writes a literal offset.
 *
 * Ring buffer (`Ring`):
 * ```
 * byte 0    line 0  configuration, written once at creation: magic, capacity, slot size
 * byte 64   line 1  producer cursor (written by the producer only)
 * byte 128  line 2  consumer cursor (written by the consumer only)
 * byte 192  line 3  consumer-sleeping flag (written by the consumer, read by the producer)
 * byte 256  line 4  producer-sleeping flag (written by the producer, read by the consumer)
 * byte 320  line 5  owner thread ids (single-writer / single-reader asserts) and closed flag
 * byte 384  slots: capacity × slot size, slot i at kRingSlotsOffset + (i & mask) × slotBytes
 * ```
 * Each cursor has its own 64-byte cache line so the two threads never write the same line.
 * Cursors are int32 counters that wrap at 2^32; `(write - read) | 0` is the fill level, which
 * is why the capacity is at most 2^30.
 *
 * Records (little-endian, every record starts with the same 8-byte header):
 * ```
 * 0  u16 kind (RecordKind)   2  u16 length in bytes   4  u32 market index
 * ```
 * Integers that may exceed 32 bits (ids, prices, quantities, times, sequences) are stored as
 * float64, which holds every safe integer exactly. Small fields (side, flags, reason, code) are
 * int32 after the float64 fields.
 *
 * May import: nothing.
 */

/** Bytes in a cache line: the distance kept between data that two threads write. */
export const kCacheLineBytes = 64;

// ── Ring header (byte offsets; divide by 4 for the Int32Array index) ──────────────────────────
export const kRingMagic = 0;
export const kRingCapacity = 4;
export const kRingSlotBytes = 8;
export const kRingProducerCursor = 64;
export const kRingConsumerCursor = 128;
export const kRingConsumerSleeping = 192;
export const kRingProducerSleeping = 256;
export const kRingProducerOwner = 320;
export const kRingConsumerOwner = 324;
export const kRingClosed = 328;
export const kRingSlotsOffset = 384;

/** "RING" in ASCII: tells a ring buffer from any other SharedArrayBuffer on attach. */
export const RING_MAGIC = 0x474e4952;
/** Largest capacity: the int32 cursor distance must stay unambiguous. */
export const RING_MAX_CAPACITY = 2 ** 30;
/**
 * Default slot size: three cache lines. The largest record (a place order with a 64-byte
 * clientId) is 144 bytes, so 128 would not do; a multiple of 64 keeps slots on their own lines.
 */
export const kSlotBytes = 192;

// ── Record header ─────────────────────────────────────────────────────────────────────────
export const kRecordKind = 0;
export const kRecordLength = 2;
export const kRecordMarket = 4;
export const kRecordHeaderBytes = 8;

/** Largest record the codec writes (a place order with a 64-byte clientId). */
export const kMaxRecordBytes = 144;
/** Longest clientId, in UTF-8 bytes. */
export const kMaxClientIdBytes = 64;
/** Stored clientId length meaning "no clientId" (null). */
export const kClientIdNull = 0xff;

/** What a record is: commands below 16, book events from 16. Stable: written to the journal. */
export const RecordKind = {
  Place: 1,
  Cancel: 2,
  // 3 was a cancel by clientId, never produced: not to be reused.
  CancelAll: 4,
  Expire: 5,
  Accepted: 16,
  Rested: 17,
  Fill: 18,
  Cancelled: 19,
  Expired: 20,
  Rejected: 21,
  Level: 22,
  /** The market thread finished one command; carries the book's result code. Not journaled. */
  Done: 30,
} as const;
export type RecordKind = (typeof RecordKind)[keyof typeof RecordKind];

// ── Commands: time first, then the command's fields ───────────────────────────────────────
export const kPlace = {
  time: 8,
  orderId: 16,
  owner: 24,
  account: 32,
  price: 40,
  quantity: 48,
  expiresAt: 56,
  position: 64,
  flags: 72,
  side: 76,
  clientIdLength: 77,
  clientId: 80,
  /** Length without the clientId bytes. */
  bytes: 80,
} as const;

export const kCancel = { time: 8, orderId: 16, owner: 24, bytes: 32 } as const;

export const kCancelAll = { time: 8, owner: 16, reason: 24, bytes: 32 } as const;

export const kExpire = { time: 8, bytes: 16 } as const;

// ── Book events: seq and time first, then the event's fields ──────────────────────────────
/** onAccepted and onRested share this layout (`quantity` holds `remaining` for onRested). */
export const kOrderEvent = { seq: 8, time: 16, orderId: 24, owner: 32, price: 40, quantity: 48, side: 56, bytes: 64 } as const;

export const kFill = {
  seq: 8,
  time: 16,
  makerOrderId: 24,
  takerOrderId: 32,
  makerOwner: 40,
  takerOwner: 48,
  price: 56,
  quantity: 64,
  makerRemaining: 72,
  takerRemaining: 80,
  takerSide: 88,
  bytes: 96,
} as const;

/** onCancelled and onExpired share this layout. */
export const kOrderEnd = { seq: 8, time: 16, orderId: 24, owner: 32, remaining: 40, reason: 48, bytes: 56 } as const;

export const kRejected = { seq: 8, time: 16, orderId: 24, owner: 32, code: 40, bytes: 48 } as const;

/** The end of one command's events: the book's return value (an EngineCode, or a count). */
export const kDone = { code: 8, bytes: 16 } as const;

export const kLevel = { seq: 8, time: 16, price: 24, quantity: 32, side: 40, bytes: 48 } as const;
