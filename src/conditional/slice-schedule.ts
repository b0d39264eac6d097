/**
 * @module conditional/slice-schedule
 *
 * The conditional book's TWAPs and icebergs (`SliceGroup`s): checking a new group, releasing
 * its slices (a TWAP on its timer, an iceberg when the slice on the book is fully filled),
 * cancelling what is still pending, and their part of the snapshot and of validation.
 *
 * Invariants: every unreleased slice is in `pendingSlices` under its group; a TWAP with slices
 * left is on the `dueTwaps` timer and never has a live slice; an iceberg is never on the timer
 * and its `liveSliceId` is the last slice released (0 before the first). A group leaves every
 * index when it ends, with one `onGroupEnded`.
 * Complexity: releasing a TWAP slice O(log g) for g TWAPs; an iceberg step O(1); cancelling
 * O(slices left).
 * May import: types/ids, conditional/.
 */
import { ConditionalCode, ConditionalReason, GroupEnd } from './codes.ts';
import { IndexedHeap } from './indexed-heap.ts';
import { isCount } from './order-checks.ts';
import type { TakenIds } from './order-checks.ts';
import { addTo, removeFrom } from './owner-sets.ts';
import { SliceGroup } from './slice-group.ts';
import { Release } from './types.ts';
import type { ConditionalListener, ConditionalSnapshot, PlaceSlices, SlicesView } from './types.ts';
import { NO_ORDER, type OrderId, type OwnerIndex } from '../types/ids.ts';

/** What the schedule tells the outside: released slices, cancelled slices, ended groups. */
export type SliceListener = Pick<ConditionalListener, 'onRelease' | 'onCancelled' | 'onGroupEnded'>;

