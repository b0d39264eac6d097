/**
 * @module engine/codes
 *
 * The matching core's result codes and the reasons carried by terminal events: one table,
 * numeric and stable (they are written to the journal). Rejections are values, never
 * exceptions; an exception from the engine means a broken invariant.
 * Range: 3000–3999 (the ledger owns 2000–2999, auth 1000–1999, gateways 9000+).
 */

export const EngineCode = {
  Ok: 0,
  OrderIdExists: 3001,
  ClientIdExists: 3002,
  PostOnlyWouldTake: 3003,
  ReduceOnlyWouldIncrease: 3004,
  AlreadyExpired: 3005,
  InvalidPrice: 3006,
  InvalidQuantity: 3007,
  OrderNotFound: 3008,
  NotOwner: 3009,
  BelowMinSize: 3010,
  BookFull: 3011,
} as const;
export type EngineCode = (typeof EngineCode)[keyof typeof EngineCode];

/** Why an order left the book without filling completely. */
export const Reason = {
  /** Cancelled at the owner's request (by id, by clientId, or in a batch). */
  Cancelled: 1,
  /** The unfilled remainder of an immediate-or-cancel order. */
  ImmediateOrCancel: 2,
  /** `expiresAt` was reached. */
  ExpiresAtReached: 3,
  /** Self-trade prevention: a taker of the same account met this resting order. */
  SelfTrade: 4,
  /** Cancelled by the exchange (liquidation, reduce-only resize, market closed). */
  ExchangeCancelled: 5,
  /** A reduce-only order that no longer reduces the position. */
  ReduceOnlyCancelled: 6,
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/** The text a user reads in an order's `reason` field, by code. */
export const REASON_TEXT: Readonly<Record<number, string>> = {
  [Reason.Cancelled]: 'cancelled',
  [Reason.ImmediateOrCancel]: 'immediateOrCancel',
  [Reason.ExpiresAtReached]: 'expired',
  [Reason.SelfTrade]: 'selfTrade',
  [Reason.ExchangeCancelled]: 'exchangeCancelled',
  [Reason.ReduceOnlyCancelled]: 'reduceOnly',
  [EngineCode.OrderIdExists]: 'duplicateOrderId',
  [EngineCode.ClientIdExists]: 'duplicateClientId',
  [EngineCode.PostOnlyWouldTake]: 'postOnlyWouldTake',
  [EngineCode.ReduceOnlyWouldIncrease]: 'reduceOnlyWouldIncrease',
  [EngineCode.AlreadyExpired]: 'alreadyExpired',
  [EngineCode.InvalidPrice]: 'invalidPrice',
  [EngineCode.InvalidQuantity]: 'invalidQuantity',
  [EngineCode.OrderNotFound]: 'orderNotFound',
  [EngineCode.NotOwner]: 'notOwner',
  [EngineCode.BelowMinSize]: 'belowMinSize',
  [EngineCode.BookFull]: 'bookFull',
};
