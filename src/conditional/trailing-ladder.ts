/**
 * @module conditional/trailing-ladder
 *
 * The trailing stops of one sense (see trigger-math), indexed so that a mark update costs
 * O(log n) amortised plus O(log n) per stop that fires — never a pass over the stops that do not.
 *
 * Idea. A stop's anchor is the best mark key since it was placed, so after a mark key m every
 * anchor below m becomes m: stops placed at different times end up sharing anchors. Stops with
 * the same anchor form a *bucket*; the buckets form a ladder sorted by anchor key, its top the
 * lowest, which is never below the last mark key. A new mark key m:
 *  1. fires: within a bucket the trigger key ⌊A·(1 − sense·p)⌋ falls as p grows, so each bucket
 *     is a pairing heap by p (smallest first) and its *key* is its smallest-p stop's trigger key.
 *     A max-heap of buckets by key gives the buckets with something to fire; each pops stops
 *     while they fire, then is re-keyed. A stop that fires at m is one whose anchor stays above m.
 *  2. raises: the buckets at the top with anchor key <= m melt into one bucket at m (pairing
 *     heaps meld in O(1); the members keep pointing at their old bucket, which points on to the
 *     survivor — a union-find with path compression, so no member is visited).
 * A mark creates at most one bucket and each merge removes one, so merges are O(1) amortised
 * per mark, each costing one O(log B) update of the bucket heap. Placement joins the top bucket
 * (its anchor is the last mark) or pushes a new top: O(1) + O(log n).
 *
 * Complexity: collect O((1 + k) log n) amortised for k fired; add O(log n) (restore may insert
 * below the top: O(B) walk, B buckets); remove O(log n) amortised; anchorKeyOf near O(1).
 * May import: conditional/.
 */
import { IndexedHeap } from './indexed-heap.ts';
import { PairingHeap } from './pairing-heap.ts';
import { trailingKey } from './trigger-math.ts';
import type { TriggerOrder } from './trigger-order.ts';
import { Bucket } from './trailing-bucket.ts';

const byPercent = (a: TriggerOrder, b: TriggerOrder): boolean => a.percent < b.percent || (a.percent === b.percent && a.orderId < b.orderId);

export class TrailingLadder {
  private top: Bucket<TriggerOrder> | null = null;
  private count = 0;
  private readonly heap = new PairingHeap<TriggerOrder>(byPercent);
  private readonly buckets = new IndexedHeap<Bucket<TriggerOrder>>(
    (a, b) => a.key > b.key || (a.key === b.key && a.anchorKey > b.anchorKey),
    (b) => b.slot,
    (b, slot) => { b.slot = slot; },
  );

  constructor(readonly sense: 1 | -1) {}

  get size(): number {
    return this.count;
  }

  /** Indexes a stop whose anchor key is `anchorKey` (the last mark key, or a snapshot's anchor). */
  add(o: TriggerOrder, anchorKey: number): void {
    let nearer: Bucket<TriggerOrder> | null = null;
    let at = this.top;
    while (at !== null && at.anchorKey < anchorKey) {
      nearer = at;
      at = at.down;
    }
    if (at !== null && at.anchorKey === anchorKey) {
      const root = at.root;
      at.root = this.heap.meld(root, o);
      at.size++;
      o.bucket = at;
      if (at.root !== root) this.rekey(at);
    } else {
      const fresh = new Bucket<TriggerOrder>(anchorKey);
      fresh.up = nearer;
      fresh.down = at;
      if (nearer === null) this.top = fresh;
      else nearer.down = fresh;
      if (at !== null) at.up = fresh;
      fresh.root = o;
      fresh.size = 1;
      o.bucket = fresh;
      fresh.key = trailingKey(anchorKey, o.percent, this.sense);
      this.buckets.push(fresh);
    }
    this.count++;
  }

  remove(o: TriggerOrder): void {
    const b = this.find(o);
    const root = b.root as TriggerOrder;
    b.root = this.heap.remove(root, o);
    b.size--;
    o.bucket = null;
    this.count--;
    if (b.size === 0) this.drop(b);
    else if (b.root !== root) this.rekey(b);
  }

