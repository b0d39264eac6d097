/**
 * @module conditional/pair-index
 *
 * The conditional book's live TP/SL pairs (`OcoPair`s) and the two indexes its events are
 * looked up through: pairs attached to a resting parent order, by parent (its fills arm them,
 * its leaving ends or detaches them), and pairs attached to a position, by owner (a position
 * change may end them). What a pair does is the book's; this file keeps the three in step.
 *
 * Invariants: a pair is in `byParent` exactly while `parentLive`, in `byPosition` exactly when
 * `positionAttached`; the per-parent lists keep placement order, the order fills reach them.
 * Complexity: add O(1); drop O(k) for k pairs on the same parent.
 * May import: types/ids, conditional/.
 */
import type { Leg, OcoPair } from './oco-pair.ts';
import { addTo, removeFrom } from './owner-sets.ts';
import type { ConditionalSnapshot } from './types.ts';
import type { OrderId, OwnerIndex } from '../types/ids.ts';

/** The book's untriggered orders by id: each leg of a live pair must be one. */
export interface LiveLegs<L> {
  get(orderId: number): L | undefined;
}

export class PairIndex<L extends Leg> {
  private readonly pairs = new Map<number, OcoPair<L>>();
  private readonly byParent = new Map<number, OcoPair<L>[]>();
  /** Position-attached pairs by owner: checked on every position change of that owner. */
  private readonly byPosition = new Map<OwnerIndex, Set<OcoPair<L>>>();

  get(ocoGroupId: number): OcoPair<L> | undefined {
    return this.pairs.get(ocoGroupId);
  }

  has(ocoGroupId: number): boolean {
    return this.pairs.has(ocoGroupId);
  }

  /** The pairs a resting parent's fills still arm, in placement order. */
  attachedTo(parentOrderId: OrderId): readonly OcoPair<L>[] | undefined {
    return this.byParent.get(parentOrderId);
  }

  /** The owner's position-attached pairs. */
  onPositionOf(owner: OwnerIndex): ReadonlySet<OcoPair<L>> | undefined {
    return this.byPosition.get(owner);
  }

  add(pair: OcoPair<L>): void {
    this.pairs.set(pair.ocoGroupId, pair);
    if (pair.positionAttached) addTo(this.byPosition, pair.owner, pair);
    if (pair.parentLive) {
      const list = this.byParent.get(pair.parentOrderId);
      if (list === undefined) this.byParent.set(pair.parentOrderId, [pair]);
      else list.push(pair);
    }
  }

  drop(pair: OcoPair<L>): void {
    this.pairs.delete(pair.ocoGroupId);
    if (pair.positionAttached) removeFrom(this.byPosition, pair.owner, pair);
    if (pair.parentLive) {
      const list = this.byParent.get(pair.parentOrderId) as OcoPair<L>[];
      list.splice(list.indexOf(pair), 1);
      if (list.length === 0) this.byParent.delete(pair.parentOrderId);
    }
  }

  /** The parent left the book: its pairs, no longer `parentLive`, in placement order. */
  detachParent(parentOrderId: OrderId): OcoPair<L>[] {
    const list = this.byParent.get(parentOrderId) as OcoPair<L>[];
    this.byParent.delete(parentOrderId);
    for (const pair of list) pair.parentLive = false;
    return list;
  }

  snapshot(): ConditionalSnapshot['pairs'] {
    return [...this.pairs.values()].sort((a, b) => a.ocoGroupId - b.ocoGroupId).map((p) => ({
      ocoGroupId: p.ocoGroupId,
      takeProfitId: p.takeProfit.orderId,
      stopLossId: p.stopLoss.orderId,
      parentOrderId: p.parentOrderId,
      parentLive: p.parentLive,
      filled: p.filled,
    }));
  }

  /** Throws an Error naming the first pair whose legs are not live or whose indexes disagree. */
  validate(legs: LiveLegs<L>): void {
    for (const pair of this.pairs.values()) {
      if (legs.get(pair.takeProfit.orderId) !== pair.takeProfit || legs.get(pair.stopLoss.orderId) !== pair.stopLoss) {
        throw new Error(`pair ${pair.ocoGroupId}: a leg is not untriggered`);
      }
      if (pair.positionAttached !== (this.byPosition.get(pair.owner)?.has(pair) === true)) throw new Error(`pair ${pair.ocoGroupId}: position index disagrees`);
      if (pair.parentLive !== (this.byParent.get(pair.parentOrderId)?.includes(pair) === true)) throw new Error(`pair ${pair.ocoGroupId}: parent index disagrees`);
    }
    for (const list of this.byParent.values()) for (const pair of list) if (this.pairs.get(pair.ocoGroupId) !== pair) throw new Error('parent index holds a dead pair');
    for (const set of this.byPosition.values()) for (const pair of set) if (this.pairs.get(pair.ocoGroupId) !== pair) throw new Error('position index holds a dead pair');
  }
}
