/**
 * @module conditional/conditional-book
 *
 * `ConditionalBook`: the conditional and algorithmic orders of one market — untriggered
 * takeProfit / stopLoss / trailingStop orders, TP/SL pairs (OCO groups), TWAPs and icebergs —
 * as a pure state machine driven beside the order book. Semantics in the module header of
 * conditional/index.ts and in docs/conditional-orders.md.
 *
 * This file owns the untriggered orders (recording, arming, firing, ending, expiry), what a
 * pair does when a leg fires or its parent fills or leaves, and the book-wide snapshot,
 * restore and validation. Its parts: the checks of a new order (conditional/order-checks),
 * the trigger index (conditional/trigger-index), the live pairs and their indexes
 * (conditional/pair-index), and the TWAP / iceberg schedule (conditional/slice-schedule).
 * Every command first expires untriggered orders, then releases due TWAP slices, in that order.
 * May import: types/ids, conditional/, numeric/state-hash.
 */
import { stateHashOf } from '../numeric/state-hash.ts';
import { ConditionalCode, ConditionalReason } from './codes.ts';
import { IndexedHeap } from './indexed-heap.ts';
import { NaiveTriggerIndex } from './naive-trigger-index.ts';
import { OcoPair } from './oco-pair.ts';
import { checkMark, checkPair, checkTrigger, isCount } from './order-checks.ts';
import type { TakenIds } from './order-checks.ts';
import { addTo, removeFrom } from './owner-sets.ts';
import { PairIndex } from './pair-index.ts';
import { SliceSchedule } from './slice-schedule.ts';
import { FastTriggerIndex } from './trigger-index.ts';
import type { TriggerIndex } from './trigger-index.ts';
import { crossed } from './trigger-math.ts';
import { TriggerOrder, toPlaceOrder, triggerView } from './trigger-order.ts';
import { Release, TriggerKind } from './types.ts';
import type {
  ConditionalListener,
  ConditionalSnapshot,
  PlacePair,
  PlaceSlices,
  PlaceTrigger,
  SlicesView,
  TriggerView,
} from './types.ts';
import { NO_ORDER, type MarketIndex, type OrderId, type OwnerIndex } from '../types/ids.ts';

/** A TP/SL pair of this book's trigger records. */
type Pair = OcoPair<TriggerOrder>;

export interface ConditionalBookOptions {
  /** `fast` (default) or `naive`: the scan-every-order reference index, for tests and the benchmark baseline. */
  index?: 'fast' | 'naive';
  /** Most slices a TWAP or iceberg may have. Default 10,000. */
  maxSlices?: number;
}

export class ConditionalBook {
  private lastMark = 0;
  private readonly index: TriggerIndex;
  /** Untriggered orders by orderId. */
  private readonly triggers = new Map<number, TriggerOrder>();
  private readonly triggersByOwner = new Map<OwnerIndex, Set<TriggerOrder>>();
  private readonly pairs = new PairIndex<TriggerOrder>();
  private readonly expiries = new IndexedHeap<TriggerOrder>(
    (a, b) => a.expiresAt < b.expiresAt || (a.expiresAt === b.expiresAt && a.orderId < b.orderId),
    (o) => o.expirySlot,
    (o, slot) => { o.expirySlot = slot; },
  );
  /** Reused by every mark update: the orders it fires. */
  private readonly firing: TriggerOrder[] = [];
  private readonly slices: SliceSchedule;
  /** Ids a new trigger order may not take: untriggered orders and pending slices. */
  private readonly takenIds: TakenIds = { has: (orderId) => this.triggers.has(orderId) || this.slices.has(orderId) };

  constructor(
    readonly marketIndex: MarketIndex,
    private readonly listener: ConditionalListener,
    options: ConditionalBookOptions = {},
  ) {
    this.index = options.index === 'naive' ? new NaiveTriggerIndex() : new FastTriggerIndex();
    this.slices = new SliceSchedule(listener, options.maxSlices ?? 10_000);
  }

  /** The last mark price seen (0 before the first). */
  get markPrice(): number {
    return this.lastMark;
  }

  /** Untriggered orders (armed or waiting for a parent). */
  get size(): number {
    return this.triggers.size;
  }

  // ---- commands -------------------------------------------------------------------------

