/**
 * @module transport/codec
 *
 * Binary records for the engine's commands and book events, as they travel in ring slots and
 * in journal payloads. Layouts (`k*`) and kinds (`RecordKind`) are in `layout.ts`.
 *
 * - Commands: `encodePlace`, `encodeCancel`, `encodeCancelAll`,
 *   `encodeExpire` write one record and return its length; `decodeCommand` replays a record
 *   into a `CommandHandler` (an `OrderBook` is one).
 * - Events: `BookEventWriter` is a `BookListener` that appends one record per event to a
 *   `RecordSink` (a ring, or a growable `RecordBuffer`); `decodeEvent` replays a record into
 *   any `BookListener`.
 *
 * Exactness: every number is stored as float64 (ids, prices, quantities, times and sequences
 * are safe integers, and float64 holds those exactly) or as int32 (side, flags, reason, code),
 * so a round trip gives back the same numbers. A clientId is UTF-8, at most 64 bytes; a longer
 * one is a caller bug (the gateway validates) and throws.
 *
 * Allocation: encoding and decoding allocate nothing, except the clientId string on decode and
 * the growth of a `RecordBuffer`. `decodeCommand` reuses one `PlaceOrder` object: the book
 * copies what it keeps (the contract in engine/types).
 *
 * May import: types/ids, transport/layout, engine/types (types only).
 */
import type { BookListener, PlaceOrder, Side } from '../engine/types.ts';
import {
  RecordKind,
  kCancel,
  kCancelAll,
  kClientIdNull,
  kExpire,
  kDone,
  kFill,
  kLevel,
  kMaxClientIdBytes,
  kMaxRecordBytes,
  kOrderEnd,
  kOrderEvent,
  kPlace,
  kRecordKind,
  kRecordLength,
  kRecordHeaderBytes,
  kRecordMarket,
  kRejected,
} from './layout.ts';
import { NO_ACCOUNT, NO_ORDER, NO_OWNER, type AccountIndex, type MarketIndex, type OrderId, type OwnerIndex } from '../types/ids.ts';

const LE = true;

// ── Record header ───────────────────────────────────────────────────────────────────────────

export function recordKind(view: DataView, offset: number): number {
  return view.getUint16(offset + kRecordKind, LE);
}
export function recordLength(view: DataView, offset: number): number {
  return view.getUint16(offset + kRecordLength, LE);
}
export function recordMarket(view: DataView, offset: number): MarketIndex {
  return view.getUint32(offset + kRecordMarket, LE) as MarketIndex;
}
/**
 * Starts a record: clears its `fixedBytes` (a multiple of 8), then writes the header. Every
 * writer starts here, so each byte of a record is written by this code — the padding after an
 * int32 field is zero, never what an earlier record left in a reused ring slot or buffer — and
 * a record's bytes are a function of its fields alone (its canonical encoding, which the
 * journal stores and replay compares).
 */
function startRecord(view: DataView, offset: number, kind: number, fixedBytes: number, market: MarketIndex): void {
  for (let at = offset + kRecordHeaderBytes; at < offset + fixedBytes; at += 8) view.setFloat64(at, 0, LE);
  writeHeader(view, offset, kind, fixedBytes, market);
}
function writeHeader(view: DataView, offset: number, kind: number, length: number, market: MarketIndex): void {
  view.setUint16(offset + kRecordKind, kind, LE);
  view.setUint16(offset + kRecordLength, length, LE);
  view.setUint32(offset + kRecordMarket, market, LE);
}

// ── clientId as UTF-8 ───────────────────────────────────────────────────────────────────────

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();
/** Non-shared scratch for encodeInto/decode: TextDecoder refuses views of a SharedArrayBuffer. */
const clientIdScratch = new Uint8Array(kMaxClientIdBytes * 3);

/** Writes `text` as UTF-8 at `bytes[offset]`; returns its length. ASCII takes the fast path. */
function writeClientId(bytes: Uint8Array, offset: number, text: string): number {
  const n = text.length;
  let i = 0;
  if (n <= kMaxClientIdBytes) {
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) break;
      bytes[offset + i] = c;
    }
    if (i === n) return n;
  }
  const { read, written } = utf8Encoder.encodeInto(text, clientIdScratch);
  if (read !== n || written > kMaxClientIdBytes) throw new RangeError(`codec: clientId longer than ${kMaxClientIdBytes} UTF-8 bytes`);
  bytes.set(clientIdScratch.subarray(0, written), offset);
  return written;
}

