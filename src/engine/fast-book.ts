/**
 * @module engine/fast-book
 *
 * The production order book. Same semantics and events as `NaiveOrderBook` (see
 * `engine/index.ts`); built so that no command allocates once the book has warmed up.
 *
 * Layout: each resting order lives in a numbered slot of struct-of-arrays typed arrays
 * (price, lots, owner, times, links…); slots and levels are recycled through free lists and
 * the arrays double when full. Per slot there are two intrusive doubly linked lists:
 *  - the FIFO of its price level (`prevInLevel`/`nextInLevel`, head and tail in
 *    `PriceLevels`): a cancel unlinks in O(1), never walking the level;
 *  - its owner's orders (`prevOfOwner`/`nextOfOwner`, head in `ownerHead`), for cancelAll and
 *    ordersOf without scanning the book.
 * Indexes: `slotById` (orderId → slot) and `ownerHead` (owner → first slot), both
 * `SlotIndex` typed-array hash tables that do not allocate under churn; `clientIds`
 * (account → clientId → slot, a Map touched only for orders that carry a clientId);
 * `expiry` (min-heap of (expiresAt, orderId), lazy deletion, rebuilt when stale entries
 * outnumber live ones).
 *
 * Complexity: place O(1) at an existing level or the top, O(log L + d) to open a level d
 * places from the best (L levels on that side); each fill, self-trade expiry and cancel O(1)
 * plus O(log L + d) when it empties a level; cancelAll O(k log k) for k orders; expiry
 * O(log n) per order; best prices O(1); depth O(levels read).
 * Determinism: the indexes are only looked up, never iterated on a path that emits events or
 * orders anything (validation iterates them to check them; the expiry rebuild refills a heap
 * whose pop order is fixed by its keys).
 * May import: engine/ only (and @noble/hashes through state-hash).
 */
import { EngineCode, Reason } from './codes.ts';
import { ExpiryHeap } from './expiry-heap.ts';
import { depthBucket, depthMultiple, orderView, shapeRejection } from './order-rules.ts';
import type { RestingFields } from './order-rules.ts';
import { NO_LEVEL, NO_SLOT, PriceLevels, grownFloat64, grownInt32, grownInt8 } from './price-levels.ts';
import { SlotIndex } from './slot-index.ts';
import { ReduceOnlyPositions, closableLots } from './reduce-only-positions.ts';
import { StateHasher } from './state-hash.ts';
import { OrderFlag } from './types.ts';
import type { BookListener, BookOptions, BookSnapshot, Level, OrderBook, OrderId, OrderView, PlaceOrder, Side } from './types.ts';
import type { AccountIndex, MarketIndex } from './types.ts';

const INITIAL_SLOTS = 1024;
/** Stale heap entries tolerated beyond the live expiring orders before the heap is rebuilt. */
const EXPIRY_SLACK = 1024;

export class FastOrderBook implements OrderBook {
  readonly marketIndex: MarketIndex;
  private seq = 0;
  private live = 0;
  private readonly listener: BookListener;
  private readonly minSizeLots: number;

  // Order slots, struct of arrays.
  private orderIdAt = new Float64Array(INITIAL_SLOTS);
  private ownerAt = new Float64Array(INITIAL_SLOTS);
  private accountAt = new Float64Array(INITIAL_SLOTS);
  private priceAt = new Float64Array(INITIAL_SLOTS);
  private quantityAt = new Float64Array(INITIAL_SLOTS);
  private remainingAt = new Float64Array(INITIAL_SLOTS);
  private expiresAtAt = new Float64Array(INITIAL_SLOTS);
  private createdAtAt = new Float64Array(INITIAL_SLOTS);
  private updatedAtAt = new Float64Array(INITIAL_SLOTS);
  private sequenceAt = new Float64Array(INITIAL_SLOTS);
  private flagsAt = new Float64Array(INITIAL_SLOTS);
  private sideAt = new Int8Array(INITIAL_SLOTS);
  private levelAt = new Int32Array(INITIAL_SLOTS);
  private prevInLevel = new Int32Array(INITIAL_SLOTS);
  private nextInLevel = new Int32Array(INITIAL_SLOTS);
  private prevOfOwner = new Int32Array(INITIAL_SLOTS);
  private nextOfOwner = new Int32Array(INITIAL_SLOTS);
  private clientIdAt: (string | null)[] = new Array<string | null>(INITIAL_SLOTS).fill(null);
  private freeSlots = new Int32Array(INITIAL_SLOTS);
  private freeSlotCount = 0;
  private usedSlots = 0;

