/**
 * @module conditional/trigger-index
 *
 * Where armed takeProfit, stopLoss and trailingStop orders wait for the mark, and how a mark
 * update finds the ones it fires. `TriggerIndex` is the contract; `FastTriggerIndex` is the
 * production structure, `NaiveTriggerIndex` (naive-trigger-index.ts) the scan-every-order
 * reference the property tests and the benchmark hold it to.
 *
 * FastTriggerIndex, per sense (+1 fires on a fall, −1 on a rise; see trigger-math):
 *  - fixed triggers: a max-heap by key = sense × triggerPrice; a mark key m fires the top while
 *    top.key >= m. O(log n) per fired order, O(1) when nothing fires.
 *  - trailing stops: a `TrailingLadder` (buckets by anchor, see trailing-ladder.ts).
 * So a mark update costs O((1 + k) log n) amortised for k fired orders; the orders that do not
 * fire are not visited.
 * May import: conditional/.
 */
import { IndexedHeap } from './indexed-heap.ts';
import { TrailingLadder } from './trailing-ladder.ts';
import type { TriggerOrder } from './trigger-order.ts';

export interface TriggerIndex {
  /** How many orders are indexed. */
  readonly size: number;
  /** Indexes an armed order; a trailing stop is anchored at `anchor` ticks. */
  add(o: TriggerOrder, anchor: number): void;
  remove(o: TriggerOrder): void;
  /**
   * Removes every order the mark fires and appends it to `out` (in no particular order), then
   * moves every trailing anchor the mark improves on to the mark.
   */
  collect(mark: number, out: TriggerOrder[]): void;
  /** A trailing stop's current anchor in ticks. */
  anchorOf(o: TriggerOrder): number;
  /** Throws on a broken invariant; `lastMark` 0 = none seen. */
  validate(lastMark: number): void;
}

const byKey = (a: TriggerOrder, b: TriggerOrder): boolean => a.key > b.key || (a.key === b.key && a.orderId < b.orderId);

function fixedHeap(): IndexedHeap<TriggerOrder> {
  return new IndexedHeap<TriggerOrder>(byKey, (o) => o.slot, (o, slot) => { o.slot = slot; });
}

function collectFixed(heap: IndexedHeap<TriggerOrder>, markKey: number, out: TriggerOrder[]): void {
  for (let top = heap.peek(); top !== undefined && top.key >= markKey; top = heap.peek()) out.push(heap.pop());
}

export class FastTriggerIndex implements TriggerIndex {
  private readonly fixedFall = fixedHeap();
  private readonly fixedRise = fixedHeap();
  private readonly trailingFall = new TrailingLadder(1);
  private readonly trailingRise = new TrailingLadder(-1);

  get size(): number {
    return this.fixedFall.size + this.fixedRise.size + this.trailingFall.size + this.trailingRise.size;
  }

  add(o: TriggerOrder, anchor: number): void {
    if (o.trailing) this.ladder(o.sense).add(o, o.sense * anchor);
    else this.fixed(o.sense).push(o);
  }

  remove(o: TriggerOrder): void {
    if (o.trailing) this.ladder(o.sense).remove(o);
    else this.fixed(o.sense).remove(o);
  }

  collect(mark: number, out: TriggerOrder[]): void {
    collectFixed(this.fixedFall, mark, out);
    collectFixed(this.fixedRise, -mark, out);
    this.trailingFall.collect(mark, out);
    this.trailingRise.collect(-mark, out);
  }

  anchorOf(o: TriggerOrder): number {
    return o.sense * this.ladder(o.sense).anchorKeyOf(o);
  }

  validate(lastMark: number): void {
    this.fixedFall.validate('fixed falling triggers');
    this.fixedRise.validate('fixed rising triggers');
    for (const [heap, sense] of [[this.fixedFall, 1], [this.fixedRise, -1]] as const) {
      heap.forEach((o) => {
        if (o.trailing || o.sense !== sense || !o.armed) throw new Error(`fixed triggers: order ${o.orderId} does not belong here`);
        if (lastMark > 0 && o.key >= sense * lastMark) throw new Error(`fixed triggers: order ${o.orderId} is crossed by the last mark`);
      });
    }
    this.trailingFall.validate(lastMark > 0 ? lastMark : null);
    this.trailingRise.validate(lastMark > 0 ? -lastMark : null);
  }

  private fixed(sense: 1 | -1): IndexedHeap<TriggerOrder> {
    return sense === 1 ? this.fixedFall : this.fixedRise;
  }

  private ladder(sense: 1 | -1): TrailingLadder {
    return sense === 1 ? this.trailingFall : this.trailingRise;
  }
}