function readClientId(bytes: Uint8Array, offset: number, length: number): string {
  let ascii = true;
  for (let i = 0; i < length; i++) {
    const c = bytes[offset + i];
    clientIdScratch[i] = c;
    if (c >= 0x80) ascii = false;
  }
  if (ascii) return String.fromCharCode.apply(null, clientIdScratch.subarray(0, length) as unknown as number[]);
  return utf8Decoder.decode(clientIdScratch.subarray(0, length));
}

// ── Commands ────────────────────────────────────────────────────────────────────────────────

/** What a decoded command drives: the `OrderBook` methods of the same names. */
export interface CommandHandler {
  place(cmd: PlaceOrder): unknown;
  cancel(orderId: OrderId, owner: OwnerIndex, time: number): unknown;
  cancelAll(owner: OwnerIndex, time: number, reason: number): unknown;
  expire(time: number): unknown;
}

/** Writes a place-order record at `offset`; returns its length (80 + clientId bytes, ≤ 144). */
export function encodePlace(view: DataView, bytes: Uint8Array, offset: number, market: MarketIndex, cmd: PlaceOrder): number {
  startRecord(view, offset, RecordKind.Place, kPlace.bytes, market);
  view.setFloat64(offset + kPlace.time, cmd.time, LE);
  view.setFloat64(offset + kPlace.orderId, cmd.orderId, LE);
  view.setFloat64(offset + kPlace.owner, cmd.owner, LE);
  view.setFloat64(offset + kPlace.account, cmd.account, LE);
  view.setFloat64(offset + kPlace.price, cmd.price, LE);
  view.setFloat64(offset + kPlace.quantity, cmd.quantity, LE);
  view.setFloat64(offset + kPlace.expiresAt, cmd.expiresAt, LE);
  view.setFloat64(offset + kPlace.position, cmd.position, LE);
  view.setInt32(offset + kPlace.flags, cmd.flags, LE);
  view.setInt8(offset + kPlace.side, cmd.side);
  let length = kPlace.bytes;
  if (cmd.clientId === null) {
    view.setUint8(offset + kPlace.clientIdLength, kClientIdNull);
  } else {
    const n = writeClientId(bytes, offset + kPlace.clientId, cmd.clientId);
    view.setUint8(offset + kPlace.clientIdLength, n);
    length += n;
  }
  writeHeader(view, offset, RecordKind.Place, length, market);
  return length;
}

export function encodeCancel(view: DataView, offset: number, market: MarketIndex, orderId: OrderId, owner: OwnerIndex, time: number): number {
  startRecord(view, offset, RecordKind.Cancel, kCancel.bytes, market);
  view.setFloat64(offset + kCancel.time, time, LE);
  view.setFloat64(offset + kCancel.orderId, orderId, LE);
  view.setFloat64(offset + kCancel.owner, owner, LE);
  return kCancel.bytes;
}

export function encodeCancelAll(view: DataView, offset: number, market: MarketIndex, owner: OwnerIndex, time: number, reason: number): number {
  startRecord(view, offset, RecordKind.CancelAll, kCancelAll.bytes, market);
  view.setFloat64(offset + kCancelAll.time, time, LE);
  view.setFloat64(offset + kCancelAll.owner, owner, LE);
  view.setInt32(offset + kCancelAll.reason, reason, LE);
  return kCancelAll.bytes;
}

export function encodeExpire(view: DataView, offset: number, market: MarketIndex, time: number): number {
  startRecord(view, offset, RecordKind.Expire, kExpire.bytes, market);
  view.setFloat64(offset + kExpire.time, time, LE);
  return kExpire.bytes;
}

const placeScratch: PlaceOrder = {
  orderId: NO_ORDER,
  owner: NO_OWNER,
  account: NO_ACCOUNT,
  side: 1,
  price: 0,
  quantity: 0,
  flags: 0,
  expiresAt: 0,
  clientId: null,
  position: 0,
  time: 0,
};

/**
 * Replays the command record at `offset` into `handler`; returns the record's kind.
 * Throws on a kind that is not a command (a broken invariant: rings carry what they should).
 */