  private readonly bids = new PriceLevels(1);
  private readonly asks = new PriceLevels(-1);
  private readonly slotById = new SlotIndex(INITIAL_SLOTS);
  private readonly ownerHead = new SlotIndex(256);
  private readonly clientIds = new Map<number, Map<string, number>>();
  private readonly expiry = new ExpiryHeap();
  /** Live orders with an expiresAt (each has at least one heap entry). */
  private expiring = 0;
  /** Reused by cancelAll to order an owner's ids. */
  private scratchIds = new Float64Array(64);
  /** Positions as this book knows them, and its resting reduce-only lots per owner. */
  private readonly reduceOnly = new ReduceOnlyPositions();
  /** Owners with resting reduce-only orders whose position moved during the current place. */
  private touched = new Float64Array(16);
  private touchedCount = 0;

  constructor(marketIndex: MarketIndex, listener: BookListener, options: BookOptions = {}) {
    this.marketIndex = marketIndex;
    this.listener = listener;
    this.minSizeLots = options.minSizeLots ?? 1;
  }

  static restore(snapshot: BookSnapshot, listener: BookListener, options: BookOptions = {}): FastOrderBook {
    const book = new FastOrderBook(snapshot.marketIndex, listener, options);
    book.seq = snapshot.sequence;
    for (const o of snapshot.orders) {
      const slot = book.rest(o.orderId, o.owner, o.account, o.side, o.price, o.quantity, o.remaining, o.flags, o.expiresAt, o.clientId, o.createdAt);
      book.updatedAtAt[slot] = o.updatedAt;
      book.sequenceAt[slot] = o.lastUpdateSequenceNumber;
    }
    book.reduceOnly.restore(snapshot.reduceOnly, snapshot.orders, OrderFlag.ReduceOnly);
    book.validateInternalState();
    return book;
  }

  get sequence(): number {
    return this.seq;
  }

  get size(): number {
    return this.live;
  }

  place(cmd: PlaceOrder): number {
    const code = this.placeAndMatch(cmd);
    this.cancelReduceOnlyExcess(cmd.time);
    return code;
  }

  private placeAndMatch(cmd: PlaceOrder): number {
    const time = cmd.time;
    if (this.expiry.topTime <= time) this.expireDue(time);
    // A reduce-only order tells the position afresh: what no longer fits it leaves first.
    if ((cmd.flags & OrderFlag.ReduceOnly) !== 0 && this.reduceOnly.told(cmd.owner, cmd.position)) {
      this.touch(cmd.owner);
      this.cancelReduceOnlyExcess(time);
    }
    const side = cmd.side;
    const price = cmd.price;
    const flags = cmd.flags;
    let quantity = cmd.quantity;
    let code = shapeRejection(cmd, this.minSizeLots);
    if (code === EngineCode.Ok) {
      if (this.slotById.has(cmd.orderId)) code = EngineCode.OrderIdExists;
      else if (cmd.clientId !== null && this.clientIds.get(cmd.account)?.has(cmd.clientId) === true) code = EngineCode.ClientIdExists;
      else if (cmd.expiresAt !== 0 && cmd.expiresAt <= time) code = EngineCode.AlreadyExpired;
      else if ((flags & OrderFlag.ReduceOnly) !== 0) {
        const capacity = this.reduceOnly.capacity(cmd.owner, side, cmd.position);
        if (capacity < quantity) quantity = capacity;
        if (quantity === 0) code = EngineCode.ReduceOnlyWouldIncrease;
      }
    }
    const makers = side === 1 ? this.asks : this.bids;
    if (code === EngineCode.Ok && (flags & OrderFlag.PostOnly) !== 0) {
      const best = makers.bestPrice();
      if (best !== 0 && (side === 1 ? best <= price : best >= price)) code = EngineCode.PostOnlyWouldTake;
    }
    if (code !== EngineCode.Ok) {
      this.listener.onRejected(++this.seq, cmd.orderId, cmd.owner, code, time);
      return code;
    }
    this.listener.onAccepted(++this.seq, cmd.orderId, cmd.owner, side, price, quantity, time);

    let remaining = quantity;
    while (remaining > 0) {
      const level = makers.bestLevel();
      if (level === NO_LEVEL) break;
      const levelPrice = makers.price[level];
      if (side === 1 ? levelPrice > price : levelPrice < price) break;
      remaining = this.takeFromLevel(makers, level, cmd, remaining);
    }

    if (remaining === 0) return EngineCode.Ok;
    if ((flags & OrderFlag.ImmediateOrCancel) !== 0) {
      this.listener.onCancelled(++this.seq, cmd.orderId, cmd.owner, remaining, Reason.ImmediateOrCancel, time);
      return EngineCode.Ok;
    }
    const slot = this.rest(cmd.orderId, cmd.owner, cmd.account, side, price, quantity, remaining, flags, cmd.expiresAt, cmd.clientId, time);
    if ((flags & OrderFlag.ReduceOnly) !== 0) this.reduceOnly.rested(cmd.owner, side, remaining, cmd.position);
    this.sequenceAt[slot] = ++this.seq;
    this.listener.onRested(this.seq, cmd.orderId, cmd.owner, side, price, remaining, time);
    const levels = side === 1 ? this.bids : this.asks;
    this.listener.onLevel(++this.seq, side, price, levels.total[this.levelAt[slot]], time);
    return EngineCode.Ok;
  }

