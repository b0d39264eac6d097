/**
 * @module engine/reduce-only-positions
 *
 * What a book knows of its owners' positions, so that a reduce-only order never opens or flips
 * one — at placement and at every fill, against the position as it is then.
 *
 * The book cannot ask the ledger (another thread, behind by the fills on their way to it), so
 * it counts: `filled(owner)` is the net signed lots of every fill of the owner this book has
 * executed (maker and taker alike). The sequencer sends with each order
 * `PlaceOrder.position` = the ledger's position less the owner's fills in this book that the
 * ledger has settled — what moved the position outside this book (auto-deleveraging). So
 *   position(owner) = filled(owner) + offset
 * is the position as of the book's own last event, fills in flight included. The offset of an
 * owner with resting reduce-only orders is kept (the newest placement's); the application cancels
 * those orders when the ledger deleverages the owner, so a kept offset is never stale.
 *
 * `resting(owner)`: Σ remaining of the owner's resting reduce-only orders, signed by their
 * side (sells negative). The books keep |resting| ≤ the lots the position can close, on the
 * closing side, after every command (docs/decisions.md, "Reduce-only orders").
 *
 * Invariants: no zero entry in any map; an offset exactly for the owners with a resting
 * reduce-only order. Maps are looked up and updated, never iterated on a path that emits events.
 * May import: engine/. Nothing outside the engine.
 */
import type { OwnerIndex, ReduceOnlySnapshot, Side } from './types.ts';

/** The lots a `side` order may close of a `position` (signed): |position| when it closes, else 0. */
export function closableLots(side: Side, position: number): number {
  return position === 0 || Math.sign(position) === side ? 0 : Math.abs(position);
}

export class ReduceOnlyPositions {
  private readonly filled = new Map<OwnerIndex, number>();
  private readonly offsets = new Map<OwnerIndex, number>();
  private readonly resting = new Map<OwnerIndex, number>();

  /** A fill of `signedLots` for `owner` (+ bought, − sold). */
  fill(owner: OwnerIndex, signedLots: number): void {
    const lots = (this.filled.get(owner) ?? 0) + signedLots;
    if (lots === 0) this.filled.delete(owner);
    else this.filled.set(owner, lots);
  }

  /** The owner's position now, given the offset the sequencer sent (or the one kept). */
  position(owner: OwnerIndex, offset: number = this.offsets.get(owner) ?? 0): number {
    return (this.filled.get(owner) ?? 0) + offset;
  }

  /** Lots a new reduce-only order of `side` may have: what the position can close less what the owner's resting reduce-only orders already close. */
  capacity(owner: OwnerIndex, side: Side, offset: number): number {
    const free = closableLots(side, this.position(owner, offset)) - Math.abs(this.resting.get(owner) ?? 0);
    return free > 0 ? free : 0;
  }

  /** A placement told a fresher offset: kept when the owner has resting reduce-only orders. True when the kept one changed. */
  told(owner: OwnerIndex, offset: number): boolean {
    if (!this.resting.has(owner) || this.offsets.get(owner) === offset) return false;
    this.offsets.set(owner, offset);
    return true;
  }

  hasResting(owner: OwnerIndex): boolean {
    return this.resting.has(owner);
  }

  /** A reduce-only order of `side` now rests with `lots`; `offset` is its placement's. */
  rested(owner: OwnerIndex, side: Side, lots: number, offset: number): void {
    this.resting.set(owner, (this.resting.get(owner) ?? 0) + side * lots);
    this.offsets.set(owner, offset);
  }

  /** `lots` of a resting reduce-only order of `side` left the book (filled, cancelled, expired). */
  left(owner: OwnerIndex, side: Side, lots: number): void {
    if (lots === 0) return;
    const rest = (this.resting.get(owner) ?? 0) - side * lots;
    if (rest !== 0) {
      this.resting.set(owner, rest);
      return;
    }
    this.resting.delete(owner);
    this.offsets.delete(owner);
  }

  /** Lots by which the owner's resting reduce-only orders exceed what the position can close (all of them once it is flat or turned). */
  excess(owner: OwnerIndex): number {
    const resting = this.resting.get(owner) ?? 0;
    if (resting === 0) return 0;
    const side = Math.sign(resting) as Side;
    const over = Math.abs(resting) - closableLots(side, this.position(owner));
    return over > 0 ? over : 0;
  }

  snapshot(): ReduceOnlySnapshot {
    const sorted = (m: Map<OwnerIndex, number>) => [...m].sort((a, b) => a[0] - b[0]);
    return { filled: sorted(this.filled), offsets: sorted(this.offsets) };
  }

  /**
   * Restores the counts. `resting` is recomputed from the book's orders. A snapshot written
   * before this view existed has no counts: the positions are then taken to be exactly what the
   * resting reduce-only orders close (they were capped at the position when placed), and the
   * sequencer's offsets follow the same gauge (ledger/ledger.ts `restore`).
   */
  restore(snap: ReduceOnlySnapshot | undefined, orders: Iterable<{ owner: OwnerIndex; side: Side; remaining: number; flags: number }>, reduceOnlyFlag: number): void {
    for (const o of orders) if ((o.flags & reduceOnlyFlag) !== 0) this.resting.set(o.owner, (this.resting.get(o.owner) ?? 0) + o.side * o.remaining);
    if (snap === undefined) {
      for (const [owner, resting] of this.resting) this.offsets.set(owner, -resting);
      return;
    }
    for (const [owner, lots] of snap.filled) this.filled.set(owner, lots);
    for (const [owner, lots] of snap.offsets) this.offsets.set(owner, lots);
  }

  /** Throws unless `resting` equals the Σ of these orders and the maps keep their invariants. */
  validate(orders: Iterable<{ owner: OwnerIndex; side: Side; remaining: number; flags: number }>, reduceOnlyFlag: number): void {
    const want = new Map<OwnerIndex, number>();
    for (const o of orders) if ((o.flags & reduceOnlyFlag) !== 0) want.set(o.owner, (want.get(o.owner) ?? 0) + o.side * o.remaining);
    if (want.size !== this.resting.size) throw new Error(`reduce-only: ${this.resting.size} owners counted with resting orders, ${want.size} on the book`);
    for (const [owner, lots] of want) {
      if (this.resting.get(owner) !== lots) throw new Error(`reduce-only: owner ${owner} rests ${lots} reduce-only lots, counted ${this.resting.get(owner)}`);
      if (!this.offsets.has(owner)) throw new Error(`reduce-only: owner ${owner} has resting reduce-only orders and no offset`);
      if (this.excess(owner) !== 0) throw new Error(`reduce-only: owner ${owner}'s resting reduce-only orders exceed the position by ${this.excess(owner)}`);
    }
    if (this.offsets.size !== this.resting.size) throw new Error('reduce-only: an offset is kept for an owner with no resting reduce-only order');
    for (const lots of this.filled.values()) if (lots === 0 || !Number.isSafeInteger(lots)) throw new Error(`reduce-only: filled count ${lots}`);
  }

  /** Feeds the counts to a state hash: owners ascending. */
  forEachCount(visit: (kind: number, owner: OwnerIndex, lots: number) => void): void {
    const snap = this.snapshot();
    for (const [owner, lots] of snap.filled) visit(1, owner, lots);
    for (const [owner, lots] of snap.offsets) visit(2, owner, lots);
  }
}