export function decodeCommand(view: DataView, bytes: Uint8Array, offset: number, handler: CommandHandler): number {
  const kind = recordKind(view, offset);
  switch (kind) {
    case RecordKind.Place: {
      const cmd = placeScratch;
      cmd.time = view.getFloat64(offset + kPlace.time, LE);
      cmd.orderId = (view.getFloat64(offset + kPlace.orderId, LE) as OrderId);
      cmd.owner = (view.getFloat64(offset + kPlace.owner, LE) as OwnerIndex);
      cmd.account = (view.getFloat64(offset + kPlace.account, LE) as AccountIndex);
      cmd.price = view.getFloat64(offset + kPlace.price, LE);
      cmd.quantity = view.getFloat64(offset + kPlace.quantity, LE);
      cmd.expiresAt = view.getFloat64(offset + kPlace.expiresAt, LE);
      cmd.position = view.getFloat64(offset + kPlace.position, LE);
      cmd.flags = view.getInt32(offset + kPlace.flags, LE);
      cmd.side = view.getInt8(offset + kPlace.side) as Side;
      const n = view.getUint8(offset + kPlace.clientIdLength);
      cmd.clientId = n === kClientIdNull ? null : readClientId(bytes, offset + kPlace.clientId, n);
      handler.place(cmd);
      return kind;
    }
    case RecordKind.Cancel:
      handler.cancel((view.getFloat64(offset + kCancel.orderId, LE) as OrderId), (view.getFloat64(offset + kCancel.owner, LE) as OwnerIndex), view.getFloat64(offset + kCancel.time, LE));
      return kind;
    case RecordKind.CancelAll:
      handler.cancelAll((view.getFloat64(offset + kCancelAll.owner, LE) as OwnerIndex), view.getFloat64(offset + kCancelAll.time, LE), view.getInt32(offset + kCancelAll.reason, LE));
      return kind;
    case RecordKind.Expire:
      handler.expire(view.getFloat64(offset + kExpire.time, LE));
      return kind;
    default:
      throw new Error(`codec: record kind ${kind} at offset ${offset} is not a command`);
  }
}

// ── Sinks ───────────────────────────────────────────────────────────────────────────────────

/**
 * Where `BookEventWriter` puts records: `reserve()` returns an offset with room for
 * `kMaxRecordBytes` in `view`/`bytes` (read them after reserving: a growing sink replaces
 * them), `commit()` keeps the record written there. A `Ring` adapts with `ringSink`.
 */
export interface RecordSink {
  readonly view: DataView;
  readonly bytes: Uint8Array;
  reserve(): number;
  commit(length: number): void;
}

/** A growable buffer of back-to-back records: an event batch, a journal payload, a test tape. */
export class RecordBuffer implements RecordSink {
  view: DataView;
  bytes: Uint8Array;
  /** Bytes used. */
  length = 0;
  /** Records written. */
  count = 0;

  constructor(initialBytes = 4096) {
    this.bytes = new Uint8Array(Math.max(initialBytes, kMaxRecordBytes));
    this.view = new DataView(this.bytes.buffer);
  }

