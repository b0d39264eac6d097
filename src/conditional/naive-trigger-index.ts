/**
 * @module conditional/naive-trigger-index
 *
 * The reference `TriggerIndex`: one array of (order, anchor key, trigger key) entries, and
 * every mark update scans all of them — fire if the mark key reaches the trigger key, otherwise
 * move a trailing anchor up to the mark key and recompute its trigger. Obviously correct and
 * O(n) per mark: the property tests compare the fast index with it, and the benchmark uses it
 * as the baseline.
 * May import: conditional/.
 */
import { trailingKey } from './trigger-math.ts';
import type { TriggerIndex } from './trigger-index.ts';
import type { TriggerOrder } from './trigger-order.ts';

interface Entry {
  order: TriggerOrder;
  anchorKey: number;
  triggerKey: number;
}

export class NaiveTriggerIndex implements TriggerIndex {
  private readonly entries: Entry[] = [];

  get size(): number {
    return this.entries.length;
  }

  add(o: TriggerOrder, anchor: number): void {
    const anchorKey = o.sense * anchor;
    o.slot = this.entries.length;
    this.entries.push({ order: o, anchorKey, triggerKey: o.trailing ? trailingKey(anchorKey, o.percent, o.sense) : o.key });
  }

  remove(o: TriggerOrder): void {
    const last = this.entries.pop() as Entry;
    if (last.order !== o) {
      this.entries[o.slot] = last;
      last.order.slot = o.slot;
    }
    o.slot = -1;
  }

  collect(mark: number, out: TriggerOrder[]): void {
    for (let i = 0; i < this.entries.length; ) {
      const e = this.entries[i];
      const markKey = e.order.sense * mark;
      if (markKey <= e.triggerKey) {
        e.order.firedTrigger = e.order.sense * e.triggerKey;
        out.push(e.order);
        this.remove(e.order);
        continue;
      }
      if (e.order.trailing && markKey > e.anchorKey) {
        e.anchorKey = markKey;
        e.triggerKey = trailingKey(markKey, e.order.percent, e.order.sense);
      }
      i++;
    }
  }

  anchorOf(o: TriggerOrder): number {
    return o.sense * this.entries[o.slot].anchorKey;
  }

  validate(lastMark: number): void {
    this.entries.forEach((e, i) => {
      if (e.order.slot !== i || !e.order.armed) throw new Error(`naive triggers: order ${e.order.orderId} records slot ${e.order.slot}`);
      if (lastMark > 0 && e.triggerKey >= e.order.sense * lastMark) throw new Error(`naive triggers: order ${e.order.orderId} is crossed by the last mark`);
    });
  }
}
