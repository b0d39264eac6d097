/**
 * @module conditional/oco-pair
 *
 * A TP/SL pair: one takeProfit and one stopLoss of the same owner and side, one OCO group —
 * the first to trigger cancels the other, so exactly one of them ever enters the book; any end
 * of one leg (cancel, expiry, the position closing, the parent leaving unfilled) ends both.
 * Attached to the owner's position (`parentOrderId` 0: armed at once) or to a resting parent
 * order (armed at the parent's first fill, each leg's quantity = the parent's filled lots,
 * capped at the leg's own quantity).
 * Generic in its legs so that the leg record (conditional/trigger-order) can point at its pair
 * while this file needs nothing of it: the arrow goes one way.
 * May import: types/ids.
 */
import type { OrderId, OwnerIndex } from '../types/ids.ts';

/** What a pair reads of its legs. */
export interface Leg {
  readonly orderId: OrderId;
  readonly owner: OwnerIndex;
  readonly side: 1 | -1;
}

export class OcoPair<L extends Leg> {
  constructor(
    readonly ocoGroupId: OrderId,
    readonly takeProfit: L,
    readonly stopLoss: L,
    readonly parentOrderId: OrderId,
    /** The parent still rests on the book (its fills still arm the pair). */
    public parentLive: boolean,
    /** Lots of the parent filled so far. */
    public filled: number,
  ) {}

  get owner(): OwnerIndex {
    return this.takeProfit.owner;
  }

  /** The side of both legs: −1 closes a long, +1 a short. */
  get side(): 1 | -1 {
    return this.takeProfit.side;
  }

  get positionAttached(): boolean {
    return this.parentOrderId === 0;
  }

  other(leg: L): L {
    return leg === this.takeProfit ? this.stopLoss : this.takeProfit;
  }

  /** Legs in ascending orderId: the order group-wide ends report them in. */
  legs(): [L, L] {
    return this.takeProfit.orderId < this.stopLoss.orderId ? [this.takeProfit, this.stopLoss] : [this.stopLoss, this.takeProfit];
  }
}