  reserve(): number {
    if (this.length + kMaxRecordBytes > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + kMaxRecordBytes));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
      this.view = new DataView(grown.buffer);
    }
    return this.length;
  }

  commit(length: number): void {
    this.length += length;
    this.count++;
  }

  /** Empties the buffer, keeping its memory. */
  reset(): void {
    this.length = 0;
    this.count = 0;
  }

  /** The records written so far (a view, valid until the next write or reset). */
  contents(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/** Minimal view of a ring's producer side, so codec does not depend on ring. */
interface RingProducer {
  readonly view: DataView;
  readonly bytes: Uint8Array;
  claimWait(timeoutMs?: number): number;
  commit(): void;
}

/**
 * A sink over a ring's producer side, for a worker that cannot refuse events: a full ring
 * blocks until the consumer frees a slot (`claimWait`). The caller publishes (`ring.publish()`)
 * once per command, so a batch of events costs one release. Throws if the ring is closed.
 */
export function ringSink(ring: RingProducer): RecordSink {
  return {
    view: ring.view,
    bytes: ring.bytes,
    reserve() {
      const offset = ring.claimWait();
      if (offset < 0) throw new Error('codec: ring closed while writing events');
      return offset;
    },
    commit() {
      ring.commit();
    },
  };
}

/** Writes the end-of-command marker: the book's return value for the command just handled. */
export function writeDone(sink: RecordSink, market: MarketIndex, code: number): void {
  const offset = sink.reserve();
  startRecord(sink.view, offset, RecordKind.Done, kDone.bytes, market);
  sink.view.setFloat64(offset + kDone.code, code, LE);
  sink.commit(kDone.bytes);
}

/** The result code of a `Done` record. */
export function doneCode(view: DataView, offset: number): number {
  return view.getFloat64(offset + kDone.code, LE);
}

// ── Events ──────────────────────────────────────────────────────────────────────────────────

/** A `BookListener` that writes each event as one record into a sink. */
export class BookEventWriter implements BookListener {
  constructor(
    private readonly sink: RecordSink,
    /** Market index written into every record header. */
    public market: MarketIndex,
  ) {}

  private orderEvent(kind: number, seq: number, orderId: OrderId, owner: OwnerIndex, side: Side, price: number, quantity: number, time: number): void {
    const offset = this.sink.reserve();
    const view = this.sink.view;
    startRecord(view, offset, kind, kOrderEvent.bytes, this.market);
    view.setFloat64(offset + kOrderEvent.seq, seq, LE);
    view.setFloat64(offset + kOrderEvent.time, time, LE);
    view.setFloat64(offset + kOrderEvent.orderId, orderId, LE);
    view.setFloat64(offset + kOrderEvent.owner, owner, LE);
    view.setFloat64(offset + kOrderEvent.price, price, LE);
    view.setFloat64(offset + kOrderEvent.quantity, quantity, LE);
    view.setInt32(offset + kOrderEvent.side, side, LE);
    this.sink.commit(kOrderEvent.bytes);
  }

  private orderEnd(kind: number, seq: number, orderId: OrderId, owner: OwnerIndex, remaining: number, reason: number, time: number): void {
    const offset = this.sink.reserve();
    const view = this.sink.view;
    startRecord(view, offset, kind, kOrderEnd.bytes, this.market);
    view.setFloat64(offset + kOrderEnd.seq, seq, LE);
    view.setFloat64(offset + kOrderEnd.time, time, LE);
    view.setFloat64(offset + kOrderEnd.orderId, orderId, LE);
    view.setFloat64(offset + kOrderEnd.owner, owner, LE);
    view.setFloat64(offset + kOrderEnd.remaining, remaining, LE);
    view.setInt32(offset + kOrderEnd.reason, reason, LE);
    this.sink.commit(kOrderEnd.bytes);
  }

  onAccepted(seq: number, orderId: OrderId, owner: OwnerIndex, side: Side, price: number, quantity: number, time: number): void {
    this.orderEvent(RecordKind.Accepted, seq, orderId, owner, side, price, quantity, time);
  }

  onRested(seq: number, orderId: OrderId, owner: OwnerIndex, side: Side, price: number, remaining: number, time: number): void {
    this.orderEvent(RecordKind.Rested, seq, orderId, owner, side, price, remaining, time);
  }

  onFill(
    seq: number,
    makerOrderId: OrderId,
    takerOrderId: OrderId,
    makerOwner: OwnerIndex,
    takerOwner: OwnerIndex,
    takerSide: Side,
    price: number,
    quantity: number,
    makerRemaining: number,
    takerRemaining: number,
    time: number,
  ): void {
    const offset = this.sink.reserve();
    const view = this.sink.view;
    startRecord(view, offset, RecordKind.Fill, kFill.bytes, this.market);
    view.setFloat64(offset + kFill.seq, seq, LE);
    view.setFloat64(offset + kFill.time, time, LE);
    view.setFloat64(offset + kFill.makerOrderId, makerOrderId, LE);
    view.setFloat64(offset + kFill.takerOrderId, takerOrderId, LE);
    view.setFloat64(offset + kFill.makerOwner, makerOwner, LE);
    view.setFloat64(offset + kFill.takerOwner, takerOwner, LE);
    view.setFloat64(offset + kFill.price, price, LE);
    view.setFloat64(offset + kFill.quantity, quantity, LE);
    view.setFloat64(offset + kFill.makerRemaining, makerRemaining, LE);
    view.setFloat64(offset + kFill.takerRemaining, takerRemaining, LE);
    view.setInt32(offset + kFill.takerSide, takerSide, LE);
    this.sink.commit(kFill.bytes);
  }

  onCancelled(seq: number, orderId: OrderId, owner: OwnerIndex, remaining: number, reason: number, time: number): void {
    this.orderEnd(RecordKind.Cancelled, seq, orderId, owner, remaining, reason, time);
  }

  onExpired(seq: number, orderId: OrderId, owner: OwnerIndex, remaining: number, reason: number, time: number): void {
    this.orderEnd(RecordKind.Expired, seq, orderId, owner, remaining, reason, time);
  }

  onRejected(seq: number, orderId: OrderId, owner: OwnerIndex, code: number, time: number): void {
    const offset = this.sink.reserve();
    const view = this.sink.view;
    startRecord(view, offset, RecordKind.Rejected, kRejected.bytes, this.market);
    view.setFloat64(offset + kRejected.seq, seq, LE);
    view.setFloat64(offset + kRejected.time, time, LE);
    view.setFloat64(offset + kRejected.orderId, orderId, LE);
    view.setFloat64(offset + kRejected.owner, owner, LE);
    view.setInt32(offset + kRejected.code, code, LE);
    this.sink.commit(kRejected.bytes);
  }

  onLevel(seq: number, side: Side, price: number, quantity: number, time: number): void {
    const offset = this.sink.reserve();
    const view = this.sink.view;
    startRecord(view, offset, RecordKind.Level, kLevel.bytes, this.market);
    view.setFloat64(offset + kLevel.seq, seq, LE);
    view.setFloat64(offset + kLevel.time, time, LE);
    view.setFloat64(offset + kLevel.price, price, LE);
    view.setFloat64(offset + kLevel.quantity, quantity, LE);
    view.setInt32(offset + kLevel.side, side, LE);
    this.sink.commit(kLevel.bytes);
  }
}

/**
 * Replays the event record at `offset` into `listener`; returns the record's kind.
 * Throws on a kind that is not a book event.
 */
export function decodeEvent(view: DataView, offset: number, listener: BookListener): number {
  const kind = recordKind(view, offset);
  switch (kind) {
    case RecordKind.Accepted:
    case RecordKind.Rested: {
      const seq = view.getFloat64(offset + kOrderEvent.seq, LE);
      const orderId = (view.getFloat64(offset + kOrderEvent.orderId, LE) as OrderId);
      const owner = (view.getFloat64(offset + kOrderEvent.owner, LE) as OwnerIndex);
      const side = view.getInt32(offset + kOrderEvent.side, LE) as Side;
      const price = view.getFloat64(offset + kOrderEvent.price, LE);
      const quantity = view.getFloat64(offset + kOrderEvent.quantity, LE);
      const time = view.getFloat64(offset + kOrderEvent.time, LE);
      if (kind === RecordKind.Accepted) listener.onAccepted(seq, orderId, owner, side, price, quantity, time);
      else listener.onRested(seq, orderId, owner, side, price, quantity, time);
      return kind;
    }
    case RecordKind.Fill:
      listener.onFill(
        view.getFloat64(offset + kFill.seq, LE),
        (view.getFloat64(offset + kFill.makerOrderId, LE) as OrderId),
        (view.getFloat64(offset + kFill.takerOrderId, LE) as OrderId),
        (view.getFloat64(offset + kFill.makerOwner, LE) as OwnerIndex),
        (view.getFloat64(offset + kFill.takerOwner, LE) as OwnerIndex),
        view.getInt32(offset + kFill.takerSide, LE) as Side,
        view.getFloat64(offset + kFill.price, LE),
        view.getFloat64(offset + kFill.quantity, LE),
        view.getFloat64(offset + kFill.makerRemaining, LE),
        view.getFloat64(offset + kFill.takerRemaining, LE),
        view.getFloat64(offset + kFill.time, LE),
      );
      return kind;
    case RecordKind.Cancelled:
    case RecordKind.Expired: {
      const seq = view.getFloat64(offset + kOrderEnd.seq, LE);
      const orderId = (view.getFloat64(offset + kOrderEnd.orderId, LE) as OrderId);
      const owner = (view.getFloat64(offset + kOrderEnd.owner, LE) as OwnerIndex);
      const remaining = view.getFloat64(offset + kOrderEnd.remaining, LE);
      const reason = view.getInt32(offset + kOrderEnd.reason, LE);
      const time = view.getFloat64(offset + kOrderEnd.time, LE);
      if (kind === RecordKind.Cancelled) listener.onCancelled(seq, orderId, owner, remaining, reason, time);
      else listener.onExpired(seq, orderId, owner, remaining, reason, time);
      return kind;
    }
    case RecordKind.Rejected:
      listener.onRejected(
        view.getFloat64(offset + kRejected.seq, LE),
        (view.getFloat64(offset + kRejected.orderId, LE) as OrderId),
        (view.getFloat64(offset + kRejected.owner, LE) as OwnerIndex),
        view.getInt32(offset + kRejected.code, LE),
        view.getFloat64(offset + kRejected.time, LE),
      );
      return kind;
    case RecordKind.Level:
      listener.onLevel(
        view.getFloat64(offset + kLevel.seq, LE),
        view.getInt32(offset + kLevel.side, LE) as Side,
        view.getFloat64(offset + kLevel.price, LE),
        view.getFloat64(offset + kLevel.quantity, LE),
        view.getFloat64(offset + kLevel.time, LE),
      );
      return kind;
    default:
      throw new Error(`codec: record kind ${kind} at offset ${offset} is not a book event`);
  }
}

