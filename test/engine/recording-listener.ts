/**
 * A `BookListener` that turns every event into a plain object, in order, for deepEqual.
 */
import type { BookListener, OwnerIndex, Side } from '../../src/engine/types.ts';

export type BookEvent =
  | { type: 'accepted'; seq: number; orderId: number; owner: OwnerIndex; side: Side; price: number; quantity: number; time: number }
  | { type: 'rested'; seq: number; orderId: number; owner: OwnerIndex; side: Side; price: number; remaining: number; time: number }
  | {
      type: 'fill'; seq: number; maker: number; taker: number; makerOwner: OwnerIndex; takerOwner: OwnerIndex; takerSide: Side;
      price: number; quantity: number; makerRemaining: number; takerRemaining: number; time: number;
    }
  | { type: 'cancelled'; seq: number; orderId: number; owner: OwnerIndex; remaining: number; reason: number; time: number }
  | { type: 'expired'; seq: number; orderId: number; owner: OwnerIndex; remaining: number; reason: number; time: number }
  | { type: 'rejected'; seq: number; orderId: number; owner: OwnerIndex; code: number; time: number }
  | { type: 'level'; seq: number; side: Side; price: number; quantity: number; time: number };

export class RecordingListener implements BookListener {
  events: BookEvent[] = [];

  /** The events recorded since the last call. */
  take(): BookEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }

  onAccepted(seq: number, orderId: number, owner: OwnerIndex, side: Side, price: number, quantity: number, time: number): void {
    this.events.push({ type: 'accepted', seq, orderId, owner, side, price, quantity, time });
  }
  onRested(seq: number, orderId: number, owner: OwnerIndex, side: Side, price: number, remaining: number, time: number): void {
    this.events.push({ type: 'rested', seq, orderId, owner, side, price, remaining, time });
  }
  onFill(
    seq: number, maker: number, taker: number, makerOwner: OwnerIndex, takerOwner: OwnerIndex, takerSide: Side,
    price: number, quantity: number, makerRemaining: number, takerRemaining: number, time: number,
  ): void {
    this.events.push({ type: 'fill', seq, maker, taker, makerOwner, takerOwner, takerSide, price, quantity, makerRemaining, takerRemaining, time });
  }
  onCancelled(seq: number, orderId: number, owner: OwnerIndex, remaining: number, reason: number, time: number): void {
    this.events.push({ type: 'cancelled', seq, orderId, owner, remaining, reason, time });
  }
  onExpired(seq: number, orderId: number, owner: OwnerIndex, remaining: number, reason: number, time: number): void {
    this.events.push({ type: 'expired', seq, orderId, owner, remaining, reason, time });
  }
  onRejected(seq: number, orderId: number, owner: OwnerIndex, code: number, time: number): void {
    this.events.push({ type: 'rejected', seq, orderId, owner, code, time });
  }
  onLevel(seq: number, side: Side, price: number, quantity: number, time: number): void {
    this.events.push({ type: 'level', seq, side, price, quantity, time });
  }
}
