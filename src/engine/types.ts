/**
 * @module engine/types
 *
 * The matching core's contract: the commands it takes, the events it emits, and the order
 * book interface its two implementations (fast and naive reference) share.
 *
 * Units: price in integer ticks (> 0), quantity in integer lots (> 0, unsigned; `side` gives
 * the direction), time in integer milliseconds passed in with every command. Every value fits
 * in a JavaScript number exactly (< 2^53): the config layer guarantees it.
 *
 * Identities are integers interned outside the core:
 *  - `orderId`: assigned by the sequencer, unique per market (the market index sits in its high
 *    bits, see `orderIdOf`); formatted as hex only at the API edge.
 *  - `owner`: a subaccount (account + subaccountIndex), interned by the ledger.
 *  - `account`: the wallet address the owner belongs to; self-trade prevention and clientId
 *    uniqueness work per account.
 *
 * May import: types/ids (types).
 */
import type { AccountIndex, MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';

export type { AccountIndex, MarketIndex, OrderId, OwnerIndex };

/** The sign of a quantity: +1 buys (long), -1 sells (short). */
export const Side = { Buy: 1, Sell: -1 } as const;
export type Side = 1 | -1;

/** Order flags as bits, as they travel in commands and records. */
export const OrderFlag = {
  ImmediateOrCancel: 1,
  PostOnly: 2,
  ReduceOnly: 4,
} as const;

/** Self-trade prevention mode reported in `flags.selfTradeExpire`: the resting order expires. */
export const SELF_TRADE_EXPIRE_MAKER = 1;

/**
 * Place a limit order. The object is reused by callers on the hot path: the book copies what
 * it keeps and never holds a reference to the command.
 */
export interface PlaceOrder {
  orderId: OrderId;
  owner: OwnerIndex;
  account: AccountIndex;
  side: Side;
  price: number;
  quantity: number;
  /** Bits of `OrderFlag`. */
  flags: number;
  /** Milliseconds; 0 means good till cancelled. */
  expiresAt: number;
  /** Unique among the account's open orders when not null. */
  clientId: string | null;
  /**
   * Read only by reduce-only orders: the owner's signed position in this market, in lots, as the
   * ledger has it, LESS the net lots of the owner's fills in this book that the ledger has
   * settled — what moved the position outside this book (ADL). The book adds the fills it has
   * executed itself, fills on their way to the ledger included (engine/reduce-only-positions).
   * For an owner this book never filled, simply the position.
   */
  position: number;
  /** The command's time in milliseconds. */
  time: number;
}

/**
 * Everything the book tells the world, in the order it happens. Every call carries the
 * market's next sequence number (`seq`), which also becomes the touched order's
 * `lastUpdateSequenceNumber` and the L2 feed's sequence.
 * Implementations must not throw and must not call back into the book.
 */
export interface BookListener {
  /** The order passed the book's checks; `quantity` is after any reduce-only cap. */
  onAccepted(seq: number, orderId: OrderId, owner: OwnerIndex, side: Side, price: number, quantity: number, time: number): void;
  /** The order's unfilled `remaining` now rests on the book. */
  onRested(seq: number, orderId: OrderId, owner: OwnerIndex, side: Side, price: number, remaining: number, time: number): void;
  /** A trade at the maker's price. `takerSide` is the aggressor's side. Remainders are after the fill. */
  onFill(
    seq: number,
    makerOrderId: OrderId,
    takerOrderId: OrderId,
    makerOwner: OwnerIndex,
    takerOwner: OwnerIndex,
    takerSide: Side,
    price: number,
    quantity: number,
    makerRemaining: number,
    takerRemaining: number,
    time: number,
  ): void;
  /** The order left the book unfilled by `remaining`, for `reason` (see `Reason`). */
  onCancelled(seq: number, orderId: OrderId, owner: OwnerIndex, remaining: number, reason: number, time: number): void;
  /** The order expired with `remaining` unfilled: `expiresAt` reached or self-trade prevention. */
  onExpired(seq: number, orderId: OrderId, owner: OwnerIndex, remaining: number, reason: number, time: number): void;
  /** The order never entered the book; `code` is an `EngineCode`. */
  onRejected(seq: number, orderId: OrderId, owner: OwnerIndex, code: number, time: number): void;
  /** The total resting quantity at (side, price) is now `quantity` (0 = level gone). */
  onLevel(seq: number, side: Side, price: number, quantity: number, time: number): void;
}

/** Status of a live order, as `OrderView.status`. Terminal statuses live in history, not the book. */
export type LiveStatus = 'new' | 'partiallyFilled';

/** A resting order as the book holds it: a copy, made on the cold path. */
export interface OrderView {
  orderId: OrderId;
  owner: OwnerIndex;
  account: AccountIndex;
  side: Side;
  price: number;
  /** Lots accepted (after any reduce-only cap). */
  quantity: number;
  remaining: number;
  /** Lots filled so far: quantity − remaining (the API calls it `settled`). */
  filled: number;
  flags: number;
  expiresAt: number;
  clientId: string | null;
  status: LiveStatus;
  createdAt: number;
  updatedAt: number;
  lastUpdateSequenceNumber: number;
}

/** One aggregated price level of an L2 snapshot. */
export interface Level {
  price: number;
  quantity: number;
}

/**
 * The order book of one market. Both implementations (`FastOrderBook`, `NaiveOrderBook`)
 * give the same events for the same commands; the property tests hold them to it.
 */
export interface OrderBook {
  readonly marketIndex: MarketIndex;
  /** The last sequence number handed out (0 before the first event). */
  readonly sequence: number;

  /** Places a limit order (GTC, IOC, post-only, reduce-only). Returns `EngineCode.Ok` or the rejection. */
  place(cmd: PlaceOrder): number;
  /** Cancels one order of `owner`. */
  cancel(orderId: OrderId, owner: OwnerIndex, time: number): number;
  /** Cancels every open order of `owner` in this market; returns how many. */
  cancelAll(owner: OwnerIndex, time: number, reason: number): number;
  /** Timer command: expires every order whose `expiresAt` ≤ `time`; returns how many. */
  expire(time: number): number;

  bestBid(): number; // ticks, 0 when no bids
  bestAsk(): number; // ticks, 0 when no asks
  /** Aggregated depth, best first; prices grouped to multiples of `tickMultiple` ticks (asks rounded up, bids down). */
  depth(side: Side, levels: number, tickMultiple: number): Level[];
  order(orderId: OrderId): OrderView | undefined;
  ordersOf(owner: OwnerIndex): OrderView[];
  /** How many orders rest on the book. */
  readonly size: number;

  /** A hash of the whole book state (orders in priority order, sequence); equal states give equal hashes. */
  stateHash(): string;
  /** Throws if an invariant is broken: never crossed at rest, level totals equal their orders, no empty order or level, indexes consistent. */
  validateInternalState(): void;
  /** Plain data that `restore` turns back into an equal book (equal `stateHash`). */
  snapshot(): BookSnapshot;
}

/** Construction options shared by both books. */
export interface BookOptions {
  /** The market's minimum order size in lots; smaller placements are rejected with `BelowMinSize`. Default 1. */
  minSizeLots?: number;
}

/** The reduce-only view of a book (engine/reduce-only-positions) as plain data; owners ascending. */
export interface ReduceOnlySnapshot {
  filled: Array<[owner: OwnerIndex, lots: number]>;
  offsets: Array<[owner: OwnerIndex, lots: number]>;
}

/** A book's full state as plain data (JSON- and msgpack-safe). */
export interface BookSnapshot {
  marketIndex: MarketIndex;
  sequence: number;
  /** Resting orders in priority order: bids best first, then asks best first, FIFO within a price. */
  orders: OrderView[];
  /** The positions the book counts for reduce-only orders; absent in snapshots written before it did. */
  reduceOnly?: ReduceOnlySnapshot;
}

/** Bits of an orderId above the per-market counter. */
const ORDER_SEQUENCE_BITS = 40;
const ORDER_SEQUENCE_SPAN = 2 ** ORDER_SEQUENCE_BITS;

/** The orderId of the `n`-th order of a market (n ≥ 1): market index in the high bits. */
export function orderIdOf(marketIndex: MarketIndex, n: number): OrderId {
  return (marketIndex * ORDER_SEQUENCE_SPAN + n) as OrderId;
}

/** The market an orderId belongs to, for routing a cancel or a lookup. */
export function marketOfOrderId(orderId: OrderId): MarketIndex {
  return Math.floor(orderId / ORDER_SEQUENCE_SPAN) as MarketIndex;
}

/** orderId ⇄ the hex string users see ("0x" + 16 hex digits). */
export function formatOrderId(orderId: OrderId): string {
  return '0x' + orderId.toString(16).padStart(16, '0');
}
export function parseOrderId(text: string): OrderId | undefined {
  if (!/^0x[0-9a-fA-F]{1,16}$/.test(text)) return undefined;
  const n = Number.parseInt(text.slice(2), 16);
  return Number.isSafeInteger(n) && n > 0 ? (n as OrderId) : undefined;
}