  /** Places one takeProfit, stopLoss or trailingStop; it rests `untriggered` until the mark crosses its trigger. */
  place(cmd: PlaceTrigger): number {
    this.advance(cmd.time);
    const code = checkTrigger(cmd, this.takenIds) || checkMark(cmd, this.lastMark);
    if (code !== ConditionalCode.Ok) return code;
    const o = this.insert(cmd);
    this.arm(o);
    return ConditionalCode.Ok;
  }

  /** Places a TP/SL pair attached to the position (parentOrderId 0) or to a resting parent order. */
  placePair(cmd: PlacePair): number {
    this.advance(cmd.time);
    const code = checkPair(cmd, this.takenIds, this.pairs, this.lastMark);
    if (code !== ConditionalCode.Ok) return code;
    const takeProfit = this.insert(cmd.takeProfit);
    const stopLoss = this.insert(cmd.stopLoss);
    const parentLive = cmd.parentOrderId !== 0;
    const pair = new OcoPair(cmd.ocoGroupId, takeProfit, stopLoss, cmd.parentOrderId, parentLive, 0);
    takeProfit.pair = pair;
    stopLoss.pair = pair;
    this.pairs.add(pair);
    if (parentLive) {
      takeProfit.armedQuantity = 0;
      stopLoss.armedQuantity = 0;
      const filled = cmd.parent?.filled ?? 0;
      if (filled > 0) this.parentFilled(pair, filled, cmd.time);
    } else {
      this.arm(takeProfit);
      this.arm(stopLoss);
    }
    return ConditionalCode.Ok;
  }

  /** Places a TWAP: slice 0 is released now, slice i at time + i × period. */
  placeTwap(cmd: PlaceSlices): number {
    this.advance(cmd.time);
    if (!isCount(cmd.period)) return ConditionalCode.InvalidPeriod;
    const code = this.slices.check(cmd, this.triggers);
    if (code !== ConditionalCode.Ok) return code;
    this.slices.placeTwap(cmd, cmd.time);
    return ConditionalCode.Ok;
  }

  /** Places an iceberg: slice 0 is released now, each next one when the previous is fully filled. */
  placeIceberg(cmd: PlaceSlices): number {
    this.advance(cmd.time);
    const code = this.slices.check(cmd, this.triggers);
    if (code !== ConditionalCode.Ok) return code;
    this.slices.placeIceberg(cmd, cmd.time);
    return ConditionalCode.Ok;
  }

  /** A new mark price: fires every armed order whose trigger it crosses, in ascending orderId, then moves trailing anchors. */
  onMark(mark: number, time: number): number {
    this.advance(time);
    if (!isCount(mark)) return ConditionalCode.InvalidMarkPrice;
    this.lastMark = mark;
    const firing = this.firing;
    this.index.collect(mark, firing);
    if (firing.length === 0) return ConditionalCode.Ok;
    for (const o of firing) o.armed = false;
    if (firing.length > 1) firing.sort((a, b) => a.orderId - b.orderId);
    for (const o of firing) {
      // A leg whose sibling fired earlier in this batch was ended with it.
      if (this.triggers.get(o.orderId) === o) this.trigger(o, time);
    }
    firing.length = 0;
    return ConditionalCode.Ok;
  }

  /**
   * When the timer next has work: the earliest TWAP slice due or untriggered order expiring (ms),
   * 0 when none. The clock (sequencer/clock) journals a `Release` at that time, so a slice enters at its
   * due time, not at the next clock tick, and a replay releases it at the same point.
   */
  nextDueAt(): number {
    const twap = this.slices.nextDueAt();
    const expiry = this.expiries.peek()?.expiresAt ?? 0;
    return twap === 0 ? expiry : expiry === 0 ? twap : Math.min(twap, expiry);
  }

  /** The timer: expires untriggered orders with expiresAt <= time and releases the TWAP slices due by then. */
  onTime(time: number): number {
    this.advance(time);
    return ConditionalCode.Ok;
  }

  /** A fill of a book order (maker or taker): arms pairs attached to it; a fully filled iceberg slice releases the next. */
  onFill(orderId: OrderId, quantity: number, remaining: number, time: number): number {
    this.advance(time);
    const attached = this.pairs.attachedTo(orderId);
    if (attached !== undefined) {
      for (const pair of attached.slice()) this.parentFilled(pair, quantity, time);
      // A pair that fired at arming has already left the parent's list.
      if (remaining === 0 && this.pairs.attachedTo(orderId) !== undefined) this.parentGone(orderId, time);
    }
    this.slices.onFill(orderId, remaining, time);
    return ConditionalCode.Ok;
  }

