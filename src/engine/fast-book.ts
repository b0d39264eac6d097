/**
 * @module engine/fast-book
 *
 * The production order book. Same semantics and events as `NaiveOrderBook` (see
 * `engine/index.ts`); built so that no command allocates once the book has warmed up.
 *
 * This file owns the commands: placing and matching (price-time priority, self-trade
 * expiry, reduce-only caps), cancels, expiry, and the read-only views, snapshot and state
 * hash. What rests and how it is linked and indexed is `engine/resting-orders` (over the
 * typed-array slots of `engine/order-slab`), which this class extends so the matching loop
 * reads the slot arrays as its own fields.
 *
 * Complexity: place O(1) at an existing level or the top, O(log L + d) to open a level d
 * places from the best (L levels on that side); each fill, self-trade expiry and cancel O(1)
 * plus O(log L + d) when it empties a level; cancelAll O(k log k) for k orders; expiry
 * O(log n) per order; best prices O(1); depth O(levels read).
 * Determinism: the indexes are only looked up, never iterated on a path that emits events or
 * orders anything (validation iterates them to check them; the expiry rebuild refills a heap
 * whose pop order is fixed by its keys).
 * May import: engine/. Nothing outside the engine (node:crypto only through engine/state-hash).
 */
import { EngineCode, Reason } from './codes.ts';
import { depthBucket, depthMultiple, orderView, shapeRejection } from './order-rules.ts';
import { NO_LEVEL, NO_SLOT, PriceLevels, grownFloat64 } from './price-levels.ts';
import { closableLots } from './reduce-only-positions.ts';
import { RestingOrders } from './resting-orders.ts';
import { StateHasher } from './state-hash.ts';
import { OrderFlag } from './types.ts';
import type { BookListener, BookOptions, BookSnapshot, Level, OrderBook, OrderId, OrderView, PlaceOrder, Side } from './types.ts';
import type { MarketIndex, OwnerIndex } from './types.ts';

export class FastOrderBook extends RestingOrders implements OrderBook {
  readonly marketIndex: MarketIndex;
  private seq = 0;
  private readonly listener: BookListener;
  private minSizeLots: number;

  /** Reused by cancelAll to order an owner's ids. */
  private scratchIds = new Float64Array(64);
  /** Owners with resting reduce-only orders whose position moved during the current place. */
  private touched = new Float64Array(16);
  private touchedCount = 0;

  constructor(marketIndex: MarketIndex, listener: BookListener, options: BookOptions = {}) {
    super();
    this.marketIndex = marketIndex;
    this.listener = listener;
    this.minSizeLots = options.minSizeLots ?? 1;
  }

  /** The market's minSize from the next order on (a journaled markets record changed it): resting orders stay as they are. */
  setMinSize(lots: number): void {
    this.minSizeLots = lots;
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

  cancel(orderId: OrderId, owner: OwnerIndex, time: number): number {
    if (this.expiry.topTime <= time) this.expireDue(time);
    const slot = this.slotById.get(orderId);
    if (slot === NO_SLOT) return EngineCode.OrderNotFound;
    if (this.ownerAt[slot] !== owner) return EngineCode.NotOwner;
    this.cancelSlot(slot, Reason.Cancelled, time);
    return EngineCode.Ok;
  }

  cancelAll(owner: OwnerIndex, time: number, reason: number): number {
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

  ordersOf(owner: OwnerIndex): OrderView[] {
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
        const owner = this.ownerAt[slot] as OwnerIndex;
        this.removeSlot(slot, makers, level);
        listener.onExpired(++this.seq, orderId, owner, left, Reason.SelfTrade, time);
      } else {
        const makerLeft = this.remainingAt[slot];
        const makerOwner = this.ownerAt[slot] as OwnerIndex;
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
  private touch(owner: OwnerIndex): void {
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
      const owner = this.touched[i] as OwnerIndex;
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
    const owner = this.ownerAt[slot] as OwnerIndex;
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
      const owner = this.ownerAt[slot] as OwnerIndex;
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
}
