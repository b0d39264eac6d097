/**
 * @module conditional/conditional-book
 *
 * `ConditionalBook`: the conditional and algorithmic orders of one market — untriggered
 * takeProfit / stopLoss / trailingStop orders, TP/SL pairs (OCO groups), TWAPs and icebergs —
 * as a pure state machine driven beside the order book. Semantics in the module header of
 * conditional/index.ts and in docs/conditional-orders.md.
 * May import: types/ids, conditional/, engine/types, engine/codes, config/market (RATE_ONE), numeric/state-hash.
 */
import { stateHashOf } from '../numeric/state-hash.ts';
import { RATE_ONE } from '../config/market.ts';
import type { PlaceOrder } from '../engine/types.ts';
import { ConditionalCode, ConditionalReason, GroupEnd } from './codes.ts';
import { IndexedHeap } from './indexed-heap.ts';
import { NaiveTriggerIndex } from './naive-trigger-index.ts';
import { OcoPair } from './oco-pair.ts';

/** A TP/SL pair of this book's trigger records. */
type Pair = OcoPair<TriggerOrder>;
import { SliceGroup } from './slice-group.ts';
import { FastTriggerIndex } from './trigger-index.ts';
import type { TriggerIndex } from './trigger-index.ts';
import { crossed, senseOf, trailingTrigger } from './trigger-math.ts';
import { TriggerOrder } from './trigger-order.ts';
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
import { NO_ORDER, type MarketIndex, type OrderId } from '../types/ids.ts';

export interface ConditionalBookOptions {
  /** `fast` (default) or `naive`: the scan-every-order reference index, for tests and the benchmark baseline. */
  index?: 'fast' | 'naive';
  /** Most slices a TWAP or iceberg may have. Default 10,000. */
  maxSlices?: number;
}

const isCount = (n: number): boolean => Number.isSafeInteger(n) && n > 0;

