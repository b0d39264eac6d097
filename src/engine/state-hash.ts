/**
 * @module engine/state-hash
 *
 * The canonical hash of a book, in the one recipe (numeric/state-hash, streamed): SHA-256 over the market index, the sequence, then every
 * resting order in priority order (bids best first, then asks best first, FIFO within a
 * price), each as its 12 numeric fields (float64, little endian: every value is an exact
 * integer) and its clientId (length-prefixed UTF-8, length −1 for null), then the order count,
 * then the reduce-only position counts (`engine/reduce-only-positions`: kind, owner, lots as
 * float64 triples, owners ascending; nothing when there are none).
 * Both books feed the same bytes for the same state, so their hashes agree.
 *
 * May import: engine/, numeric/state-hash (pure, no I/O).
 */
import { stateHashStream } from '../numeric/state-hash.ts';
import type { RestingFields } from './order-rules.ts';
import type { MarketIndex, OwnerIndex } from './types.ts';

const NUMERIC_FIELDS = 12;
const utf8 = new TextEncoder();

export class StateHasher {
  private readonly hash = stateHashStream();
  private readonly bytes = new Uint8Array(8 * (NUMERIC_FIELDS + 1));
  private readonly view = new DataView(this.bytes.buffer);
  private orders = 0;
  private countsStarted = false;

  constructor(marketIndex: MarketIndex, sequence: number) {
    this.view.setFloat64(0, marketIndex, true);
    this.view.setFloat64(8, sequence, true);
    this.hash.update(this.bytes.subarray(0, 16));
  }

  /** The next order in priority order. */
  add(o: RestingFields): void {
    const v = this.view;
    v.setFloat64(0, o.orderId, true);
    v.setFloat64(8, o.owner, true);
    v.setFloat64(16, o.account, true);
    v.setFloat64(24, o.side, true);
    v.setFloat64(32, o.price, true);
    v.setFloat64(40, o.quantity, true);
    v.setFloat64(48, o.remaining, true);
    v.setFloat64(56, o.flags, true);
    v.setFloat64(64, o.expiresAt, true);
    v.setFloat64(72, o.createdAt, true);
    v.setFloat64(80, o.updatedAt, true);
    v.setFloat64(88, o.lastUpdateSequenceNumber, true);
    const clientId = o.clientId === null ? null : utf8.encode(o.clientId);
    v.setFloat64(96, clientId === null ? -1 : clientId.length, true);
    this.hash.update(this.bytes);
    if (clientId !== null) this.hash.update(clientId);
    this.orders++;
  }

  /** One reduce-only count (after every order). */
  addCount(kind: number, owner: OwnerIndex, lots: number): void {
    if (!this.countsStarted) {
      this.view.setFloat64(0, this.orders, true);
      this.hash.update(this.bytes.subarray(0, 8));
      this.countsStarted = true;
    }
    this.view.setFloat64(0, kind, true);
    this.view.setFloat64(8, owner, true);
    this.view.setFloat64(16, lots, true);
    this.hash.update(this.bytes.subarray(0, 24));
  }

  /** Hex digest; the hasher is spent afterwards. */
  digest(): string {
    if (!this.countsStarted) {
      this.view.setFloat64(0, this.orders, true);
      this.hash.update(this.bytes.subarray(0, 8));
    }
    return this.hash.digest();
  }
}