  cancel(orderId: OrderId, owner: number, time: number): number {
    if (this.expiry.topTime <= time) this.expireDue(time);
    const slot = this.slotById.get(orderId);
    if (slot === NO_SLOT) return EngineCode.OrderNotFound;
    if (this.ownerAt[slot] !== owner) return EngineCode.NotOwner;
    this.cancelSlot(slot, Reason.Cancelled, time);
    return EngineCode.Ok;
  }

  cancelByClientId(account: AccountIndex, clientId: string, time: number): number {
    if (this.expiry.topTime <= time) this.expireDue(time);
    const slot = this.clientIds.get(account)?.get(clientId);
    if (slot === undefined) return EngineCode.OrderNotFound;
    this.cancelSlot(slot, Reason.Cancelled, time);
    return EngineCode.Ok;
  }

  cancelAll(owner: number, time: number, reason: number): number {
    if (this.expiry.topTime <= time) this.expireDue(time);
    let n = 0;
    for (let slot = this.ownerHead.get(owner); slot !== NO_SLOT; slot = this.nextOfOwner[slot]) {
      if (n === this.scratchIds.length) this.scratchIds = grownFloat64(this.scratchIds, n * 2);
      this.scratchIds[n++] = (this.orderIdAt[slot] as OrderId);
    }
    const ids = this.scratchIds.subarray(0, n).sort();
    for (let i = 0; i < n; i++) this.cancelSlot(this.slotById.get(ids[i]), reason, time);
    return n;
  }

  expire(time: number): number {
    return this.expiry.topTime <= time ? this.expireDue(time) : 0;
  }

  bestBid(): number {
    return this.bids.bestPrice();
  }

  bestAsk(): number {
    return this.asks.bestPrice();
  }

  depth(side: Side, levels: number, tickMultiple: number): Level[] {
    const m = depthMultiple(tickMultiple);
    const ladder = side === 1 ? this.bids : this.asks;
    const out: Level[] = [];
    for (let rank = 0; rank < ladder.count; rank++) {
      const level = ladder.levelAt(rank);
      const bucket = depthBucket(side, ladder.price[level], m);
      const last = out.length - 1;
      if (last >= 0 && out[last].price === bucket) {
        out[last].quantity += ladder.total[level];
      } else {
        if (out.length >= levels) break;
        out.push({ price: bucket, quantity: ladder.total[level] });
      }
    }
    return out;
  }

  order(orderId: OrderId): OrderView | undefined {
    const slot = this.slotById.get(orderId);
    return slot === NO_SLOT ? undefined : orderView(this.fields(slot));
  }

  orderByClientId(account: AccountIndex, clientId: string): OrderView | undefined {
    const slot = this.clientIds.get(account)?.get(clientId);
    return slot === undefined ? undefined : orderView(this.fields(slot));
  }

  ordersOf(owner: number): OrderView[] {
    const out: OrderView[] = [];
    for (let slot = this.ownerHead.get(owner); slot !== NO_SLOT; slot = this.nextOfOwner[slot]) {
      out.push(orderView(this.fields(slot)));
    }
    return out.sort((a, b) => a.orderId - b.orderId);
  }

  stateHash(): string {
    const hasher = new StateHasher(this.marketIndex, this.seq);
    this.forEachInPriorityOrder((slot) => hasher.add(this.fields(slot)));
    this.reduceOnly.forEachCount((kind, owner, lots) => hasher.addCount(kind, owner, lots));
    return hasher.digest();
  }

