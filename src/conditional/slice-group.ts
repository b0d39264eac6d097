/**
 * @module conditional/slice-group
 *
 * A TWAP or an iceberg: a parent holding its slices (complete orders, each with its own
 * orderId) and the index of the next one to enter the book. A TWAP releases slice i at
 * start + i × period; an iceberg releases the next slice when the one on the book is fully
 * filled. The group is `active` until its last slice is released (TWAP) or filled (iceberg).
 * May import: types/ids, conditional/.
 */
import type { OrderFields } from './types.ts';
import { NO_ORDER, type OrderId, type OwnerIndex } from '../types/ids.ts';

export class SliceGroup {
  /** Index of the next slice to release. */
  next = 0;
  /** TWAP: when slice `next` falls due. */
  dueAt = 0;
  /** Iceberg: the released slice resting on the book (0 = none). */
  liveSliceId: OrderId = NO_ORDER;
  /** Position in the TWAP timer heap (−1 when in none). */
  slot = -1;

  constructor(
    readonly groupId: OrderId,
    readonly owner: OwnerIndex,
    readonly kind: 'twap' | 'iceberg',
    readonly period: number,
    readonly slices: readonly OrderFields[],
  ) {}
}
