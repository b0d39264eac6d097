/**
 * @module conditional/oco-pair
 *
 * A TP/SL pair: one takeProfit and one stopLoss of the same owner and side, one OCO group —
 * the first to trigger cancels the other, so exactly one of them ever enters the book; any end
 * of one leg (cancel, expiry, the position closing, the parent leaving unfilled) ends both.
 * Attached to the owner's position (`parentOrderId` 0: armed at once) or to a resting parent
 * order (armed at the parent's first fill, each leg's quantity = the parent's filled lots,
 * capped at the leg's own quantity).
 * May import: conditional/.
 */
import type { TriggerOrder } from './trigger-order.ts';

export class OcoPair {
  constructor(
    readonly ocoGroupId: number,
    readonly takeProfit: TriggerOrder,
    readonly stopLoss: TriggerOrder,
    readonly parentOrderId: number,
    /** The parent still rests on the book (its fills still arm the pair). */
    public parentLive: boolean,
    /** Lots of the parent filled so far. */
    public filled: number,
  ) {}

  get owner(): number {
    return this.takeProfit.owner;
  }

  /** The side of both legs: −1 closes a long, +1 a short. */
  get side(): 1 | -1 {
    return this.takeProfit.side;
  }

  get positionAttached(): boolean {
    return this.parentOrderId === 0;
  }

  other(leg: TriggerOrder): TriggerOrder {
    return leg === this.takeProfit ? this.stopLoss : this.takeProfit;
  }

  /** Legs in ascending orderId: the order group-wide ends report them in. */
  legs(): [TriggerOrder, TriggerOrder] {
    return this.takeProfit.orderId < this.stopLoss.orderId ? [this.takeProfit, this.stopLoss] : [this.stopLoss, this.takeProfit];
  }
}