export class SliceSchedule {
  private readonly groups = new Map<number, SliceGroup>();
  private readonly groupsByOwner = new Map<OwnerIndex, Set<SliceGroup>>();
  /** Unreleased slices by orderId, and iceberg slices resting on the book. */
  private readonly pendingSlices = new Map<number, SliceGroup>();
  private readonly liveIcebergSlices = new Map<number, SliceGroup>();
  private readonly dueTwaps = new IndexedHeap<SliceGroup>(
    (a, b) => a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.groupId < b.groupId),
    (g) => g.slot,
    (g, slot) => { g.slot = slot; },
  );

  constructor(
    private readonly listener: SliceListener,
    private readonly maxSlices: number,
  ) {}

  /** `orderId` is an unreleased slice. */
  has(orderId: number): boolean {
    return this.pendingSlices.has(orderId);
  }

  /** The first failing check of a new TWAP's or iceberg's slices (ids also against `taken`: untriggered orders), or Ok. */
  check(cmd: PlaceSlices, taken: TakenIds): number {
    const slices = cmd.slices;
    if (this.groups.has(cmd.groupId)) return ConditionalCode.GroupIdExists;
    if (slices.length === 0 || slices.length > this.maxSlices) return ConditionalCode.InvalidSlices;
    const first = slices[0];
    const ids = new Set<number>();
    for (const s of slices) {
      if (s.owner !== cmd.owner || s.account !== first.account || s.side !== first.side) return ConditionalCode.InvalidSlices;
      if (!isCount(s.quantity)) return ConditionalCode.InvalidQuantity;
      if (!isCount(s.price)) return ConditionalCode.InvalidPrice;
      if (ids.has(s.orderId) || taken.has(s.orderId) || this.pendingSlices.has(s.orderId)) return ConditionalCode.OrderIdExists;
      ids.add(s.orderId);
    }
    return ConditionalCode.Ok;
  }

  /** A checked TWAP: slice 0 is released now, slice i at time + i × period. */
  placeTwap(cmd: PlaceSlices, time: number): void {
    const g = this.insertGroup(cmd, 'twap');
    g.dueAt = time;
    this.releaseDueTwap(g, time);
  }

  /** A checked iceberg: slice 0 is released now. */
  placeIceberg(cmd: PlaceSlices, time: number): void {
    this.releaseIcebergSlice(this.insertGroup(cmd, 'iceberg'), time);
  }

  /** Releases the TWAP slices due by `time`, earliest (then lowest groupId) first. */
  releaseDue(time: number): void {
    for (let g = this.dueTwaps.peek(); g !== undefined && g.dueAt <= time; g = this.dueTwaps.peek()) this.releaseDueTwap(g, time);
  }

  /** When the next TWAP slice falls due (ms), 0 when none. */
  nextDueAt(): number {
    return this.dueTwaps.peek()?.dueAt ?? 0;
  }

  /** A book order filled: a fully filled iceberg slice releases the next, or completes its group. */
  onFill(orderId: OrderId, remaining: number, time: number): void {
    if (remaining !== 0) return;
    const g = this.liveIcebergSlices.get(orderId);
    if (g === undefined) return;
    this.liveIcebergSlices.delete(orderId);
    g.liveSliceId = NO_ORDER;
    if (g.next < g.slices.length) this.releaseIcebergSlice(g, time);
    else this.endGroup(g, GroupEnd.Completed, time);
  }

  /** A book order left unfilled: an iceberg whose slice it was cancels the rest. */
  onOrderGone(orderId: OrderId, time: number): void {
    const g = this.liveIcebergSlices.get(orderId);
    if (g !== undefined) this.cancelRest(g, ConditionalReason.IcebergSliceUnfilled, time);
  }

  /** Cancels the unreleased rest of the group a pending slice belongs to. */
  cancelBySlice(orderId: OrderId, owner: OwnerIndex, reason: number, time: number): number {
    return this.cancelOwned(this.pendingSlices.get(orderId), owner, reason, time);
  }

  /** Cancels the unreleased slices of a TWAP or iceberg (slices already on the book stay there). */
  cancelGroup(groupId: OrderId, owner: OwnerIndex, reason: number, time: number): number {
    return this.cancelOwned(this.groups.get(groupId), owner, reason, time);
  }

  /** Cancels every group of `owner`, ascending groupId; returns how many slices ended. */
  cancelAll(owner: OwnerIndex, reason: number, time: number): number {
    let ended = 0;
    const groups = [...(this.groupsByOwner.get(owner) ?? [])].sort((a, b) => a.groupId - b.groupId);
    for (const g of groups) {
      ended += g.slices.length - g.next;
      this.cancelRest(g, reason, time);
    }
    return ended;
  }

  group(groupId: OrderId): SlicesView | undefined {
    const g = this.groups.get(groupId);
    return g === undefined ? undefined : groupView(g);
  }

  /** The owner's TWAPs and icebergs, ascending groupId. */
  groupsOf(owner: OwnerIndex): SlicesView[] {
    return [...(this.groupsByOwner.get(owner) ?? [])].sort((a, b) => a.groupId - b.groupId).map(groupView);
  }

  snapshot(): ConditionalSnapshot['groups'] {
    return [...this.groups.values()].sort((a, b) => a.groupId - b.groupId).map((g) => ({
      groupId: g.groupId,
      owner: g.owner,
      kind: g.kind,
      period: g.period,
      next: g.next,
      dueAt: g.dueAt,
      liveSliceId: g.liveSliceId,
      slices: g.slices.map((s) => ({ ...s })),
    }));
  }

  /** Puts back the groups of a snapshot (into an empty schedule). */
  restore(groups: ConditionalSnapshot['groups']): void {
    for (const s of groups) {
      const g = new SliceGroup(s.groupId, s.owner, s.kind, s.period, s.slices.map((x) => ({ ...x })));
      g.next = s.next;
      g.dueAt = s.dueAt;
      g.liveSliceId = s.liveSliceId;
      this.groups.set(g.groupId, g);
      addTo(this.groupsByOwner, g.owner, g);
      for (let i = g.next; i < g.slices.length; i++) this.pendingSlices.set(g.slices[i].orderId, g);
      if (g.kind === 'twap') this.dueTwaps.push(g);
      else if (g.liveSliceId !== 0) this.liveIcebergSlices.set(g.liveSliceId, g);
    }
  }

  /** Throws an Error naming the first broken invariant of the groups and their indexes. */
  validate(): void {
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
    this.dueTwaps.validate('TWAP timer');
  }

  private cancelOwned(g: SliceGroup | undefined, owner: OwnerIndex, reason: number, time: number): number {
    if (g === undefined) return ConditionalCode.OrderNotFound;
    if (g.owner !== owner) return ConditionalCode.NotOwner;
    this.cancelRest(g, reason, time);
    return ConditionalCode.Ok;
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