  /** A book order left the book with lots unfilled (cancelled, expired, IOC remainder, rejected). */
  onOrderGone(orderId: OrderId, time: number): number {
    this.advance(time);
    if (this.pairs.attachedTo(orderId) !== undefined) this.parentGone(orderId, time);
    this.slices.onOrderGone(orderId, time);
    return ConditionalCode.Ok;
  }

  /** The owner's position in this market is now `lots` (signed): pairs it no longer leaves anything to close end. */
  onPosition(owner: OwnerIndex, lots: number, time: number): number {
    this.advance(time);
    const attached = this.pairs.onPositionOf(owner);
    if (attached === undefined) return ConditionalCode.Ok;
    const closed: Pair[] = [];
    for (const pair of attached) if (lots * pair.side >= 0) closed.push(pair);
    closed.sort((a, b) => a.ocoGroupId - b.ocoGroupId);
    for (const pair of closed) this.endPair(pair, null, ConditionalReason.PositionClosed, ConditionalReason.PositionClosed, time);
    return ConditionalCode.Ok;
  }

  /** Cancels an untriggered order (a pair leg: both legs), or the unreleased rest of the TWAP / iceberg a pending slice belongs to. */
  cancel(orderId: OrderId, owner: OwnerIndex, time: number): number {
    this.advance(time);
    const o = this.triggers.get(orderId);
    if (o !== undefined) {
      if (o.owner !== owner) return ConditionalCode.NotOwner;
      this.endTrigger(o, ConditionalReason.Cancelled, ConditionalReason.Cancelled, time);
      return ConditionalCode.Ok;
    }
    return this.slices.cancelBySlice(orderId, owner, ConditionalReason.Cancelled, time);
  }

  /** Cancels the unreleased slices of a TWAP or iceberg (slices already on the book stay there). */
  cancelGroup(groupId: OrderId, owner: OwnerIndex, time: number): number {
    this.advance(time);
    return this.slices.cancelGroup(groupId, owner, ConditionalReason.Cancelled, time);
  }

  /** Cancels every untriggered order (ascending orderId), then every TWAP / iceberg (ascending groupId) of `owner`; returns how many orders and slices ended. */
  cancelAll(owner: OwnerIndex, time: number, reason: number): number {
    this.advance(time);
    let ended = 0;
    const own = [...(this.triggersByOwner.get(owner) ?? [])].sort((a, b) => a.orderId - b.orderId);
    for (const o of own) {
      if (this.triggers.get(o.orderId) !== o) continue;
      ended += o.pair === null ? 1 : 2;
      this.endTrigger(o, reason, reason, time);
    }
    return ended + this.slices.cancelAll(owner, reason, time);
  }

  // ---- reads ------------------------------------------------------------------------------

  order(orderId: OrderId): TriggerView | undefined {
    const o = this.triggers.get(orderId);
    return o === undefined ? undefined : this.view(o);
  }

  /** The owner's untriggered orders, ascending orderId. */
  ordersOf(owner: OwnerIndex): TriggerView[] {
    return [...(this.triggersByOwner.get(owner) ?? [])].sort((a, b) => a.orderId - b.orderId).map((o) => this.view(o));
  }

  group(groupId: OrderId): SlicesView | undefined {
    return this.slices.group(groupId);
  }

  /** The owner's TWAPs and icebergs, ascending groupId. */
  groupsOf(owner: OwnerIndex): SlicesView[] {
    return this.slices.groupsOf(owner);
  }

  // ---- state ------------------------------------------------------------------------------

  snapshot(): ConditionalSnapshot {
    const triggers = [...this.triggers.values()].sort((a, b) => a.orderId - b.orderId).map((o) => {
      const v = this.view(o);
      return { ...v, trailingPercent: v.trailingPercent.toString() };
    });
    return { marketIndex: this.marketIndex, lastMark: this.lastMark, triggers, pairs: this.pairs.snapshot(), groups: this.slices.snapshot() };
  }

