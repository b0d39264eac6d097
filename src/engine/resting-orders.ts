/**
 * @module engine/resting-orders
 *
 * The fast book's resting state: the order slots (`engine/order-slab`) linked into their
 * price level and owner, and every index over them. Putting an order on the book and taking
 * it off keep all of these in step; `validateInternalState` checks that they are.
 *
 * Per slot there are two intrusive doubly linked lists:
 *  - the FIFO of its price level (`prevInLevel`/`nextInLevel`, head and tail in
 *    `PriceLevels`): a removal unlinks in O(1), never walking the level;
 *  - its owner's orders (`prevOfOwner`/`nextOfOwner`, head in `ownerHead`), for cancelAll and
 *    ordersOf without scanning the book.
 * Indexes: `slotById` (orderId → slot) and `ownerHead` (owner → first slot), both
 * `SlotIndex` typed-array hash tables that do not allocate under churn; `clientIds`
 * (account → clientId → slot, a Map touched only for orders that carry a clientId);
 * `expiry` (min-heap of (expiresAt, orderId), lazy deletion, rebuilt when stale entries
 * outnumber live ones); `reduceOnly` (resting reduce-only lots per owner).
 *
 * Complexity: rest O(1) at an existing level, O(log L + d) to open a level d places from the
 * best (L levels on that side); remove O(1) plus O(log L + d) when the caller closes the
 * emptied level. Emitting events and closing levels is the caller's (`engine/fast-book`).
 * May import: engine/. Nothing outside the engine.
 */
import { ExpiryHeap } from './expiry-heap.ts';
import type { RestingFields } from './order-rules.ts';
import { INITIAL_SLOTS, OrderSlab } from './order-slab.ts';
import { NO_LEVEL, NO_SLOT, PriceLevels } from './price-levels.ts';
import { ReduceOnlyPositions } from './reduce-only-positions.ts';
import { SlotIndex } from './slot-index.ts';
import { OrderFlag } from './types.ts';
import type { AccountIndex, OrderId, OwnerIndex, Side } from './types.ts';

/** Stale heap entries tolerated beyond the live expiring orders before the heap is rebuilt. */
const EXPIRY_SLACK = 1024;

export class RestingOrders extends OrderSlab {
  protected live = 0;
  protected readonly bids = new PriceLevels(1);
  protected readonly asks = new PriceLevels(-1);
  protected readonly slotById = new SlotIndex(INITIAL_SLOTS);
  protected readonly ownerHead = new SlotIndex(256);
  protected readonly clientIds = new Map<number, Map<string, number>>();
  protected readonly expiry = new ExpiryHeap();
  /** Live orders with an expiresAt (each has at least one heap entry). */
  private expiring = 0;
  /** Positions as this book knows them, and its resting reduce-only lots per owner. */
  protected readonly reduceOnly = new ReduceOnlyPositions();

  /** Puts an order on the book: slot, level FIFO tail, and every index. Returns the slot. */
  protected rest(
    orderId: OrderId, owner: OwnerIndex, account: AccountIndex, side: Side, price: number, quantity: number,
    remaining: number, flags: number, expiresAt: number, clientId: string | null, time: number,
  ): number {
    const slot = this.takeSlot();
    this.orderIdAt[slot] = orderId;
    this.ownerAt[slot] = owner;
    this.accountAt[slot] = account;
    this.sideAt[slot] = side;
    this.priceAt[slot] = price;
    this.quantityAt[slot] = quantity;
    this.remainingAt[slot] = remaining;
    this.flagsAt[slot] = flags;
    this.expiresAtAt[slot] = expiresAt;
    this.createdAtAt[slot] = time;
    this.updatedAtAt[slot] = time;
    this.clientIdAt[slot] = clientId;

    const levels = side === 1 ? this.bids : this.asks;
    let level = levels.find(price);
    if (level === NO_LEVEL) level = levels.open(price);
    const tail = levels.tail[level];
    this.levelAt[slot] = level;
    this.prevInLevel[slot] = tail;
    this.nextInLevel[slot] = NO_SLOT;
    if (tail === NO_SLOT) levels.head[level] = slot;
    else this.nextInLevel[tail] = slot;
    levels.tail[level] = slot;
    levels.total[level] += remaining;

    const ownerFirst = this.ownerHead.get(owner);
    this.prevOfOwner[slot] = NO_SLOT;
    this.nextOfOwner[slot] = ownerFirst;
    if (ownerFirst !== NO_SLOT) this.prevOfOwner[ownerFirst] = slot;
    this.ownerHead.set(owner, slot);

    this.slotById.set(orderId, slot);
    if (clientId !== null) {
      let byClientId = this.clientIds.get(account);
      if (byClientId === undefined) this.clientIds.set(account, (byClientId = new Map()));
      byClientId.set(clientId, slot);
    }
    if (expiresAt > 0) {
      this.expiring++;
      if (this.expiry.size >= 2 * this.expiring + EXPIRY_SLACK) this.rebuildExpiry();
      else this.expiry.push(expiresAt, orderId);
    }
    this.live++;
    return slot;
  }

