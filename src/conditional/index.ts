/**
 * @module conditional
 *
 * The conditional and algorithmic orders of one market — takeProfit, stopLoss, trailingStop,
 * TP/SL pairs (OCO groups, attached to a position or to a parent order), TWAP and iceberg — as a
 * pure, deterministic state machine (`ConditionalBook`) that the application drives in each market
 * thread beside the order book. Commands in, each carrying its time; requests out, synchronously,
 * through a `ConditionalListener`. No I/O, no clock, no randomness: the same commands give the
 * same outputs and the same `stateHash()`.
 *
 * Owns: untriggered orders and their triggers (mark-price driven), trailing anchors, OCO pairs
 * and their attachment (position or parent), TWAP schedules, iceberg sequencing, expiry of
 * untriggered orders. Does not own: the order book (orders it releases become the engine's),
 * positions (the application reports them), ids, nonces and signatures (the application keeps them).
 * May import: types/ids, engine/types, engine/codes, config/market (`RATE_ONE`, a constant),
 * numeric/state-hash (for `stateHash`).
 *
 * # Commands (every one first runs the timers: see `onTime`)
 * - `place(PlaceTrigger)`: takeProfit / stopLoss / trailingStop → `untriggered`. Refused (codes
 *   in codes.ts): bad fields; a fixed trigger the last mark already crossed
 *   (`TriggerAlreadyCrossed` — a user wanting "now" sends a plain order); a trailing stop before
 *   any mark (`MarkPriceUnknown`).
 * - `placePair(PlacePair)`: one takeProfit + one stopLoss of one owner and side, the take-profit
 *   beyond the stop. `parentOrderId` 0: attached to the position (which the pair's side must
 *   close), armed now. Otherwise attached to that resting order (the application passes
 *   `book.order(id)`; the pair's side must close the parent's): armed at the parent's fills, each
 *   leg's quantity = min(parent's filled lots, the leg's quantity) (`onArmed`). Checked at arming:
 *   a leg the last mark already crossed fires at once.
 * - `placeTwap(PlaceSlices)`: slice i released at time + i × period (slice 0 at once).
 * - `placeIceberg(PlaceSlices)`: slice 0 released at once; the next when the one on the book is
 *   fully filled (it enters as a new order: back of the queue).
 * - `onMark(mark, time)`: fires every armed order the mark crosses — ascending orderId among
 *   those fired by one update — then moves trailing anchors. A fired order is released with the
 *   order's own orderId, price, flags and expiresAt (IOC if its flag is set), its armed quantity,
 *   `position` 0 for the application to fill in (the engine applies reduce-only then). OCO: the other
 *   leg is cancelled (`OcoTriggered`) right after its sibling's release.
 * - `onTime(time)`: expires untriggered orders with 0 < expiresAt <= time ((expiresAt, orderId)
 *   order; a pair leg's sibling ends `OcoExpired`), then releases TWAP slices due by `time`
 *   ((dueAt, groupId) order, all carrying `time`).
 * - `onFill(orderId, qty, remaining, time)`: any fill of a book order. Arms / grows pairs attached
 *   to it; remaining 0 ends the attachment; a fully filled iceberg slice releases the next.
 * - `onOrderGone(orderId, time)`: a book order left unfilled (cancel, expiry, IOC rest, reject).
 *   Pairs attached to it with nothing filled end (`ParentCancelled`); with fills they stay armed.
 *   An iceberg whose slice left ends (`IcebergSliceUnfilled`).
 * - `onPosition(owner, lots, time)`: position-attached pairs whose side no longer closes anything
 *   (flat, or flipped to the pair's side) end (`PositionClosed`).
 * - `cancel(orderId, owner, time)`: an untriggered order (a pair leg ends both legs), or a pending
 *   slice (ends the rest of its group). `cancelGroup(groupId, …)`, `cancelAll(owner, time, reason)`.
 *
 * # Invariants (validateInternalState)
 * Every untriggered order is in the id and owner indexes, in the expiry heap iff expiresAt > 0,
 * and in the trigger index iff armed (single orders and position pairs always; parent pairs once
 * the parent filled); no armed order is crossed by the last mark; every trailing anchor is at
 * least as good as the last mark; a pair's legs are both untriggered and indexed by its
 * attachment; a leg's armed quantity is min(filled, quantity); every live group has something
 * pending, its unreleased slices indexed, a TWAP on the timer, an iceberg's live slice indexed.
 * An order is released at most once: it leaves every structure before `onRelease`.
 *
 * # Complexity (n untriggered, k fired, B trailing buckets)
 * onMark: O((1 + k) log n) amortised — heaps by trigger key per direction, and trailing stops in
 * buckets by anchor (trailing-ladder.ts), so orders that do not fire are never visited.
 * place / cancel / expiry: O(log n). onFill / onOrderGone / onPosition: O(1) map lookups unless
 * something is attached. cancelAll O(k log k). snapshot / stateHash / restore O(n log n).
 *
 * # Known limits
 * Mark-price triggering only (no last-trade trigger). A parent-attached pair that fired keeps
 * nothing for fills of its parent after that. Slices already released (TWAP, iceberg's live
 * slice) are the engine's: `cancelGroup` cancels only unreleased ones — the application cancels the
 * live iceberg slice itself. Position-attached pairs are not resized when the position shrinks
 * (reduce-only caps them at entry). Time is taken as given (non-decreasing).
 */
export { ConditionalCode, ConditionalReason, CONDITIONAL_TEXT, GroupEnd } from './codes.ts';
export { ConditionalBook } from './conditional-book.ts';
export type { ConditionalBookOptions } from './conditional-book.ts';
export { Release, TriggerKind } from './types.ts';
export type {
  ConditionalListener,
  ConditionalSnapshot,
  OrderFields,
  PlacePair,
  PlaceSlices,
  PlaceTrigger,
  SlicesView,
  TriggerView,
} from './types.ts';
export { trailingTrigger } from './trigger-math.ts';