  snapshot(): BookSnapshot {
    const orders: OrderView[] = [];
    this.forEachInPriorityOrder((slot) => orders.push(orderView(this.fields(slot))));
    return { marketIndex: this.marketIndex, sequence: this.seq, orders, reduceOnly: this.reduceOnly.snapshot() };
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

  /**
   * Matches the taker against one crossing level, FIFO, until the level or the taker is
   * done, then reports the level once. Returns the taker's remaining lots.
   */
  private takeFromLevel(makers: PriceLevels, level: number, cmd: PlaceOrder, remaining: number): number {
    const time = cmd.time;
    const price = makers.price[level];
    const listener = this.listener;
    let slot = makers.head[level];
    while (slot !== NO_SLOT && remaining > 0) {
      const next = this.nextInLevel[slot];
      if (this.accountAt[slot] === cmd.account) {
        const left = this.remainingAt[slot];
        const orderId = (this.orderIdAt[slot] as OrderId);
        const owner = this.ownerAt[slot];
        this.removeSlot(slot, makers, level);
        listener.onExpired(++this.seq, orderId, owner, left, Reason.SelfTrade, time);
      } else {
        const makerLeft = this.remainingAt[slot];
        const makerOwner = this.ownerAt[slot];
        const makerReduceOnly = (this.flagsAt[slot] & OrderFlag.ReduceOnly) !== 0;
        let traded = makerLeft < remaining ? makerLeft : remaining;
        let capped = false;
        if (makerReduceOnly) {
          // Re-capped against the position as it is now: other fills may have shrunk or turned it.
          const closable = closableLots(-cmd.side as Side, this.reduceOnly.position(makerOwner));
          if (closable === 0) {
            const orderId = (this.orderIdAt[slot] as OrderId);
            this.removeSlot(slot, makers, level);
            listener.onCancelled(++this.seq, orderId, makerOwner, makerLeft, Reason.ReduceOnlyCancelled, time);
            slot = next;
            continue;
          }
          if (closable < traded) {
            traded = closable;
            capped = true;
          }
        }
        remaining -= traded;
        this.remainingAt[slot] = makerLeft - traded;
        makers.total[level] -= traded;
        this.updatedAtAt[slot] = time;
        this.sequenceAt[slot] = ++this.seq;
        if (makerReduceOnly) this.reduceOnly.left(makerOwner, -cmd.side as Side, traded);
        this.reduceOnly.fill(makerOwner, -cmd.side * traded);
        this.reduceOnly.fill(cmd.owner, cmd.side * traded);
        this.touch(makerOwner);
        this.touch(cmd.owner);
        listener.onFill(this.seq, (this.orderIdAt[slot] as OrderId), cmd.orderId, makerOwner, cmd.owner, cmd.side, price, traded, makerLeft - traded, remaining, time);
        if (makerLeft === traded) this.removeSlot(slot, makers, level);
        else if (capped) {
          // It closed the position: the rest would open one.
          const orderId = (this.orderIdAt[slot] as OrderId);
          const left = this.remainingAt[slot];
          this.removeSlot(slot, makers, level);
          listener.onCancelled(++this.seq, orderId, makerOwner, left, Reason.ReduceOnlyCancelled, time);
        }
      }
      slot = next;
    }
    const total = makers.total[level];
    if (makers.head[level] === NO_SLOT) makers.close(level);
    listener.onLevel(++this.seq, makers.side, price, total, time);
    return remaining;
  }

  /** Notes an owner whose position moved, if it has resting reduce-only orders (checked after the command). */
  private touch(owner: number): void {
    if (!this.reduceOnly.hasResting(owner)) return;
    for (let i = 0; i < this.touchedCount; i++) if (this.touched[i] === owner) return;
    if (this.touchedCount === this.touched.length) this.touched = grownFloat64(this.touched, this.touchedCount * 2);
    this.touched[this.touchedCount++] = owner;
  }

  /**
   * After a placement: the touched owners' resting reduce-only orders that no longer fit the
   * position are cancelled (reason ReduceOnlyCancelled), newest (highest orderId) first, whole,
   * until the rest close no more than the position — owners in the order their position moved.
   */
  private cancelReduceOnlyExcess(time: number): void {
    for (let i = 0; i < this.touchedCount; i++) {
      const owner = this.touched[i];
      while (this.reduceOnly.excess(owner) > 0) {
        let newest = NO_SLOT;
        for (let slot = this.ownerHead.get(owner); slot !== NO_SLOT; slot = this.nextOfOwner[slot]) {
          if ((this.flagsAt[slot] & OrderFlag.ReduceOnly) !== 0 && (newest === NO_SLOT || (this.orderIdAt[slot] as OrderId) > this.orderIdAt[newest])) newest = slot;
        }
        this.cancelSlot(newest, Reason.ReduceOnlyCancelled, time);
      }
    }
    this.touchedCount = 0;
  }

  /** Cancels a live order: event, level update, and the level report. */
  private cancelSlot(slot: number, reason: number, time: number): void {
    const side = this.sideAt[slot] as Side;
    const levels = side === 1 ? this.bids : this.asks;
    const level = this.levelAt[slot];
    const price = this.priceAt[slot];
    const left = this.remainingAt[slot];
    const orderId = (this.orderIdAt[slot] as OrderId);
    const owner = this.ownerAt[slot];
    this.removeSlot(slot, levels, level);
    this.listener.onCancelled(++this.seq, orderId, owner, left, reason, time);
    this.reportLevel(levels, level, side, price, time);
  }

  /** Expires every order with expiresAt <= time, in (expiresAt, orderId) order. */
  private expireDue(time: number): number {
    let n = 0;
    const heap = this.expiry;
    while (heap.topTime <= time) {
      const at = heap.topTime;
      const id = heap.topId as OrderId;
      heap.pop();
      const slot = this.slotById.get(id);
      if (slot === NO_SLOT || this.expiresAtAt[slot] !== at) continue;
      const side = this.sideAt[slot] as Side;
      const levels = side === 1 ? this.bids : this.asks;
      const level = this.levelAt[slot];
      const price = this.priceAt[slot];
      const left = this.remainingAt[slot];
      const owner = this.ownerAt[slot];
      this.removeSlot(slot, levels, level);
      this.listener.onExpired(++this.seq, id, owner, left, Reason.ExpiresAtReached, time);
      this.reportLevel(levels, level, side, price, time);
      n++;
    }
    return n;
  }

  /** Emits a level's new total after a removal, closing the level if it emptied. */
  private reportLevel(levels: PriceLevels, level: number, side: Side, price: number, time: number): void {
    const total = levels.total[level];
    if (levels.head[level] === NO_SLOT) levels.close(level);
    this.listener.onLevel(++this.seq, side, price, total, time);
  }

  /** Puts an order on the book: slot, level FIFO tail, and every index. Returns the slot. */
  private rest(
    orderId: OrderId, owner: number, account: AccountIndex, side: Side, price: number, quantity: number,
    remaining: number, flags: number, expiresAt: number, clientId: string | null, time: number,
  ): number {
    const slot = this.freeSlotCount > 0 ? this.freeSlots[--this.freeSlotCount] : this.allocateSlot();
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

  /** Takes a slot off its level FIFO (subtracting its remaining lots) and out of every index. */
  private removeSlot(slot: number, levels: PriceLevels, level: number): void {
    const prev = this.prevInLevel[slot];
    const next = this.nextInLevel[slot];
    if (prev === NO_SLOT) levels.head[level] = next;
    else this.nextInLevel[prev] = next;
    if (next === NO_SLOT) levels.tail[level] = prev;
    else this.prevInLevel[next] = prev;
    levels.total[level] -= this.remainingAt[slot];

    const owner = this.ownerAt[slot];
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
    this.freeSlots[this.freeSlotCount++] = slot;
    this.live--;
  }

  /** Drops stale entries: the heap becomes exactly the live expiring orders. */
  private rebuildExpiry(): void {
    this.expiry.clear();
    this.slotById.forEach((orderId, slot) => {
      if (this.expiresAtAt[slot] > 0) this.expiry.push(this.expiresAtAt[slot], orderId);
    });
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

  private forEachInPriorityOrder(visit: (slot: number) => void): void {
    for (const levels of [this.bids, this.asks]) {
      for (let rank = 0; rank < levels.count; rank++) {
        for (let slot = levels.head[levels.levelAt(rank)]; slot !== NO_SLOT; slot = this.nextInLevel[slot]) visit(slot);
      }
    }
  }

  /** A slot's fields as a plain object (cold path: views, snapshots, hashes). */
  private fields(slot: number): RestingFields {
    return {
      orderId: (this.orderIdAt[slot] as OrderId),
      owner: this.ownerAt[slot],
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