export class ConditionalBook {
  private lastMark = 0;
  private readonly index: TriggerIndex;
  private readonly maxSlices: number;
  /** Untriggered orders by orderId. */
  private readonly triggers = new Map<number, TriggerOrder>();
  private readonly triggersByOwner = new Map<number, Set<TriggerOrder>>();
  private readonly pairs = new Map<number, Pair>();
  private readonly pairsByParent = new Map<number, Pair[]>();
  /** Position-attached pairs by owner: checked on every position change of that owner. */
  private readonly positionPairs = new Map<number, Set<Pair>>();
  private readonly groups = new Map<number, SliceGroup>();
  private readonly groupsByOwner = new Map<number, Set<SliceGroup>>();
  /** Unreleased slices by orderId, and iceberg slices resting on the book. */
  private readonly pendingSlices = new Map<number, SliceGroup>();
  private readonly liveIcebergSlices = new Map<number, SliceGroup>();
  private readonly expiries = new IndexedHeap<TriggerOrder>(
    (a, b) => a.expiresAt < b.expiresAt || (a.expiresAt === b.expiresAt && a.orderId < b.orderId),
    (o) => o.expirySlot,
    (o, slot) => { o.expirySlot = slot; },
  );
  private readonly dueTwaps = new IndexedHeap<SliceGroup>(
    (a, b) => a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.groupId < b.groupId),
    (g) => g.slot,
    (g, slot) => { g.slot = slot; },
  );
  /** Reused by every mark update: the orders it fires. */
  private readonly firing: TriggerOrder[] = [];

  constructor(
    readonly marketIndex: MarketIndex,
    private readonly listener: ConditionalListener,
    options: ConditionalBookOptions = {},
  ) {
    this.index = options.index === 'naive' ? new NaiveTriggerIndex() : new FastTriggerIndex();
    this.maxSlices = options.maxSlices ?? 10_000;
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
    const code = this.check(cmd) || this.checkMark(cmd);
    if (code !== ConditionalCode.Ok) return code;
    const o = this.insert(cmd);
    this.arm(o);
    return ConditionalCode.Ok;
  }

  /** Places a TP/SL pair attached to the position (parentOrderId 0) or to a resting parent order. */
  placePair(cmd: PlacePair): number {
    this.advance(cmd.time);
    const { takeProfit: tp, stopLoss: sl } = cmd;
    if (tp.kind !== TriggerKind.TakeProfit || sl.kind !== TriggerKind.StopLoss) return ConditionalCode.InvalidPair;
    const code = this.check(tp) || this.check(sl);
    if (code !== ConditionalCode.Ok) return code;
    if (tp.orderId === sl.orderId) return ConditionalCode.OrderIdExists;
    if (tp.owner !== sl.owner || tp.account !== sl.account || tp.side !== sl.side) return ConditionalCode.InvalidPair;
    // The take-profit lies beyond the stop in the direction of profit.
    if (tp.side * tp.triggerPrice >= tp.side * sl.triggerPrice) return ConditionalCode.InvalidPair;
    if (this.pairs.has(cmd.ocoGroupId)) return ConditionalCode.GroupIdExists;
    if (cmd.parentOrderId !== 0) {
      const parent = cmd.parent;
      if (parent === undefined || parent.orderId !== cmd.parentOrderId) return ConditionalCode.ParentNotFound;
      if (parent.owner !== tp.owner) return ConditionalCode.NotOwner;
      if (parent.side !== -tp.side) return ConditionalCode.InvalidPair;
    } else if (cmd.position * tp.side >= 0) {
      return ConditionalCode.NoPositionToClose;
    }
    const crossedCode = this.checkMark(tp) || this.checkMark(sl);
    if (crossedCode !== ConditionalCode.Ok) return crossedCode;
    const takeProfit = this.insert(tp);
    const stopLoss = this.insert(sl);
    const parentLive = cmd.parentOrderId !== 0;
    const pair = new OcoPair(cmd.ocoGroupId, takeProfit, stopLoss, cmd.parentOrderId, parentLive, 0);
    takeProfit.pair = pair;
    stopLoss.pair = pair;
    this.pairs.set(pair.ocoGroupId, pair);
    if (parentLive) {
      takeProfit.armedQuantity = 0;
      stopLoss.armedQuantity = 0;
      const list = this.pairsByParent.get(pair.parentOrderId);
      if (list === undefined) this.pairsByParent.set(pair.parentOrderId, [pair]);
      else list.push(pair);
      const filled = cmd.parent?.filled ?? 0;
      if (filled > 0) this.parentFilled(pair, filled, cmd.time);
    } else {
      addTo(this.positionPairs, pair.owner, pair);
      this.arm(takeProfit);
      this.arm(stopLoss);
    }
    return ConditionalCode.Ok;
  }

  /** Places a TWAP: slice 0 is released now, slice i at time + i × period. */
  placeTwap(cmd: PlaceSlices): number {
    this.advance(cmd.time);
    if (!isCount(cmd.period)) return ConditionalCode.InvalidPeriod;
    const code = this.checkSlices(cmd);
    if (code !== ConditionalCode.Ok) return code;
    const g = this.insertGroup(cmd, 'twap');
    g.dueAt = cmd.time;
    this.releaseDueTwap(g, cmd.time);
    return ConditionalCode.Ok;
  }

  /** Places an iceberg: slice 0 is released now, each next one when the previous is fully filled. */
  placeIceberg(cmd: PlaceSlices): number {
    this.advance(cmd.time);
    const code = this.checkSlices(cmd);
    if (code !== ConditionalCode.Ok) return code;
    this.releaseIcebergSlice(this.insertGroup(cmd, 'iceberg'), cmd.time);
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
   * 0 when none. The pipeline's timer journals a `Release` at that time, so a slice enters at its
   * due time, not at the next clock tick, and a replay releases it at the same point.
   */
  nextDueAt(): number {
    const twap = this.dueTwaps.peek()?.dueAt ?? 0;
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
    const attached = this.pairsByParent.get(orderId);
    if (attached !== undefined) {
      for (const pair of attached.slice()) this.parentFilled(pair, quantity, time);
      // A pair that fired at arming has already left the parent's list.
      if (remaining === 0 && this.pairsByParent.has(orderId)) this.parentGone(orderId, time);
    }
    if (remaining === 0) {
      const g = this.liveIcebergSlices.get(orderId);
      if (g !== undefined) {
        this.liveIcebergSlices.delete(orderId);
        g.liveSliceId = NO_ORDER;
        if (g.next < g.slices.length) this.releaseIcebergSlice(g, time);
        else this.endGroup(g, GroupEnd.Completed, time);
      }
    }
    return ConditionalCode.Ok;
  }

  /** A book order left the book with lots unfilled (cancelled, expired, IOC remainder, rejected). */
  onOrderGone(orderId: OrderId, time: number): number {
    this.advance(time);
    if (this.pairsByParent.has(orderId)) this.parentGone(orderId, time);
    const g = this.liveIcebergSlices.get(orderId);
    if (g !== undefined) this.cancelRest(g, ConditionalReason.IcebergSliceUnfilled, time);
    return ConditionalCode.Ok;
  }

  /** The owner's position in this market is now `lots` (signed): pairs it no longer leaves anything to close end. */
  onPosition(owner: number, lots: number, time: number): number {
    this.advance(time);
    const attached = this.positionPairs.get(owner);
    if (attached === undefined) return ConditionalCode.Ok;
    const closed: Pair[] = [];
    for (const pair of attached) if (lots * pair.side >= 0) closed.push(pair);
    closed.sort((a, b) => a.ocoGroupId - b.ocoGroupId);
    for (const pair of closed) this.endPair(pair, null, ConditionalReason.PositionClosed, ConditionalReason.PositionClosed, time);
    return ConditionalCode.Ok;
  }

  /** Cancels an untriggered order (a pair leg: both legs), or the unreleased rest of the TWAP / iceberg a pending slice belongs to. */
  cancel(orderId: OrderId, owner: number, time: number): number {
    this.advance(time);
    const o = this.triggers.get(orderId);
    if (o !== undefined) {
      if (o.owner !== owner) return ConditionalCode.NotOwner;
      this.endTrigger(o, ConditionalReason.Cancelled, ConditionalReason.Cancelled, time);
      return ConditionalCode.Ok;
    }
    const g = this.pendingSlices.get(orderId);
    if (g === undefined) return ConditionalCode.OrderNotFound;
    if (g.owner !== owner) return ConditionalCode.NotOwner;
    this.cancelRest(g, ConditionalReason.Cancelled, time);
    return ConditionalCode.Ok;
  }

  /** Cancels the unreleased slices of a TWAP or iceberg (slices already on the book stay there). */
  cancelGroup(groupId: OrderId, owner: number, time: number): number {
    this.advance(time);
    const g = this.groups.get(groupId);
    if (g === undefined) return ConditionalCode.OrderNotFound;
    if (g.owner !== owner) return ConditionalCode.NotOwner;
    this.cancelRest(g, ConditionalReason.Cancelled, time);
    return ConditionalCode.Ok;
  }

  /** Cancels every untriggered order (ascending orderId), then every TWAP / iceberg (ascending groupId) of `owner`; returns how many orders and slices ended. */
  cancelAll(owner: number, time: number, reason: number): number {
    this.advance(time);
    let ended = 0;
    const own = [...(this.triggersByOwner.get(owner) ?? [])].sort((a, b) => a.orderId - b.orderId);
    for (const o of own) {
      if (this.triggers.get(o.orderId) !== o) continue;
      ended += o.pair === null ? 1 : 2;
      this.endTrigger(o, reason, reason, time);
    }
    const groups = [...(this.groupsByOwner.get(owner) ?? [])].sort((a, b) => a.groupId - b.groupId);
    for (const g of groups) {
      ended += g.slices.length - g.next;
      this.cancelRest(g, reason, time);
    }
    return ended;
  }

  // ---- reads ------------------------------------------------------------------------------

  order(orderId: OrderId): TriggerView | undefined {
    const o = this.triggers.get(orderId);
    return o === undefined ? undefined : this.view(o);
  }

  /** The owner's untriggered orders, ascending orderId. */
  ordersOf(owner: number): TriggerView[] {
    return [...(this.triggersByOwner.get(owner) ?? [])].sort((a, b) => a.orderId - b.orderId).map((o) => this.view(o));
  }

  group(groupId: OrderId): SlicesView | undefined {
    const g = this.groups.get(groupId);
    return g === undefined ? undefined : groupView(g);
  }

  /** The owner's TWAPs and icebergs, ascending groupId. */
  groupsOf(owner: number): SlicesView[] {
    return [...(this.groupsByOwner.get(owner) ?? [])].sort((a, b) => a.groupId - b.groupId).map(groupView);
  }

  // ---- state ------------------------------------------------------------------------------

  snapshot(): ConditionalSnapshot {
    const triggers = [...this.triggers.values()].sort((a, b) => a.orderId - b.orderId).map((o) => {
      const v = this.view(o);
      return { ...v, trailingPercent: v.trailingPercent.toString() };
    });
    const pairs = [...this.pairs.values()].sort((a, b) => a.ocoGroupId - b.ocoGroupId).map((p) => ({
      ocoGroupId: p.ocoGroupId,
      takeProfitId: p.takeProfit.orderId,
      stopLossId: p.stopLoss.orderId,
      parentOrderId: p.parentOrderId,
      parentLive: p.parentLive,
      filled: p.filled,
    }));
    const groups = [...this.groups.values()].sort((a, b) => a.groupId - b.groupId).map((g) => ({
      groupId: g.groupId,
      owner: g.owner,
      kind: g.kind,
      period: g.period,
      next: g.next,
      dueAt: g.dueAt,
      liveSliceId: g.liveSliceId,
      slices: g.slices.map((s) => ({ ...s })),
    }));
    return { marketIndex: this.marketIndex, lastMark: this.lastMark, triggers, pairs, groups };
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
      book.pairs.set(pair.ocoGroupId, pair);
      if (pair.positionAttached) addTo(book.positionPairs, pair.owner, pair);
      if (pair.parentLive) {
        const list = book.pairsByParent.get(pair.parentOrderId);
        if (list === undefined) book.pairsByParent.set(pair.parentOrderId, [pair]);
        else list.push(pair);
      }
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
    for (const s of snapshot.groups) {
      const g = new SliceGroup(s.groupId, s.owner, s.kind, s.period, s.slices.map((x) => ({ ...x })));
      g.next = s.next;
      g.dueAt = s.dueAt;
      g.liveSliceId = s.liveSliceId;
      book.groups.set(g.groupId, g);
      addTo(book.groupsByOwner, g.owner, g);
      for (let i = g.next; i < g.slices.length; i++) book.pendingSlices.set(g.slices[i].orderId, g);
      if (g.kind === 'twap') book.dueTwaps.push(g);
      else if (g.liveSliceId !== 0) book.liveIcebergSlices.set(g.liveSliceId, g);
    }
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
      if (this.pendingSlices.has(id)) throw new Error(`order ${id}: both untriggered and a pending slice`);
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
    for (const pair of this.pairs.values()) {
      if (this.triggers.get(pair.takeProfit.orderId) !== pair.takeProfit || this.triggers.get(pair.stopLoss.orderId) !== pair.stopLoss) {
        throw new Error(`pair ${pair.ocoGroupId}: a leg is not untriggered`);
      }
      if (pair.positionAttached !== (this.positionPairs.get(pair.owner)?.has(pair) === true)) throw new Error(`pair ${pair.ocoGroupId}: position index disagrees`);
      if (pair.parentLive !== (this.pairsByParent.get(pair.parentOrderId)?.includes(pair) === true)) throw new Error(`pair ${pair.ocoGroupId}: parent index disagrees`);
    }
    for (const list of this.pairsByParent.values()) for (const pair of list) if (this.pairs.get(pair.ocoGroupId) !== pair) throw new Error('parent index holds a dead pair');
    for (const set of this.positionPairs.values()) for (const pair of set) if (this.pairs.get(pair.ocoGroupId) !== pair) throw new Error('position index holds a dead pair');
    let pending = 0;
    for (const [id, g] of this.groups) {
      if (g.groupId !== id || this.groupsByOwner.get(g.owner)?.has(g) !== true) throw new Error(`group ${id}: indexes disagree`);
      if (g.next >= g.slices.length && !(g.kind === 'iceberg' && g.liveSliceId !== 0 && g.next === g.slices.length)) throw new Error(`group ${id}: nothing left to do`);
      for (let i = g.next; i < g.slices.length; i++) if (this.pendingSlices.get(g.slices[i].orderId) !== g) throw new Error(`group ${id}: slice ${i} not pending`);
      pending += g.slices.length - g.next;
      if (g.kind === 'twap' && (!this.dueTwaps.has(g) || g.liveSliceId !== 0)) throw new Error(`group ${id}: TWAP not on the timer`);
      if (g.kind === 'iceberg') {
        if (this.dueTwaps.has(g)) throw new Error(`group ${id}: iceberg on the timer`);
        const live = g.next > 0 ? g.slices[g.next - 1].orderId : 0;
        if (g.liveSliceId !== live || this.liveIcebergSlices.get(live) !== g) throw new Error(`group ${id}: live slice ${g.liveSliceId} should be ${live}`);
      }
    }
    if (pending !== this.pendingSlices.size) throw new Error('pending slice index holds dead slices');
    if (this.liveIcebergSlices.size !== [...this.groups.values()].filter((g) => g.kind === 'iceberg').length) throw new Error('live iceberg slice index disagrees');
    this.expiries.validate('expiry heap');
    this.dueTwaps.validate('TWAP timer');
    if (this.expiries.size !== [...this.triggers.values()].filter((o) => o.expiresAt > 0).length) throw new Error('expiry heap holds dead orders');
  }

  // ---- internals -----------------------------------------------------------------------------

  /** Every command first: expire untriggered orders due by `time`, then release TWAP slices due by `time`. */
  private advance(time: number): void {
    for (let o = this.expiries.peek(); o !== undefined && o.expiresAt <= time; o = this.expiries.peek()) {
      this.endTrigger(o, ConditionalReason.ExpiresAtReached, ConditionalReason.OcoExpired, time);
    }
    for (let g = this.dueTwaps.peek(); g !== undefined && g.dueAt <= time; g = this.dueTwaps.peek()) this.releaseDueTwap(g, time);
  }

  /** The first failing check of a trigger order's own fields, or Ok. */
  private check(cmd: PlaceTrigger): number {
    if (cmd.kind !== TriggerKind.TakeProfit && cmd.kind !== TriggerKind.StopLoss && cmd.kind !== TriggerKind.TrailingStop) return ConditionalCode.InvalidKind;
    if (!isCount(cmd.quantity)) return ConditionalCode.InvalidQuantity;
    if (!isCount(cmd.price)) return ConditionalCode.InvalidPrice;
    if (cmd.kind === TriggerKind.TrailingStop) {
      if (cmd.triggerPrice !== 0) return ConditionalCode.InvalidTrigger;
      if (cmd.trailingPercent <= 0n || cmd.trailingPercent >= RATE_ONE) return ConditionalCode.InvalidTrailingPercent;
    } else {
      if (!isCount(cmd.triggerPrice)) return ConditionalCode.InvalidTrigger;
      if (cmd.trailingPercent !== 0n) return ConditionalCode.InvalidTrailingPercent;
    }
    if (cmd.expiresAt !== 0 && cmd.expiresAt <= cmd.time) return ConditionalCode.AlreadyExpired;
    if (this.triggers.has(cmd.orderId) || this.pendingSlices.has(cmd.orderId)) return ConditionalCode.OrderIdExists;
    return ConditionalCode.Ok;
  }

  /** A trailing stop needs a mark to anchor to; a fixed trigger must not be crossed by it already. */
  private checkMark(cmd: PlaceTrigger): number {
    if (cmd.kind === TriggerKind.TrailingStop) {
      if (this.lastMark === 0) return ConditionalCode.MarkPriceUnknown;
    } else if (this.lastMark > 0 && crossed(senseOf(cmd.kind, cmd.side), cmd.triggerPrice, this.lastMark)) {
      return ConditionalCode.TriggerAlreadyCrossed;
    }
    return ConditionalCode.Ok;
  }

  private checkSlices(cmd: PlaceSlices): number {
    const slices = cmd.slices;
    if (this.groups.has(cmd.groupId)) return ConditionalCode.GroupIdExists;
    if (slices.length === 0 || slices.length > this.maxSlices) return ConditionalCode.InvalidSlices;
    const first = slices[0];
    const ids = new Set<number>();
    for (const s of slices) {
      if (s.owner !== cmd.owner || s.account !== first.account || s.side !== first.side) return ConditionalCode.InvalidSlices;
      if (!isCount(s.quantity)) return ConditionalCode.InvalidQuantity;
      if (!isCount(s.price)) return ConditionalCode.InvalidPrice;
      if (ids.has(s.orderId) || this.triggers.has(s.orderId) || this.pendingSlices.has(s.orderId)) return ConditionalCode.OrderIdExists;
      ids.add(s.orderId);
    }
    return ConditionalCode.Ok;
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
      this.dropPair(pair);
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
    this.dropPair(pair);
    this.forget(a);
    this.forget(b);
    this.listener.onCancelled(a.orderId, a.owner, reason, time);
    this.listener.onCancelled(b.orderId, b.owner, otherReason, time);
  }

  private dropPair(pair: Pair): void {
    this.pairs.delete(pair.ocoGroupId);
    if (pair.positionAttached) removeFrom(this.positionPairs, pair.owner, pair);
    if (pair.parentLive) {
      const list = this.pairsByParent.get(pair.parentOrderId) as Pair[];
      list.splice(list.indexOf(pair), 1);
      if (list.length === 0) this.pairsByParent.delete(pair.parentOrderId);
    }
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
    const list = this.pairsByParent.get(parentOrderId) as Pair[];
    this.pairsByParent.delete(parentOrderId);
    for (const pair of list) pair.parentLive = false;
    for (const pair of list) {
      if (pair.filled === 0) this.endPair(pair, null, ConditionalReason.ParentCancelled, ConditionalReason.ParentCancelled, time);
    }
  }

  private insertGroup(cmd: PlaceSlices, kind: 'twap' | 'iceberg'): SliceGroup {
    const g = new SliceGroup(cmd.groupId, cmd.owner, kind, kind === 'twap' ? cmd.period : 0, cmd.slices.map((s) => ({ ...s })));
    this.groups.set(g.groupId, g);
    addTo(this.groupsByOwner, g.owner, g);
    for (const s of g.slices) this.pendingSlices.set(s.orderId, g);
    return g;
  }

  /** Releases the TWAP's slice that is due, then reschedules or ends it. */
  private releaseDueTwap(g: SliceGroup, time: number): void {
    const slice = g.slices[g.next++];
    this.pendingSlices.delete(slice.orderId);
    if (g.next === g.slices.length) {
      if (g.slot >= 0) this.dueTwaps.remove(g);
    } else {
      g.dueAt += g.period;
      if (g.slot >= 0) this.dueTwaps.update(g);
      else this.dueTwaps.push(g);
    }
    this.listener.onRelease({ ...slice, position: 0, time }, Release.TwapSlice, g.groupId, time, 0);
    if (g.next === g.slices.length) this.endGroup(g, GroupEnd.Completed, time);
  }

  private releaseIcebergSlice(g: SliceGroup, time: number): void {
    const slice = g.slices[g.next++];
    this.pendingSlices.delete(slice.orderId);
    g.liveSliceId = slice.orderId;
    this.liveIcebergSlices.set(slice.orderId, g);
    this.listener.onRelease({ ...slice, position: 0, time }, Release.IcebergSlice, g.groupId, time, 0);
  }

  /** Cancels the unreleased slices, ascending, then ends the group for `reason`. */
  private cancelRest(g: SliceGroup, reason: number, time: number): void {
    const rest = g.slices.slice(g.next);
    g.next = g.slices.length;
    for (const s of rest) this.pendingSlices.delete(s.orderId);
    for (const s of rest) this.listener.onCancelled(s.orderId, g.owner, reason, time);
    this.endGroup(g, reason, time);
  }

  private endGroup(g: SliceGroup, how: number, time: number): void {
    this.groups.delete(g.groupId);
    removeFrom(this.groupsByOwner, g.owner, g);
    if (g.slot >= 0) this.dueTwaps.remove(g);
    if (g.liveSliceId !== 0) this.liveIcebergSlices.delete(g.liveSliceId);
    this.listener.onGroupEnded(g.groupId, g.owner, how, time);
  }

  private view(o: TriggerOrder): TriggerView {
    // A trailing stop is never a pair leg, so it is armed for as long as it is untriggered.
    const anchor = o.trailing ? this.index.anchorOf(o) : 0;
    return {
      orderId: o.orderId,
      owner: o.owner,
      account: o.account,
      side: o.side,
      kind: o.kind,
      price: o.price,
      quantity: o.quantity,
      flags: o.flags,
      expiresAt: o.expiresAt,
      clientId: o.clientId,
      triggerPrice: o.trailing ? trailingTrigger(anchor, o.percent, o.sense) : o.triggerPrice,
      trailingPercent: BigInt(o.percent),
      anchor,
      ocoGroupId: o.pair === null ? NO_ORDER : o.pair.ocoGroupId,
      parentOrderId: o.pair === null ? NO_ORDER : o.pair.parentOrderId,
      armedQuantity: o.armedQuantity,
      createdAt: o.createdAt,
    };
  }
}

function toPlaceOrder(o: TriggerOrder, time: number): PlaceOrder {
  return {
    orderId: o.orderId,
    owner: o.owner,
    account: o.account,
    side: o.side,
    price: o.price,
    quantity: o.armedQuantity,
    flags: o.flags,
    expiresAt: o.expiresAt,
    clientId: o.clientId,
    position: 0,
    time,
  };
}

function groupView(g: SliceGroup): SlicesView {
  return {
    groupId: g.groupId,
    owner: g.owner,
    kind: g.kind,
    period: g.period,
    next: g.next,
    slices: g.slices.length,
    dueAt: g.kind === 'twap' ? g.dueAt : 0,
    liveSliceId: g.liveSliceId,
  };
}

function addTo<T>(map: Map<number, Set<T>>, key: number, value: T): void {
  const set = map.get(key);
  if (set === undefined) map.set(key, new Set([value]));
  else set.add(value);
}

function removeFrom<T>(map: Map<number, Set<T>>, key: number, value: T): void {
  const set = map.get(key);
  if (set === undefined) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
