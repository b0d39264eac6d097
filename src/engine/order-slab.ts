/**
 * @module engine/order-slab
 *
 * Where the fast book's resting orders live: one numbered slot per order across
 * struct-of-arrays typed arrays (price, lots, owner, times, links…), recycled through a free
 * list; the arrays double when full. The slab only stores: which slot is linked into which
 * level or owner list, and what is indexed, belongs to `engine/resting-orders`.
 *
 * Why a base class rather than a member object: the matching loop reads these arrays for
 * every order it touches, and as fields of the book itself they cost no extra load per access.
 *
 * Invariants: a slot is either on the free list or holds exactly one live order; slots are
 * never shrunk away, so a slot number stays valid for the book's lifetime.
 * Complexity: taking and releasing a slot O(1), amortised O(1) with growth.
 * May import: engine/. Nothing outside the engine.
 */
import type { RestingFields } from './order-rules.ts';
import { grownFloat64, grownInt32, grownInt8 } from './price-levels.ts';
import type { AccountIndex, OrderId, OwnerIndex, Side } from './types.ts';

export const INITIAL_SLOTS = 1024;

export class OrderSlab {
  protected orderIdAt = new Float64Array(INITIAL_SLOTS);
  protected ownerAt = new Float64Array(INITIAL_SLOTS);
  protected accountAt = new Float64Array(INITIAL_SLOTS);
  protected priceAt = new Float64Array(INITIAL_SLOTS);
  protected quantityAt = new Float64Array(INITIAL_SLOTS);
  protected remainingAt = new Float64Array(INITIAL_SLOTS);
  protected expiresAtAt = new Float64Array(INITIAL_SLOTS);
  protected createdAtAt = new Float64Array(INITIAL_SLOTS);
  protected updatedAtAt = new Float64Array(INITIAL_SLOTS);
  protected sequenceAt = new Float64Array(INITIAL_SLOTS);
  protected flagsAt = new Float64Array(INITIAL_SLOTS);
  protected sideAt = new Int8Array(INITIAL_SLOTS);
  protected levelAt = new Int32Array(INITIAL_SLOTS);
  protected prevInLevel = new Int32Array(INITIAL_SLOTS);
  protected nextInLevel = new Int32Array(INITIAL_SLOTS);
  protected prevOfOwner = new Int32Array(INITIAL_SLOTS);
  protected nextOfOwner = new Int32Array(INITIAL_SLOTS);
  protected clientIdAt: (string | null)[] = new Array<string | null>(INITIAL_SLOTS).fill(null);
  private freeSlots = new Int32Array(INITIAL_SLOTS);
  private freeSlotCount = 0;
  private usedSlots = 0;

  /** A free slot: the most recently released one, else a fresh one. */
  protected takeSlot(): number {
    return this.freeSlotCount > 0 ? this.freeSlots[--this.freeSlotCount] : this.allocateSlot();
  }

  /** Returns a slot to the free list (the caller has unlinked and unindexed it). */
  protected releaseSlot(slot: number): void {
    this.freeSlots[this.freeSlotCount++] = slot;
  }

  private allocateSlot(): number {
    if (this.usedSlots === this.orderIdAt.length) {
      const n = this.orderIdAt.length * 2;
      this.orderIdAt = grownFloat64(this.orderIdAt, n);
      this.ownerAt = grownFloat64(this.ownerAt, n);
      this.accountAt = grownFloat64(this.accountAt, n);
      this.priceAt = grownFloat64(this.priceAt, n);
      this.quantityAt = grownFloat64(this.quantityAt, n);
      this.remainingAt = grownFloat64(this.remainingAt, n);
      this.expiresAtAt = grownFloat64(this.expiresAtAt, n);
      this.createdAtAt = grownFloat64(this.createdAtAt, n);
      this.updatedAtAt = grownFloat64(this.updatedAtAt, n);
      this.sequenceAt = grownFloat64(this.sequenceAt, n);
      this.flagsAt = grownFloat64(this.flagsAt, n);
      this.sideAt = grownInt8(this.sideAt, n);
      this.levelAt = grownInt32(this.levelAt, n);
      this.prevInLevel = grownInt32(this.prevInLevel, n);
      this.nextInLevel = grownInt32(this.nextInLevel, n);
      this.prevOfOwner = grownInt32(this.prevOfOwner, n);
      this.nextOfOwner = grownInt32(this.nextOfOwner, n);
      this.freeSlots = grownInt32(this.freeSlots, n);
      for (let i = this.clientIdAt.length; i < n; i++) this.clientIdAt.push(null);
    }
    return this.usedSlots++;
  }

  /** A slot's fields as a plain object (cold path: views, snapshots, hashes). */
  protected fields(slot: number): RestingFields {
    return {
      orderId: (this.orderIdAt[slot] as OrderId),
      owner: this.ownerAt[slot] as OwnerIndex,
      account: this.accountAt[slot] as AccountIndex,
      side: this.sideAt[slot] as Side,
      price: this.priceAt[slot],
      quantity: this.quantityAt[slot],
      remaining: this.remainingAt[slot],
      flags: this.flagsAt[slot],
      expiresAt: this.expiresAtAt[slot],
      clientId: this.clientIdAt[slot],
      createdAt: this.createdAtAt[slot],
      updatedAt: this.updatedAtAt[slot],
      lastUpdateSequenceNumber: this.sequenceAt[slot],
    };
  }
}
