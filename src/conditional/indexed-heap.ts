/**
 * @module conditional/indexed-heap
 *
 * A binary heap of objects that know their own position in it (through the `slot` accessors
 * given at construction), so that an element can be removed or re-keyed in O(log n) without a
 * search. The order is the strict `before(a, b)` given at construction; it must be total over
 * the live elements (break ties by an id) so that the top is well defined.
 *
 * Complexity: push, pop, remove, update O(log n); peek O(1). No allocation beyond the array.
 * May import: nothing.
 */
export class IndexedHeap<T> {
  private readonly items: T[] = [];

  constructor(
    private readonly before: (a: T, b: T) => boolean,
    private readonly slotOf: (item: T) => number,
    private readonly setSlot: (item: T, slot: number) => void,
  ) {}

  get size(): number {
    return this.items.length;
  }

  /** The first element, or undefined when empty. */
  peek(): T | undefined {
    return this.items[0];
  }

  has(item: T): boolean {
    const slot = this.slotOf(item);
    return slot >= 0 && this.items[slot] === item;
  }

  push(item: T): void {
    this.items.push(item);
    this.up(item, this.items.length - 1);
  }

  /** Removes and returns the first element (the heap must not be empty). */
  pop(): T {
    const top = this.items[0];
    this.remove(top);
    return top;
  }

  remove(item: T): void {
    const slot = this.slotOf(item);
    const last = this.items.pop() as T;
    this.setSlot(item, -1);
    if (last === item) return;
    this.items[slot] = last;
    this.setSlot(last, slot);
    this.update(last);
  }

  /** Restores the order after `item`'s key changed. */
  update(item: T): void {
    const slot = this.slotOf(item);
    if (slot > 0 && this.before(item, this.items[(slot - 1) >> 1])) this.up(item, slot);
    else this.down(item, slot);
  }

  /** Every element, in heap (not sorted) order. */
  forEach(visit: (item: T) => void): void {
    this.items.forEach((item) => visit(item));
  }

  /** Throws if a slot is wrong or a parent comes after its child. */
  validate(name: string): void {
    this.items.forEach((item, i) => {
      if (this.slotOf(item) !== i) throw new Error(`${name}: element at ${i} records slot ${this.slotOf(item)}`);
      if (i > 0 && this.before(item, this.items[(i - 1) >> 1])) throw new Error(`${name}: heap order broken at ${i}`);
    });
  }

  private up(item: T, slot: number): void {
    const items = this.items;
    while (slot > 0) {
      const parentSlot = (slot - 1) >> 1;
      const parent = items[parentSlot];
      if (!this.before(item, parent)) break;
      items[slot] = parent;
      this.setSlot(parent, slot);
      slot = parentSlot;
    }
    items[slot] = item;
    this.setSlot(item, slot);
  }

  private down(item: T, slot: number): void {
    const items = this.items;
    const n = items.length;
    for (;;) {
      let child = 2 * slot + 1;
      if (child >= n) break;
      if (child + 1 < n && this.before(items[child + 1], items[child])) child++;
      if (!this.before(items[child], item)) break;
      items[slot] = items[child];
      this.setSlot(items[slot], slot);
      slot = child;
    }
    items[slot] = item;
    this.setSlot(item, slot);
  }
}
