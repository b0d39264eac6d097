/**
 * @module conditional/codes
 *
 * The conditional-order core's result codes and the reasons it ends orders with: one table,
 * numeric and stable (they are journaled). Range 4000–4999 (auth 1000s, ledger 2000s, engine
 * 3000s, gateway 9000s). Rejections are values; an exception means a broken invariant.
 * Reasons reuse the engine's `Reason.Cancelled` (1) and `Reason.ExpiresAtReached` (3) for the
 * cases a user already knows from plain orders; the reasons only conditional orders have sit
 * at 4500+ so that the two tables never collide.
 * May import: engine/codes.
 */
import { Reason } from '../engine/codes.ts';

export const ConditionalCode = {
  Ok: 0,
  /** The orderId is already an untriggered order or a pending slice here. */
  OrderIdExists: 4001,
  /** The groupId (TWAP, iceberg) or ocoGroupId (TP/SL pair) is already live here. */
  GroupIdExists: 4002,
  InvalidQuantity: 4003,
  InvalidPrice: 4004,
  /** triggerPrice missing or not a positive tick count (takeProfit, stopLoss), or present on a trailingStop. */
  InvalidTrigger: 4005,
  /** trailingPercent not in (0, 1) exclusive, or given on an order that is not a trailingStop. */
  InvalidTrailingPercent: 4006,
  /** The last mark price already crossed the trigger: the order would fire at once. */
  TriggerAlreadyCrossed: 4007,
  /** A trailing stop needs a mark price to anchor to; none has been seen in this market yet. */
  MarkPriceUnknown: 4008,
  /** Not exactly one takeProfit and one stopLoss of the same owner and side, with the take-profit beyond the stop. */
  InvalidPair: 4009,
  /** parentOrderId names no order resting on the book. */
  ParentNotFound: 4010,
  /** A position-attached pair needs an open position that its side closes. */
  NoPositionToClose: 4011,
  /** TWAP period not a positive integer of milliseconds. */
  InvalidPeriod: 4012,
  /** TWAP / iceberg without slices, with too many, or with slices of another owner or side. */
  InvalidSlices: 4013,
  AlreadyExpired: 4014,
  OrderNotFound: 4015,
  NotOwner: 4016,
  /** The mark price is not a positive tick count. */
  InvalidMarkPrice: 4017,
  /** The order kind is not takeProfit, stopLoss or trailingStop. */
  InvalidKind: 4018,
} as const;
export type ConditionalCode = (typeof ConditionalCode)[keyof typeof ConditionalCode];

/** Why an untriggered order or a pending slice ended without entering the book. */
export const ConditionalReason = {
  /** The owner cancelled it (or its pair, or its TWAP / iceberg). */
  Cancelled: Reason.Cancelled,
  /** Its `expiresAt` was reached while untriggered. */
  ExpiresAtReached: Reason.ExpiresAtReached,
  /** Cancelled by the exchange (cancelAll with this reason). */
  ExchangeCancelled: Reason.ExchangeCancelled,
  /** The other order of its TP/SL pair triggered. */
  OcoTriggered: 4501,
  /** The other order of its TP/SL pair expired. */
  OcoExpired: 4502,
  /** Its parent order left the book without any fill. */
  ParentCancelled: 4503,
  /** The position it was attached to closed (or turned to the pair's side). */
  PositionClosed: 4504,
  /** A slice of its iceberg left the book before it was fully filled. */
  IcebergSliceUnfilled: 4505,
} as const;
export type ConditionalReason = (typeof ConditionalReason)[keyof typeof ConditionalReason];

/** How a TWAP or iceberg ended (`onGroupEnded`). */
export const GroupEnd = {
  /** Every slice entered the book (TWAP) or was fully filled (iceberg). */
  Completed: 0,
  Cancelled: Reason.Cancelled,
  ExchangeCancelled: Reason.ExchangeCancelled,
  IcebergSliceUnfilled: ConditionalReason.IcebergSliceUnfilled,
} as const;

/** An order of another owner is one that does not exist: ids cannot be probed. */
const ORDER_NOT_FOUND = 'Order not found';

/** Suggested user texts, by code and by reason (the gateway owns the final wording). */
export const CONDITIONAL_TEXT: Readonly<Record<number, string>> = {
  [ConditionalCode.OrderIdExists]: 'Order id already in use',
  [ConditionalCode.GroupIdExists]: 'Group id already in use',
  [ConditionalCode.InvalidQuantity]: 'Invalid quantity',
  [ConditionalCode.InvalidPrice]: 'Invalid price',
  [ConditionalCode.InvalidTrigger]: 'Invalid trigger price',
  [ConditionalCode.InvalidTrailingPercent]: 'Trailing percent must be above 0 and below 1, on trailing stops only',
  [ConditionalCode.TriggerAlreadyCrossed]: 'Trigger price already crossed by the mark price',
  [ConditionalCode.MarkPriceUnknown]: 'No mark price yet for this market',
  [ConditionalCode.InvalidPair]: 'A TP/SL pair is one takeProfit and one stopLoss of the same side, closing the position or the parent order',
  [ConditionalCode.ParentNotFound]: 'Parent order not found',
  [ConditionalCode.NoPositionToClose]: 'No position for this TP/SL pair to close',
  [ConditionalCode.InvalidPeriod]: 'Period must be a positive number of milliseconds',
  [ConditionalCode.InvalidSlices]: 'Invalid TWAP or iceberg orders',
  [ConditionalCode.AlreadyExpired]: 'Order already expired',
  [ConditionalCode.OrderNotFound]: ORDER_NOT_FOUND,
  [ConditionalCode.NotOwner]: ORDER_NOT_FOUND,
  [ConditionalCode.InvalidMarkPrice]: 'Invalid mark price',
  [ConditionalCode.InvalidKind]: 'Invalid order type',
  [ConditionalReason.OcoTriggered]: 'ocoTriggered',
  [ConditionalReason.OcoExpired]: 'ocoExpired',
  [ConditionalReason.ParentCancelled]: 'parentCancelled',
  [ConditionalReason.PositionClosed]: 'positionClosed',
  [ConditionalReason.IcebergSliceUnfilled]: 'icebergSliceUnfilled',
};