  /** The stop's current anchor key. */
  anchorKeyOf(o: TriggerOrder): number {
    return this.find(o).anchorKey;
  }

  /** Removes and appends to `out` every stop that mark key `markKey` fires, then raises the anchors below it. */
  collect(markKey: number, out: TriggerOrder[]): void {
    for (let b = this.buckets.peek(); b !== undefined && b.key >= markKey; b = this.buckets.peek()) {
      do {
        const o = b.root as TriggerOrder;
        b.root = this.heap.pop(o);
        b.size--;
        o.bucket = null;
        o.firedTrigger = this.sense * trailingKey(b.anchorKey, o.percent, this.sense);
        out.push(o);
        this.count--;
      } while (b.root !== null && trailingKey(b.anchorKey, b.root.percent, this.sense) >= markKey);
      if (b.size === 0) this.drop(b);
      else this.rekey(b);
    }
    const keep = this.top;
    if (keep === null || keep.anchorKey >= markKey) return;
    let next = keep.down;
    while (next !== null && next.anchorKey <= markKey) {
      keep.root = this.heap.meld(keep.root, next.root);
      keep.size += next.size;
      next.root = null;
      next.into = keep;
      this.buckets.remove(next);
      next = next.down;
    }
    keep.down = next;
    if (next !== null) next.up = keep;
    keep.anchorKey = markKey;
    this.rekey(keep);
  }

  /** Throws unless the ladder is sorted, every bucket is live, non-empty and keyed by its root. */
  validate(lastMarkKey: number | null): void {
    let seen = 0;
    let buckets = 0;
    let previous: Bucket<TriggerOrder> | null = null;
    for (let b = this.top; b !== null; b = b.down) {
      buckets++;
      if (b.up !== previous) throw new Error('trailing ladder: broken up link');
      if (previous !== null && previous.anchorKey >= b.anchorKey) throw new Error('trailing ladder: anchors not increasing');
      if (b.into !== null || b.root === null || b.size <= 0) throw new Error('trailing ladder: dead or empty bucket on the ladder');
      if (!this.buckets.has(b)) throw new Error('trailing ladder: bucket missing from the bucket heap');
      if (b.key !== trailingKey(b.anchorKey, b.root.percent, this.sense)) throw new Error('trailing ladder: stale bucket key');
      let members = 0;
      this.heap.forEach(b.root, (o, parent) => {
        members++;
        if (parent !== null && byPercent(o, parent)) throw new Error('trailing ladder: pairing heap order broken');
        if (this.find(o) !== b) throw new Error(`trailing ladder: order ${o.orderId} points at another bucket`);
        if (o.sense !== this.sense || !o.trailing) throw new Error(`trailing ladder: order ${o.orderId} does not belong here`);
      });
      if (members !== b.size) throw new Error('trailing ladder: bucket size differs from its members');
      seen += members;
      previous = b;
    }
    if (seen !== this.count) throw new Error('trailing ladder: count differs from the members');
    if (buckets !== this.buckets.size) throw new Error('trailing ladder: bucket heap holds dead buckets');
    if (lastMarkKey !== null && this.top !== null && this.top.anchorKey < lastMarkKey) throw new Error('trailing ladder: an anchor lags the mark');
    this.buckets.validate('trailing bucket heap');
  }

  private find(o: TriggerOrder): Bucket<TriggerOrder> {
    let b = o.bucket as Bucket<TriggerOrder>;
    while (b.into !== null) b = b.into;
    for (let step = o.bucket as Bucket<TriggerOrder>; step !== b; ) {
      const next = step.into as Bucket<TriggerOrder>;
      step.into = b;
      step = next;
    }
    o.bucket = b;
    return b;
  }

  private rekey(b: Bucket<TriggerOrder>): void {
    b.key = trailingKey(b.anchorKey, (b.root as TriggerOrder).percent, this.sense);
    this.buckets.update(b);
  }

  private drop(b: Bucket<TriggerOrder>): void {
    if (b.up === null) this.top = b.down;
    else b.up.down = b.down;
    if (b.down !== null) b.down.up = b.up;
    b.up = null;
    b.down = null;
    this.buckets.remove(b);
  }
}
