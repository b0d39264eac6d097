/**
 * @module conditional/trailing-bucket
 *
 * One rung of the trailing ladder (conditional/trailing-ladder): the trailing stops that share
 * one anchor, as the root of a pairing heap of their records. Generic in its members so that the
 * member record (conditional/trigger-order) can point at its bucket while this file needs
 * nothing of it: the arrow goes one way.
 * May import: nothing.
 */

/** Trailing stops sharing one anchor. */
export class Bucket<M = unknown> {
  root: M | null = null;
  size = 0;
  /** Trigger key of the root (the stop with the smallest percent): the first to fire. */
  key = 0;
  /** Neighbours on the ladder: toward the top (lower anchor key) and toward the bottom. */
  up: Bucket<M> | null = null;
  down: Bucket<M> | null = null;
  /** Set when merged away: the bucket its members now belong to. */
  into: Bucket<M> | null = null;
  slot = -1;

  constructor(public anchorKey: number) {}
}
