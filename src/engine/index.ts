/**
 * @module engine
 *
 * The matching core: one limit order book per market, as a pure deterministic state machine.
 * Commands in (`place`, `cancel`, `cancelAll`, `expire`), each carrying its time; events
 * out, synchronously, through a `BookListener`. No I/O, no clock, no randomness; the same
 * commands give the same events and the same `stateHash()`, bit for bit.
 *
 * Owns: resting orders, price-time priority, matching, self-trade prevention, expiry,
 * depth, snapshots. Does not own: positions, margin, fees (the ledger), ids (the sequencer).
 * May import: numeric/state-hash (for `stateHash`), types/ids (types). Nothing else outside the engine.
 *
 * Two implementations, one behaviour:
 *  - `FastOrderBook`: typed-array slots, intrusive FIFO and owner lists, no allocation per
 *    order in steady state. Production.
 *  - `NaiveOrderBook`: arrays of objects and linear scans. The reference the property tests
 *    hold the fast book to, event by event.
 *
 * # Events and sequence
 * Every event takes `seq = ++sequence` (per market, starting after 0). An order's
 * `lastUpdateSequenceNumber` is the seq of the last order event about it (accepted, rested,
 * fill); `onLevel` events are about a level, not an order. `createdAt` is the time of the
 * command that placed it, `updatedAt` that of the last command that changed it.
 *
 * # Every command, first
 * Resting orders with 0 < expiresAt <= time expire, in (expiresAt, orderId) order; for each:
 * onExpired(reason ExpiresAtReached), then onLevel for its level. `expire(time)` is only this.
 * Then, for a reduce-only placement whose `position` changes what the book knew of its owner's
 * position: the owner's resting reduce-only orders that no longer fit it are cancelled, newest
 * first (as after a placement, below) — before the placement's own checks.
 *
 * # place(cmd)
 * Checks, in this order; the first that fails emits onRejected(seq, orderId, owner, code, time)
 * and returns the code:
 *  1. quantity not a positive safe integer → InvalidQuantity
 *  2. price not a positive safe integer → InvalidPrice
 *  3. quantity < minSizeLots → BelowMinSize
 *  4. orderId resting on this book → OrderIdExists
 *  5. clientId not null and used by a resting order of the same `account` → ClientIdExists
 *  6. expiresAt ≠ 0 and expiresAt <= time → AlreadyExpired
 *  7. reduce-only: the quantity is capped at what the position can still close — |position| on
 *     the closing side, less the owner's resting reduce-only lots in this book; nothing left
 *     (flat, on the order's side, or already covered) → ReduceOnlyWouldIncrease (the cap may go
 *     below minSizeLots: it only reduces). The position is the book's own count of the owner's
 *     fills plus `cmd.position` (engine/reduce-only-positions).
 *  8. post-only and the best opposite price crosses the limit → PostOnlyWouldTake (rejected,
 *     never repriced; this holds even if that opposite order is the same account's)
 * Then onAccepted(seq, orderId, owner, side, price, quantity after the cap, time).
 * Matching: while the taker has lots and the best opposite level crosses its limit (a buy
 * takes asks <= limit, a sell bids >= limit), walk that level's FIFO:
 *  - a maker of the taker's `account` expires: onExpired(reason SelfTrade) (self-trade
 *    prevention, mode "expire maker" = `SELF_TRADE_EXPIRE_MAKER`); matching goes on;
 *  - a reduce-only maker whose position can close nothing now is cancelled:
 *    onCancelled(reason ReduceOnlyCancelled); matching goes on;
 *  - otherwise they trade min(both, and for a reduce-only maker what its position can close)
 *    lots at the maker's price: onFill(seq, maker, taker, makerOwner, takerOwner, takerSide,
 *    price, lots, makerRemaining, takerRemaining, time); a maker at 0 leaves the book; a
 *    reduce-only maker cut short by its position is cancelled right after its fill
 *    (onCancelled, reason ReduceOnlyCancelled).
 * When the taker is done with a level (level empty or taker filled): ONE onLevel(seq,
 * makerSide, price, new total, time), total 0 when the level is gone.
 * Then, if lots remain: immediate-or-cancel → onCancelled(reason ImmediateOrCancel); otherwise
 * the order rests at the back of its level: onRested(seq, …, remaining), then onLevel for it.
 * A fully filled taker emits nothing more (its last onFill says takerRemaining 0).
 * Last, for each owner whose position moved during the placement (in that order) and whose
 * resting reduce-only lots now exceed what the position can close: its reduce-only orders are
 * cancelled newest (highest orderId) first, whole, until they fit — each onCancelled(reason
 * ReduceOnlyCancelled), then onLevel.
 *
 * # Cancels
 * cancel(orderId, owner): not resting → OrderNotFound; resting under another owner →
 * NotOwner. These rejections emit NO event and take no seq (the caller answers the user);
 * only the leading expiry may have emitted. Success: onCancelled(reason Cancelled), onLevel.
 * cancelAll(owner, time, reason): the owner's resting orders in ascending orderId order
 * (the sequencer assigns ids in placement order), each onCancelled(reason) then onLevel;
 * returns how many.
 *
 * # Reads
 * depth(side, n, m): up to n groups, best first (bids descending, asks ascending); a price
 * goes to the multiple of m at or below it for bids, at or above it for asks. m not a
 * positive integer is taken as 1. ordersOf(owner): ascending orderId.
 * stateHash(): SHA-256 of market index, sequence and every resting order with every field in
 * priority order (see `state-hash.ts`); equal for equal states in either implementation.
 * snapshot()/restore(): plain data → a book with an equal stateHash and the same future.
 * validateInternalState(): throws an Error naming the broken invariant.
 *
 * # Invariants
 * Never crossed at rest (best bid < best ask); every resting order has 0 < remaining <=
 * quantity; a level's total equals its orders' remaining sum; no empty level; every index
 * (id, owner lists, clientIds, best prices, expiry heap) agrees with the resting orders.
 *
 * # Complexity (FastOrderBook; n orders, L levels on a side, k an owner's orders)
 * place at an existing level or a new best: O(1) + O(1) per fill; a new level d places from
 * the best: O(log L + d). cancel: O(1) (+ O(log L + d) if the level empties).
 * cancelAll O(k log k). expiry O(log n) per order. bestBid/bestAsk O(1).
 * depth O(levels read). snapshot/stateHash O(n). NaiveOrderBook: O(n) per operation.
 *
 * # Allocation (FastOrderBook)
 * None per command once warmed up: slots, levels, the id/owner/price indexes (`SlotIndex`,
 * typed-array hash tables; a JS Map reallocates under churn) and the expiry heap grow by
 * doubling and recycle through free lists. Exceptions: orders with a clientId touch a Map;
 * reads (order, ordersOf, depth, snapshot, stateHash) build fresh objects; and V8 boxes any
 * number outside the small-integer range (every orderId of market index >= 1) when it is
 * passed to a listener that is not inlined (~16 bytes per such event).
 *
 * # Known limits / caller obligations
 * orderId, owner and account are integers (the sequencer and ledger intern them); price and
 * quantity are checked. `side` is 1 or -1 (the gateway validates it; there is no code for
 * it). A level's total stays below 2^53 lots. Time is taken as given (the caller keeps it
 * non-decreasing). No cap on resting orders: `BookFull` is never returned.
 */
export {};
