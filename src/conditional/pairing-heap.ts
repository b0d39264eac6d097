/**
 * @module conditional/pairing-heap
 *
 * An intrusive pairing heap: the nodes carry their own links (`child` = first child, `next` =
 * next sibling, `prev` = previous sibling, or the parent for a first child), the heap is just
 * its root. Chosen for the trailing-stop buckets because two heaps meld in O(1) — merging the
 * buckets that a new best mark overtakes must not cost their sizes.
 *
 * Complexity (amortised): meld O(1), pop and remove O(log n). The two-pass combine reuses
 * one scratch array, so nothing is allocated per operation.
 * May import: nothing.
 */
export interface PairingNode<T> {
  child: T | null;
  next: T | null;
  prev: T | null;
}

export class PairingHeap<T extends PairingNode<T>> {
  private readonly scratch: T[] = [];

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  /** One heap of both roots (either may be null). */
  meld(a: T | null, b: T | null): T | null {
    if (a === null) return b;
    if (b === null) return a;
    if (this.less(b, a)) {
      const t = a;
      a = b;
      b = t;
    }
    b.prev = a;
    b.next = a.child;
    if (a.child !== null) a.child.prev = b;
    a.child = b;
    return a;
  }

  /** The heap without its root; the root's links are cleared. */
  pop(root: T): T | null {
    const first = root.child;
    root.child = null;
    root.next = null;
    root.prev = null;
    return this.combine(first);
  }

  /** The heap without `node` (which must be in the heap rooted at `root`). */
  remove(root: T, node: T): T | null {
    if (node === root) return this.pop(root);
    const prev = node.prev as T;
    if (prev.child === node) prev.child = node.next;
    else prev.next = node.next;
    if (node.next !== null) node.next.prev = prev;
    node.next = null;
    node.prev = null;
    return this.meld(root, this.pop(node));
  }

  /** Visits every node of the heap (for validation and snapshots). */
  forEach(root: T | null, visit: (node: T, parent: T | null) => void): void {
    const stack: Array<[T, T | null]> = root === null ? [] : [[root, null]];
    while (stack.length > 0) {
      const [node, parent] = stack.pop() as [T, T | null];
      visit(node, parent);
      for (let c = node.child; c !== null; c = c.next) stack.push([c, node]);
    }
  }

  /** Two-pass pairing of a sibling list: meld pairs left to right, then fold right to left. */
  private combine(first: T | null): T | null {
    if (first === null) return null;
    first.prev = null;
    if (first.next === null) return first;
    const pairs = this.scratch;
    let node: T | null = first;
    while (node !== null) {
      const a: T = node;
      const b: T | null = a.next;
      node = b === null ? null : b.next;
      a.next = null;
      a.prev = null;
      if (b !== null) {
        b.next = null;
        b.prev = null;
      }
      pairs.push(this.meld(a, b) as T);
    }
    let root = pairs.pop() as T;
    while (pairs.length > 0) root = this.meld(pairs.pop() as T, root) as T;
    return root;
  }
}