  /** A book equal to the one that took `snapshot` (equal `stateHash`, the same future). */
  static restore(snapshot: ConditionalSnapshot, listener: ConditionalListener, options?: ConditionalBookOptions): ConditionalBook {
    const book = new ConditionalBook(snapshot.marketIndex, listener, options);
    book.lastMark = snapshot.lastMark;
    const anchors = new Map<number, number>();
    for (const t of snapshot.triggers) {
      const o = book.insert({ ...t, time: t.createdAt, trailingPercent: BigInt(t.trailingPercent), triggerPrice: t.kind === TriggerKind.TrailingStop ? 0 : t.triggerPrice });
      o.armedQuantity = t.armedQuantity;
      anchors.set(o.orderId, t.anchor);
    }
    for (const p of snapshot.pairs) {
      const tp = book.triggers.get(p.takeProfitId);
      const sl = book.triggers.get(p.stopLossId);
      if (tp === undefined || sl === undefined) throw new Error(`snapshot: pair ${p.ocoGroupId} names a missing leg`);
      const pair = new OcoPair(p.ocoGroupId, tp, sl, p.parentOrderId, p.parentLive, p.filled);
      tp.pair = pair;
      sl.pair = pair;
      book.pairs.add(pair);
    }
    // Trailing stops go in from the highest anchor key down, so each joins or tops the ladder.
    const armed = [...book.triggers.values()].filter((o) => o.pair === null || o.pair.positionAttached || o.pair.filled > 0);
    armed.sort((a, b) => o2key(b) - o2key(a) || a.orderId - b.orderId);
    function o2key(o: TriggerOrder): number {
      return o.trailing ? o.sense * (anchors.get(o.orderId) as number) : 0;
    }
    for (const o of armed) {
      o.armed = true;
      book.index.add(o, anchors.get(o.orderId) as number);
    }
    book.slices.restore(snapshot.groups);
    book.validateInternalState();
    return book;
  }

  /** SHA-256 of the canonical snapshot: equal states give equal hashes, whatever the index layout. */
  stateHash(): string {
    return stateHashOf(this.snapshot());
  }

  /** Throws an Error naming the first broken invariant. */
  validateInternalState(): void {
    this.index.validate(this.lastMark);
    let armed = 0;
    let owned = 0;
    for (const set of this.triggersByOwner.values()) owned += set.size;
    if (owned !== this.triggers.size) throw new Error('owner index disagrees with the untriggered orders');
    for (const [id, o] of this.triggers) {
      if (o.orderId !== id || this.triggersByOwner.get(o.owner)?.has(o) !== true) throw new Error(`order ${id}: indexes disagree`);
      if (this.slices.has(id)) throw new Error(`order ${id}: both untriggered and a pending slice`);
      const pair = o.pair;
      const shouldArm = pair === null || pair.positionAttached || pair.filled > 0;
      if (o.armed !== shouldArm) throw new Error(`order ${id}: armed is ${o.armed}, should be ${shouldArm}`);
      if (o.armed) armed++;
      if ((o.expiresAt > 0) !== this.expiries.has(o)) throw new Error(`order ${id}: expiry index disagrees`);
      if (pair !== null) {
        if (this.pairs.get(pair.ocoGroupId) !== pair || (pair.takeProfit !== o && pair.stopLoss !== o)) throw new Error(`order ${id}: pair disagrees`);
        const expected = pair.positionAttached ? o.quantity : Math.min(pair.filled, o.quantity);
        if (o.armedQuantity !== expected) throw new Error(`order ${id}: armed quantity ${o.armedQuantity}, expected ${expected}`);
      } else if (o.armedQuantity !== o.quantity) {
        throw new Error(`order ${id}: armed quantity differs from quantity`);
      }
      if (o.trailing && this.lastMark > 0 && o.sense * this.index.anchorOf(o) < o.sense * this.lastMark) throw new Error(`order ${id}: anchor lags the mark`);
    }
    if (armed !== this.index.size) throw new Error(`trigger index holds ${this.index.size} orders, ${armed} are armed`);
    this.pairs.validate(this.triggers);
    this.slices.validate();
    this.expiries.validate('expiry heap');
    if (this.expiries.size !== [...this.triggers.values()].filter((o) => o.expiresAt > 0).length) throw new Error('expiry heap holds dead orders');
  }

  // ---- internals -----------------------------------------------------------------------------

  /** Every command first: expire untriggered orders due by `time`, then release TWAP slices due by `time`. */
  private advance(time: number): void {
    for (let o = this.expiries.peek(); o !== undefined && o.expiresAt <= time; o = this.expiries.peek()) {
      this.endTrigger(o, ConditionalReason.ExpiresAtReached, ConditionalReason.OcoExpired, time);
    }
    this.slices.releaseDue(time);
  }

