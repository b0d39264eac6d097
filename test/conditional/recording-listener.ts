/**
 * A `ConditionalListener` that turns every output into a plain object, in order, for deepEqual.
 */
import type { OwnerIndex, PlaceOrder } from '../../src/engine/types.ts';
import type { ConditionalListener, Release } from '../../src/conditional/types.ts';

export type ConditionalEvent =
  | { type: 'release'; order: PlaceOrder; why: Release; groupId: number; time: number }
  | { type: 'armed'; orderId: number; owner: OwnerIndex; quantity: number; time: number }
  | { type: 'cancelled'; orderId: number; owner: OwnerIndex; reason: number; time: number }
  | { type: 'groupEnded'; groupId: number; owner: OwnerIndex; how: number; time: number };

export class RecordingListener implements ConditionalListener {
  events: ConditionalEvent[] = [];
  /** The trigger price of each release, in order (kept apart: most tests compare events only). */
  triggerPrices: number[] = [];

  /** The events recorded since the last call. */
  take(): ConditionalEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }

  /** The orderIds released since the last call (and forgets the rest). */
  released(): number[] {
    return this.take().flatMap((e) => (e.type === 'release' ? [e.order.orderId] : []));
  }

  onRelease(order: PlaceOrder, why: Release, groupId: number, time: number, triggerPrice: number): void {
    this.events.push({ type: 'release', order, why, groupId, time });
    this.triggerPrices.push(triggerPrice);
  }
  onArmed(orderId: number, owner: OwnerIndex, quantity: number, time: number): void {
    this.events.push({ type: 'armed', orderId, owner, quantity, time });
  }
  onCancelled(orderId: number, owner: OwnerIndex, reason: number, time: number): void {
    this.events.push({ type: 'cancelled', orderId, owner, reason, time });
  }
  onGroupEnded(groupId: number, owner: OwnerIndex, how: number, time: number): void {
    this.events.push({ type: 'groupEnded', groupId, owner, how, time });
  }
}
