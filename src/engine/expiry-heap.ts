/**
 * @module engine/expiry-heap
 *
 * A binary min-heap of (expiresAt, orderId) pairs in two parallel typed arrays, ordered by
 * expiresAt then orderId, so pops come out in the order the book must expire orders.
 * Deletion is lazy: a cancelled or filled order's entry stays until it surfaces, and the book
 * drops it then if no live order with that id has that expiresAt. Keeping a stale entry is
 * harmless because the key is a total order and a live order always has its own entry.
 *
 * Complexity: push and pop O(log n); `top*` O(1). Grows by doubling; no allocation otherwise.
 * May import: nothing.
 */
export class ExpiryHeap {
  private times = new Float64Array(256);
  private ids = new Float64Array(256);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The earliest expiresAt, or +Infinity when empty (so `topTime <= now` is the only check needed). */
  get topTime(): number {
    return this.count === 0 ? Infinity : this.times[0];
  }

  get topId(): number {
    return this.ids[0];
  }

  clear(): void {
    this.count = 0;
  }

  push(time: number, id: number): void {
    if (this.count === this.times.length) this.grow();
    let i = this.count++;
    const times = this.times;
    const ids = this.ids;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent];
      if (pt < time || (pt === time && ids[parent] < id)) break;
      times[i] = pt;
      ids[i] = ids[parent];
      i = parent;
    }
    times[i] = time;
    ids[i] = id;
  }

  /** Removes the top entry (read it with `topTime`/`topId` first). */
  pop(): void {
    const n = --this.count;
    if (n === 0) return;
    const times = this.times;
    const ids = this.ids;
    const time = times[n];
    const id = ids[n];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && (times[right] < times[child] || (times[right] === times[child] && ids[right] < ids[child]))) child = right;
      if (time < times[child] || (time === times[child] && id < ids[child])) break;
      times[i] = times[child];
      ids[i] = ids[child];
      i = child;
    }
    times[i] = time;
    ids[i] = id;
  }

  private grow(): void {
    const times = new Float64Array(this.times.length * 2);
    const ids = new Float64Array(this.ids.length * 2);
    times.set(this.times);
    ids.set(this.ids);
    this.times = times;
    this.ids = ids;
  }
}