  /** Records an untriggered order (not yet armed). */
  private insert(cmd: PlaceTrigger): TriggerOrder {
    const o = new TriggerOrder(cmd, Number(cmd.trailingPercent));
    this.triggers.set(o.orderId, o);
    addTo(this.triggersByOwner, o.owner, o);
    if (o.expiresAt > 0) this.expiries.push(o);
    return o;
  }

  /** Puts an order in the trigger index (trailing stops anchor at the last mark). */
  private arm(o: TriggerOrder): void {
    o.armed = true;
    this.index.add(o, o.trailing ? this.lastMark : 0);
  }

  /** Forgets an untriggered order everywhere (its pair is the caller's business). */
  private forget(o: TriggerOrder): void {
    if (o.armed) {
      this.index.remove(o);
      o.armed = false;
    }
    this.triggers.delete(o.orderId);
    removeFrom(this.triggersByOwner, o.owner, o);
    if (o.expirySlot >= 0) this.expiries.remove(o);
  }

  /** A fired order enters the book; its pair's other leg is cancelled. */
  private trigger(o: TriggerOrder, time: number): void {
    const pair = o.pair;
    // A trailing stop's trigger moved with its anchor: the index recorded where it fired.
    const triggerPrice = o.trailing ? o.firedTrigger : o.triggerPrice;
    this.forget(o);
    this.listener.onRelease(toPlaceOrder(o, time), Release.Triggered, NO_ORDER, time, triggerPrice);
    if (pair !== null) {
      this.pairs.drop(pair);
      const other = pair.other(o);
      this.forget(other);
      this.listener.onCancelled(other.orderId, other.owner, ConditionalReason.OcoTriggered, time);
    }
  }

  /** Ends an untriggered order for `reason`; a pair leg takes its sibling with it (`siblingReason`). */
  private endTrigger(o: TriggerOrder, reason: number, siblingReason: number, time: number): void {
    if (o.pair !== null) {
      this.endPair(o.pair, o, reason, siblingReason, time);
      return;
    }
    this.forget(o);
    this.listener.onCancelled(o.orderId, o.owner, reason, time);
  }

  /** Ends both legs: `first` (or, when null, the lower orderId) with `reason`, the other with `otherReason`. */
  private endPair(pair: Pair, first: TriggerOrder | null, reason: number, otherReason: number, time: number): void {
    const a = first ?? pair.legs()[0];
    const b = pair.other(a);
    this.pairs.drop(pair);
    this.forget(a);
    this.forget(b);
    this.listener.onCancelled(a.orderId, a.owner, reason, time);
    this.listener.onCancelled(b.orderId, b.owner, otherReason, time);
  }

  /** The parent filled `quantity` more lots: each leg's quantity follows, and the pair arms (or fires, if already crossed). */
  private parentFilled(pair: Pair, quantity: number, time: number): void {
    pair.filled += quantity;
    for (const leg of pair.legs()) {
      const armedQuantity = Math.min(pair.filled, leg.quantity);
      if (armedQuantity !== leg.armedQuantity) {
        leg.armedQuantity = armedQuantity;
        this.listener.onArmed(leg.orderId, leg.owner, armedQuantity, time);
      }
    }
    if (pair.takeProfit.armed) return;
    const mark = this.lastMark;
    for (const leg of pair.legs()) {
      if (mark > 0 && crossed(leg.sense, leg.triggerPrice, mark)) {
        this.trigger(leg, time);
        return;
      }
    }
    this.arm(pair.takeProfit);
    this.arm(pair.stopLoss);
  }

  /** The parent left the book: pairs it never filled end; the others stay armed, detached. */
  private parentGone(parentOrderId: OrderId, time: number): void {
    for (const pair of this.pairs.detachParent(parentOrderId)) {
      if (pair.filled === 0) this.endPair(pair, null, ConditionalReason.ParentCancelled, ConditionalReason.ParentCancelled, time);
    }
  }

  private view(o: TriggerOrder): TriggerView {
    // A trailing stop is never a pair leg, so it is armed for as long as it is untriggered.
    return triggerView(o, o.trailing ? this.index.anchorOf(o) : 0);
  }
}