  /**
   * Takes a slot off its level FIFO (subtracting its remaining lots) and out of every index.
   * The level stays open even when emptied: the caller reports it, then closes it.
   */
  protected removeSlot(slot: number, levels: PriceLevels, level: number): void {
    const prev = this.prevInLevel[slot];
    const next = this.nextInLevel[slot];
    if (prev === NO_SLOT) levels.head[level] = next;
    else this.nextInLevel[prev] = next;
    if (next === NO_SLOT) levels.tail[level] = prev;
    else this.prevInLevel[next] = prev;
    levels.total[level] -= this.remainingAt[slot];

    const owner = this.ownerAt[slot] as OwnerIndex;
    if ((this.flagsAt[slot] & OrderFlag.ReduceOnly) !== 0) this.reduceOnly.left(owner, this.sideAt[slot] as Side, this.remainingAt[slot]);
    const ownerPrev = this.prevOfOwner[slot];
    const ownerNext = this.nextOfOwner[slot];
    if (ownerPrev !== NO_SLOT) this.nextOfOwner[ownerPrev] = ownerNext;
    else if (ownerNext === NO_SLOT) this.ownerHead.delete(owner);
    else this.ownerHead.set(owner, ownerNext);
    if (ownerNext !== NO_SLOT) this.prevOfOwner[ownerNext] = ownerPrev;

    this.slotById.delete((this.orderIdAt[slot] as OrderId));
    const clientId = this.clientIdAt[slot];
    if (clientId !== null) {
      const account = this.accountAt[slot];
      const byClientId = this.clientIds.get(account) as Map<string, number>;
      byClientId.delete(clientId);
      if (byClientId.size === 0) this.clientIds.delete(account);
      this.clientIdAt[slot] = null;
    }
    if (this.expiresAtAt[slot] > 0) this.expiring--;
    this.levelAt[slot] = NO_LEVEL;
    this.releaseSlot(slot);
    this.live--;
  }

  /** Drops stale entries: the heap becomes exactly the live expiring orders. */
  private rebuildExpiry(): void {
    this.expiry.clear();
    this.slotById.forEach((orderId, slot) => {
      if (this.expiresAtAt[slot] > 0) this.expiry.push(this.expiresAtAt[slot], orderId);
    });
  }

  /** Bids best first, then asks best first, each level in FIFO order. */
  protected forEachInPriorityOrder(visit: (slot: number) => void): void {
    for (const levels of [this.bids, this.asks]) {
      for (let rank = 0; rank < levels.count; rank++) {
        for (let slot = levels.head[levels.levelAt(rank)]; slot !== NO_SLOT; slot = this.nextInLevel[slot]) visit(slot);
      }
    }
  }

