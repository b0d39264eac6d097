/**
 * @module engine/naive-book
 *
 * The reference order book: obviously correct, not fast. Resting orders are plain objects in
 * one array in arrival order; every question (best price, who is next at a price, level total,
 * duplicates) is a linear scan. It implements exactly the semantics written in
 * `engine/index.ts`, and the property tests hold `FastOrderBook` to it event by event.
 *
 * Time priority is the array order: a resting order is appended when it rests, restore
 * appends the snapshot's orders in priority order, so FIFO within a price is kept.
 * Complexity: O(n) per operation, O(n log n) for expiry, snapshots and hashes.
 * May import: engine/. Nothing outside the engine (node:crypto only through engine/state-hash).
 */
import { EngineCode, Reason } from './codes.ts';
import { crosses, depthBucket, depthMultiple, orderView, shapeRejection } from './order-rules.ts';
import { ReduceOnlyPositions, closableLots } from './reduce-only-positions.ts';
import type { RestingFields } from './order-rules.ts';
import { StateHasher } from './state-hash.ts';
import { OrderFlag } from './types.ts';
import type { BookListener, BookOptions, BookSnapshot, Level, OrderBook, OrderId, OrderView, PlaceOrder, Side } from './types.ts';
import type { AccountIndex, MarketIndex, OwnerIndex } from './types.ts';

const byOrderId = (a: RestingFields, b: RestingFields): number => a.orderId - b.orderId;

export class NaiveOrderBook implements OrderBook {
  readonly marketIndex: MarketIndex;
  private seq = 0;
  /** Every resting order, in arrival (time-priority) order. */
  private readonly orders: RestingFields[] = [];
  private readonly listener: BookListener;
  private readonly minSizeLots: number;
  private readonly reduceOnly = new ReduceOnlyPositions();
  /** Owners with resting reduce-only orders whose position moved during the current place, in that order. */
  private readonly touched: OwnerIndex[] = [];

  constructor(marketIndex: MarketIndex, listener: BookListener, options: BookOptions = {}) {
    this.marketIndex = marketIndex;
    this.listener = listener;
    this.minSizeLots = options.minSizeLots ?? 1;
  }

  static restore(snapshot: BookSnapshot, listener: BookListener, options: BookOptions = {}): NaiveOrderBook {
    const book = new NaiveOrderBook(snapshot.marketIndex, listener, options);
    book.seq = snapshot.sequence;
    for (const o of snapshot.orders) {
      book.orders.push({
        orderId: o.orderId,
        owner: o.owner,
        account: o.account,
        side: o.side,
        price: o.price,
        quantity: o.quantity,
        remaining: o.remaining,
        flags: o.flags,
        expiresAt: o.expiresAt,
        clientId: o.clientId,
        createdAt: o.createdAt,
        updatedAt: o.updatedAt,
        lastUpdateSequenceNumber: o.lastUpdateSequenceNumber,
      });
    }
    book.reduceOnly.restore(snapshot.reduceOnly, snapshot.orders, OrderFlag.ReduceOnly);
    book.validateInternalState();
    return book;
  }

  get sequence(): number {
    return this.seq;
  }

  get size(): number {
    return this.orders.length;
  }

  place(cmd: PlaceOrder): number {
    const code = this.placeAndMatch(cmd);
    this.cancelReduceOnlyExcess(cmd.time);
    return code;
  }

  /** The touched owners' reduce-only orders that no longer fit their position: newest first, whole. */
  private cancelReduceOnlyExcess(time: number): void {
    for (const owner of this.touched) {
      while (this.reduceOnly.excess(owner) > 0) {
        const newest = this.orders.filter((o) => o.owner === owner && (o.flags & OrderFlag.ReduceOnly) !== 0).sort(byOrderId).pop()!;
        this.remove(newest, Reason.ReduceOnlyCancelled, time);
      }
    }
    this.touched.length = 0;
  }

  private touch(owner: OwnerIndex): void {
    if (this.reduceOnly.hasResting(owner) && !this.touched.includes(owner)) this.touched.push(owner);
  }

