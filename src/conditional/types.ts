/**
 * @module conditional/types
 *
 * The conditional-order core's contract: the commands it takes, what it tells the application
 * (`ConditionalListener`), the read views and the snapshot. Units as in the engine: prices in
 * integer ticks, quantities in unsigned lots with `side` ±1, time in integer milliseconds
 * passed in with every command; `trailingPercent` is a bigint fraction at RATE_SCALE (8
 * decimals: 5_000_000n = 5 %). Ids are integers interned by the application: orderIds come from the
 * sequencer (the same id the order keeps once it enters the book), groupIds (TWAP, iceberg) and
 * ocoGroupIds (TP/SL pairs) are their own namespaces, unique per market while live.
 * May import: types/ids, engine/types.
 */
import type { OrderView, PlaceOrder, Side } from '../engine/types.ts';
import type { AccountIndex, MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';

/** The order types that wait for a price. */
export const TriggerKind = { TakeProfit: 1, StopLoss: 2, TrailingStop: 3 } as const;
export type TriggerKind = (typeof TriggerKind)[keyof typeof TriggerKind];

/** Why an order is released to the order book (`onRelease`). */
export const Release = {
  /** A takeProfit, stopLoss or trailingStop whose trigger the mark crossed. */
  Triggered: 1,
  /** The next slice of a TWAP fell due. */
  TwapSlice: 2,
  /** The next slice of an iceberg (the first, or the previous one fully filled). */
  IcebergSlice: 3,
} as const;
export type Release = (typeof Release)[keyof typeof Release];

/** An order as the application hands it over: a `PlaceOrder` without the fields only known at entry. */
export type OrderFields = Omit<PlaceOrder, 'position' | 'time'>;

/** Place one takeProfit, stopLoss or trailingStop. */
export interface PlaceTrigger extends OrderFields {
  kind: TriggerKind;
  /** Ticks; required for takeProfit and stopLoss, 0 for trailingStop. */
  triggerPrice: number;
  /** RATE_SCALE fraction in (0, 1) for trailingStop; 0n otherwise. */
  trailingPercent: bigint;
  time: number;
}

/** Place a TP/SL pair (one OCO group). */
export interface PlacePair {
  ocoGroupId: OrderId;
  takeProfit: PlaceTrigger;
  stopLoss: PlaceTrigger;
  /** 0 = attached to the owner's position; otherwise the orderId of a resting order. */
  parentOrderId: OrderId;
  /** The parent as the order book has it now (`book.order(parentOrderId)`); unused when parentOrderId is 0. */
  parent: Pick<OrderView, 'orderId' | 'owner' | 'side' | 'filled'> | undefined;
  /** The owner's signed position in lots, as the ledger has it now (position-attached pairs). */
  position: number;
  time: number;
}

/** Place a TWAP (slice i enters at time + i × period) or an iceberg (one slice at a time). */
export interface PlaceSlices {
  groupId: OrderId;
  owner: OwnerIndex;
  /** Each slice is a complete order with its own orderId (and, outside the core, nonce and signature). */
  slices: OrderFields[];
  /** TWAP only: milliseconds between slices (> 0). Ignored for an iceberg. */
  period: number;
  time: number;
}

/**
 * What the book tells the application, synchronously, in the order it happens. Implementations must
 * not call back into the book: queue the requests and apply them after the current command.
 */
export interface ConditionalListener {
  /**
   * Enter `order` into the order book now. The object is fresh and belongs to the receiver.
   * `order.position` is 0: the application sets the owner's position before `book.place` (the engine
   * caps a reduce-only order by it). `groupId` is the TWAP / iceberg, 0 for a triggered order.
   * `triggerPrice` is the trigger the mark crossed (for a trailing stop, where its anchor had
   * put it), 0 for a TWAP or iceberg slice.
   */
  onRelease(order: PlaceOrder, why: Release, groupId: OrderId, time: number, triggerPrice: number): void;
  /** A parent-attached pair leg now enters the book with `quantity` lots when it triggers. */
  onArmed(orderId: OrderId, owner: OwnerIndex, quantity: number, time: number): void;
  /** An untriggered order or a pending slice ended here without entering the book. */
  onCancelled(orderId: OrderId, owner: OwnerIndex, reason: number, time: number): void;
  /** A TWAP or iceberg ended (`GroupEnd`): it has no pending slice left. */
  onGroupEnded(groupId: OrderId, owner: OwnerIndex, how: number, time: number): void;
}

/** An untriggered order as users see it (status `untriggered`). */
export interface TriggerView {
  orderId: OrderId;
  owner: OwnerIndex;
  account: AccountIndex;
  side: Side;
  kind: TriggerKind;
  price: number;
  quantity: number;
  flags: number;
  expiresAt: number;
  clientId: string | null;
  /** The trigger now: fixed for takeProfit / stopLoss, following the anchor for a trailing stop. */
  triggerPrice: number;
  trailingPercent: bigint;
  /** Trailing stops: the best mark since placement (highest for a sell, lowest for a buy); else 0. */
  anchor: number;
  ocoGroupId: OrderId;
  parentOrderId: OrderId;
  /** Lots it enters the book with when it triggers (a parent-attached leg: 0 until the parent fills). */
  armedQuantity: number;
  createdAt: number;
}

/** A TWAP or iceberg as users see it (status `active` until it ends). */
export interface SlicesView {
  groupId: OrderId;
  owner: OwnerIndex;
  kind: 'twap' | 'iceberg';
  period: number;
  /** Index of the next slice to enter the book. */
  next: number;
  slices: number;
  /** TWAP: when the next slice is due. Iceberg: 0. */
  dueAt: number;
  /** Iceberg: the slice resting on the book now. TWAP: 0. */
  liveSliceId: OrderId;
}

/** Plain data (JSON-safe: `trailingPercent` as a decimal integer string) that `restore` turns back into an equal book. */
export interface ConditionalSnapshot {
  marketIndex: MarketIndex;
  lastMark: number;
  /** Untriggered orders, ascending orderId. */
  triggers: Array<Omit<TriggerView, 'trailingPercent' | 'triggerPrice'> & { triggerPrice: number; trailingPercent: string }>;
  /** Pairs, ascending ocoGroupId. `filled` = lots of the parent filled so far; `parentLive` = the parent still rests. */
  pairs: Array<{ ocoGroupId: OrderId; takeProfitId: OrderId; stopLossId: OrderId; parentOrderId: OrderId; parentLive: boolean; filled: number }>;
  /** TWAPs and icebergs, ascending groupId; `slices` holds every slice, the first `next` already released. */
  groups: Array<{ groupId: OrderId; owner: OwnerIndex; kind: 'twap' | 'iceberg'; period: number; next: number; dueAt: number; liveSliceId: OrderId; slices: OrderFields[] }>;
}