  validateInternalState(): void {
    let seen = 0;
    for (const levels of [this.bids, this.asks]) {
      levels.validate();
      for (let rank = 0; rank < levels.count; rank++) {
        const level = levels.levelAt(rank);
        let total = 0;
        let prev = NO_SLOT;
        for (let slot = levels.head[level]; slot !== NO_SLOT; slot = this.nextInLevel[slot]) {
          const id = (this.orderIdAt[slot] as OrderId);
          if (this.prevInLevel[slot] !== prev) throw new Error(`order ${id}: level FIFO back link broken`);
          if (this.levelAt[slot] !== level || this.sideAt[slot] !== levels.side || this.priceAt[slot] !== levels.price[level]) {
            throw new Error(`order ${id}: filed under the wrong level`);
          }
          const remaining = this.remainingAt[slot];
          if (!(Number.isSafeInteger(remaining) && remaining > 0)) throw new Error(`order ${id}: remaining ${remaining} is not a positive integer`);
          if (remaining > this.quantityAt[slot]) throw new Error(`order ${id}: remaining ${remaining} exceeds quantity ${this.quantityAt[slot]}`);
          if (this.slotById.get(id) !== slot) throw new Error(`order ${id}: id index points elsewhere`);
          const clientId = this.clientIdAt[slot];
          if (clientId !== null && this.clientIds.get(this.accountAt[slot])?.get(clientId) !== slot) {
            throw new Error(`order ${id}: clientId index misses clientId ${clientId}`);
          }
          total += remaining;
          prev = slot;
          seen++;
        }
        if (levels.tail[level] !== prev) throw new Error(`level ${levels.price[level]}: tail is not the last order`);
        if (levels.total[level] !== total) throw new Error(`level ${levels.price[level]}: total ${levels.total[level]} differs from its orders' sum ${total}`);
      }
    }
    if (seen !== this.live || this.slotById.size !== this.live) throw new Error(`order count: ${this.live} live, ${seen} on levels, ${this.slotById.size} indexed`);
    const bid = this.bids.bestPrice();
    const ask = this.asks.bestPrice();
    if (bid !== 0 && ask !== 0 && bid >= ask) throw new Error(`book crossed at rest: best bid ${bid} >= best ask ${ask}`);

    let owned = 0;
    this.ownerHead.forEach((owner, head) => {
      let prev = NO_SLOT;
      for (let slot = head; slot !== NO_SLOT; slot = this.nextOfOwner[slot]) {
        if (this.prevOfOwner[slot] !== prev || this.ownerAt[slot] !== owner) throw new Error(`owner ${owner}: order list broken at order ${(this.orderIdAt[slot] as OrderId)}`);
        if (this.slotById.get((this.orderIdAt[slot] as OrderId)) !== slot) throw new Error(`owner ${owner}: lists order ${(this.orderIdAt[slot] as OrderId)} which is not live`);
        prev = slot;
        owned++;
      }
    });
    if (owned !== this.live) throw new Error(`owner lists hold ${owned} orders, book ${this.live}`);

    let withClientId = 0;
    for (const [account, byClientId] of this.clientIds) {
      if (byClientId.size === 0) throw new Error(`account ${account}: empty clientId index kept`);
      for (const [clientId, slot] of byClientId) {
        if (this.slotById.get((this.orderIdAt[slot] as OrderId)) !== slot || this.accountAt[slot] !== account || this.clientIdAt[slot] !== clientId) {
          throw new Error(`account ${account}: clientId ${clientId} indexes a stale order`);
        }
        withClientId++;
      }
    }
    let expiring = 0;
    this.slotById.forEach((_orderId, slot) => {
      if (this.clientIdAt[slot] !== null) withClientId--;
      if (this.expiresAtAt[slot] > 0) expiring++;
    });
    if (withClientId !== 0) throw new Error('clientId index and orders with a clientId disagree');
    const resting: RestingFields[] = [];
    this.forEachInPriorityOrder((slot) => resting.push(this.fields(slot)));
    this.reduceOnly.validate(resting, OrderFlag.ReduceOnly);
    if (expiring !== this.expiring || this.expiry.size < expiring) throw new Error(`expiry: ${expiring} expiring orders, counted ${this.expiring}, heap ${this.expiry.size}`);
  }
}