  private placeAndMatch(cmd: PlaceOrder): number {
    const time = cmd.time;
    this.expireDue(time);
    if ((cmd.flags & OrderFlag.ReduceOnly) !== 0 && this.reduceOnly.told(cmd.owner, cmd.position)) {
      this.touch(cmd.owner);
      this.cancelReduceOnlyExcess(time);
    }
    let quantity = cmd.quantity;
    let code = shapeRejection(cmd, this.minSizeLots);
    if (code === EngineCode.Ok && this.orders.some((o) => o.orderId === cmd.orderId)) code = EngineCode.OrderIdExists;
    if (code === EngineCode.Ok && cmd.clientId !== null && this.findByClientId(cmd.account, cmd.clientId) >= 0) {
      code = EngineCode.ClientIdExists;
    }
    if (code === EngineCode.Ok && cmd.expiresAt !== 0 && cmd.expiresAt <= time) code = EngineCode.AlreadyExpired;
    if (code === EngineCode.Ok && (cmd.flags & OrderFlag.ReduceOnly) !== 0) {
      quantity = Math.min(quantity, this.reduceOnly.capacity(cmd.owner, cmd.side, cmd.position));
      if (quantity === 0) code = EngineCode.ReduceOnlyWouldIncrease;
    }
    if (code === EngineCode.Ok && (cmd.flags & OrderFlag.PostOnly) !== 0) {
      const best = this.best(-cmd.side as Side);
      if (best !== 0 && crosses(cmd.side, cmd.price, best)) code = EngineCode.PostOnlyWouldTake;
    }
    if (code !== EngineCode.Ok) {
      this.listener.onRejected(++this.seq, cmd.orderId, cmd.owner, code, time);
      return code;
    }
    this.listener.onAccepted(++this.seq, cmd.orderId, cmd.owner, cmd.side, cmd.price, quantity, time);

    const makerSide = -cmd.side as Side;
    let remaining = quantity;
    for (;;) {
      const best = this.best(makerSide);
      if (remaining === 0 || best === 0 || !crosses(cmd.side, cmd.price, best)) break;
      let i = 0;
      while (i < this.orders.length && remaining > 0) {
        const maker = this.orders[i];
        if (maker.side !== makerSide || maker.price !== best) {
          i++;
        } else if (maker.account === cmd.account) {
          this.take(i);
          this.listener.onExpired(++this.seq, maker.orderId, maker.owner, maker.remaining, Reason.SelfTrade, time);
        } else {
          const makerReduceOnly = (maker.flags & OrderFlag.ReduceOnly) !== 0;
          // A reduce-only maker closes at most the position as it is now.
          const closable = makerReduceOnly ? closableLots(makerSide, this.reduceOnly.position(maker.owner)) : Infinity;
          if (closable === 0) {
            this.take(i);
            this.listener.onCancelled(++this.seq, maker.orderId, maker.owner, maker.remaining, Reason.ReduceOnlyCancelled, time);
            continue;
          }
          const capped = closable < Math.min(remaining, maker.remaining);
          const traded = Math.min(remaining, maker.remaining, closable);
          maker.remaining -= traded;
          remaining -= traded;
          maker.updatedAt = time;
          maker.lastUpdateSequenceNumber = ++this.seq;
          if (makerReduceOnly) this.reduceOnly.left(maker.owner, makerSide, traded);
          this.reduceOnly.fill(maker.owner, makerSide * traded);
          this.reduceOnly.fill(cmd.owner, cmd.side * traded);
          this.touch(maker.owner);
          this.touch(cmd.owner);
          this.listener.onFill(
            this.seq, maker.orderId, cmd.orderId, maker.owner, cmd.owner, cmd.side,
            best, traded, maker.remaining, remaining, time,
          );
          if (maker.remaining === 0) this.take(i);
          else if (capped) {
            // It closed the position: the rest would open one.
            this.take(i);
            this.listener.onCancelled(++this.seq, maker.orderId, maker.owner, maker.remaining, Reason.ReduceOnlyCancelled, time);
          } else i++;
        }
      }
      this.listener.onLevel(++this.seq, makerSide, best, this.levelTotal(makerSide, best), time);
    }

    if (remaining === 0) return EngineCode.Ok;
    if ((cmd.flags & OrderFlag.ImmediateOrCancel) !== 0) {
      this.listener.onCancelled(++this.seq, cmd.orderId, cmd.owner, remaining, Reason.ImmediateOrCancel, time);
      return EngineCode.Ok;
    }
    this.orders.push({
      orderId: cmd.orderId,
      owner: cmd.owner,
      account: cmd.account,
      side: cmd.side,
      price: cmd.price,
      quantity,
      remaining,
      flags: cmd.flags,
      expiresAt: cmd.expiresAt,
      clientId: cmd.clientId,
      createdAt: time,
      updatedAt: time,
      lastUpdateSequenceNumber: ++this.seq,
    });
    if ((cmd.flags & OrderFlag.ReduceOnly) !== 0) this.reduceOnly.rested(cmd.owner, cmd.side, remaining, cmd.position);
    this.listener.onRested(this.seq, cmd.orderId, cmd.owner, cmd.side, cmd.price, remaining, time);
    this.listener.onLevel(++this.seq, cmd.side, cmd.price, this.levelTotal(cmd.side, cmd.price), time);
    return EngineCode.Ok;
  }

  cancel(orderId: OrderId, owner: OwnerIndex, time: number): number {
    this.expireDue(time);
    const i = this.orders.findIndex((o) => o.orderId === orderId);
    if (i < 0) return EngineCode.OrderNotFound;
    if (this.orders[i].owner !== owner) return EngineCode.NotOwner;
    this.remove(this.orders[i], Reason.Cancelled, time);
    return EngineCode.Ok;
  }

  cancelAll(owner: OwnerIndex, time: number, reason: number): number {
    this.expireDue(time);
    const mine = this.orders.filter((o) => o.owner === owner).sort(byOrderId);
    for (const o of mine) this.remove(o, reason, time);
    return mine.length;
  }

  expire(time: number): number {
    return this.expireDue(time);
  }

  bestBid(): number {
    return this.best(1);
  }

  bestAsk(): number {
    return this.best(-1);
  }

  depth(side: Side, levels: number, tickMultiple: number): Level[] {
    const m = depthMultiple(tickMultiple);
    const totals = new Map<number, number>();
    for (const o of this.orders) {
      if (o.side !== side) continue;
      const bucket = depthBucket(side, o.price, m);
      totals.set(bucket, (totals.get(bucket) ?? 0) + o.remaining);
    }
    return [...totals]
      .map(([price, quantity]) => ({ price, quantity }))
      .sort((a, b) => (side === 1 ? b.price - a.price : a.price - b.price))
      .slice(0, Math.max(0, levels));
  }

  order(orderId: OrderId): OrderView | undefined {
    const o = this.orders.find((x) => x.orderId === orderId);
    return o === undefined ? undefined : orderView(o);
  }

  ordersOf(owner: OwnerIndex): OrderView[] {
    return this.orders.filter((o) => o.owner === owner).sort(byOrderId).map(orderView);
  }

  stateHash(): string {
    const hasher = new StateHasher(this.marketIndex, this.seq);
    for (const o of this.inPriorityOrder()) hasher.add(o);
    this.reduceOnly.forEachCount((kind, owner, lots) => hasher.addCount(kind, owner, lots));
    return hasher.digest();
  }

  snapshot(): BookSnapshot {
    return { marketIndex: this.marketIndex, sequence: this.seq, orders: this.inPriorityOrder().map(orderView), reduceOnly: this.reduceOnly.snapshot() };
  }

  validateInternalState(): void {
    const ids = new Set<number>();
    const clientIds = new Set<string>();
    for (const o of this.orders) {
      if (!(Number.isSafeInteger(o.remaining) && o.remaining > 0)) throw new Error(`order ${o.orderId}: remaining ${o.remaining} is not a positive integer`);
      if (o.remaining > o.quantity) throw new Error(`order ${o.orderId}: remaining ${o.remaining} exceeds quantity ${o.quantity}`);
      if (!(Number.isSafeInteger(o.price) && o.price > 0)) throw new Error(`order ${o.orderId}: price ${o.price} is not a positive integer`);
      if (ids.has(o.orderId)) throw new Error(`order ${o.orderId}: id is on the book twice`);
      ids.add(o.orderId);
      if (o.clientId !== null) {
        const key = `${o.account}\u0000${o.clientId}`;
        if (clientIds.has(key)) throw new Error(`account ${o.account}: clientId ${o.clientId} is used by two open orders`);
        clientIds.add(key);
      }
    }
    const bid = this.best(1);
    const ask = this.best(-1);
    if (bid !== 0 && ask !== 0 && bid >= ask) throw new Error(`book crossed at rest: best bid ${bid} >= best ask ${ask}`);
    this.reduceOnly.validate(this.orders, OrderFlag.ReduceOnly);
  }

  /** Expires every order with 0 < expiresAt <= time, in (expiresAt, orderId) order. */
  private expireDue(time: number): number {
    const due = this.orders
      .filter((o) => o.expiresAt > 0 && o.expiresAt <= time)
      .sort((a, b) => a.expiresAt - b.expiresAt || a.orderId - b.orderId);
    for (const o of due) {
      this.take(this.orders.indexOf(o));
      this.listener.onExpired(++this.seq, o.orderId, o.owner, o.remaining, Reason.ExpiresAtReached, time);
      this.listener.onLevel(++this.seq, o.side, o.price, this.levelTotal(o.side, o.price), time);
    }
    return due.length;
  }

  /** Takes a resting order off the book at its owner's or the exchange's request. */
  private remove(o: RestingFields, reason: number, time: number): void {
    this.take(this.orders.indexOf(o));
    this.listener.onCancelled(++this.seq, o.orderId, o.owner, o.remaining, reason, time);
    this.listener.onLevel(++this.seq, o.side, o.price, this.levelTotal(o.side, o.price), time);
  }

  /** Takes the order at `i` off the book (its remaining reduce-only lots no longer rest). */
  private take(i: number): void {
    const o = this.orders[i];
    this.orders.splice(i, 1);
    if ((o.flags & OrderFlag.ReduceOnly) !== 0) this.reduceOnly.left(o.owner, o.side, o.remaining);
  }

  private findByClientId(account: AccountIndex, clientId: string): number {
    return this.orders.findIndex((o) => o.account === account && o.clientId === clientId);
  }

  private best(side: Side): number {
    let best = 0;
    for (const o of this.orders) {
      if (o.side === side && (best === 0 || (side === 1 ? o.price > best : o.price < best))) best = o.price;
    }
    return best;
  }

  private levelTotal(side: Side, price: number): number {
    let total = 0;
    for (const o of this.orders) if (o.side === side && o.price === price) total += o.remaining;
    return total;
  }

  /** Bids best first, then asks best first; the sort is stable, so FIFO within a price holds. */
  private inPriorityOrder(): RestingFields[] {
    const bids = this.orders.filter((o) => o.side === 1).sort((a, b) => b.price - a.price);
    const asks = this.orders.filter((o) => o.side === -1).sort((a, b) => a.price - b.price);
    return [...bids, ...asks];
  }
}
