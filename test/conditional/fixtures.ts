/**
 * Self-naming traders and conditional orders. The market's mark starts at `MARK_100`; each
 * named order has its own orderId; `{ ...ORDER, … }` makes variants.
 */
import { OrderFlag, Side } from '../../src/engine/types.ts';
import type { AccountIndex, OwnerIndex, PlaceOrder } from '../../src/engine/types.ts';
import { TriggerKind } from '../../src/conditional/types.ts';
import type { OrderFields, PlacePair, PlaceSlices, PlaceTrigger } from '../../src/conditional/types.ts';
import { accountNo, orderNo, ownerNo } from '../fixtures/ids.ts';

export interface Trader {
  owner: OwnerIndex;
  account: AccountIndex;
}

export const ALICE: Trader = { owner: ownerNo(11), account: accountNo(1) };
export const BOB: Trader = { owner: ownerNo(21), account: accountNo(2) };

export const GTC = 0;
export const IOC = OrderFlag.ImmediateOrCancel;
export const REDUCE_ONLY = OrderFlag.ReduceOnly;
export const T0 = 1_000;
export const MARK_100 = 100;
/** 5 % at RATE_SCALE (8 decimals). */
export const FIVE_PERCENT = 5_000_000n;

const { Buy, Sell } = Side;
const { TakeProfit, StopLoss, TrailingStop } = TriggerKind;

export function conditional(
  trader: Trader, orderId: number, kind: TriggerKind, side: 1 | -1, quantity: number, price: number,
  triggerPrice: number, more: Partial<PlaceTrigger> = {},
): PlaceTrigger {
  return {
    orderId: orderNo(orderId), owner: trader.owner, account: trader.account, side, price, quantity, flags: GTC, expiresAt: 0,
    clientId: null, kind, triggerPrice, trailingPercent: 0n, time: T0, ...more,
  };
}

export function trailing(trader: Trader, orderId: number, side: 1 | -1, quantity: number, price: number, trailingPercent: bigint): PlaceTrigger {
  return conditional(trader, orderId, TrailingStop, side, quantity, price, 0, { trailingPercent });
}

/** What the book hands the application for a released order: the order's fields, position 0, the release time. */
export function released(o: OrderFields, time: number, quantity = o.quantity): PlaceOrder {
  return {
    orderId: o.orderId, owner: o.owner, account: o.account, side: o.side, price: o.price, quantity, flags: o.flags,
    expiresAt: o.expiresAt, clientId: o.clientId, position: 0, time,
  };
}

/** Closing a long: sell stop at 95, market-like (IOC at 1 tick) and reduce-only. */
export const ALICE_SELL_STOP_5_TRIGGER_95 = conditional(ALICE, 1, StopLoss, Sell, 5, 1, 95, { flags: IOC | REDUCE_ONLY });
/** Closing a long: sell take-profit at 110, a limit at 109. */
export const ALICE_SELL_TP_5_TRIGGER_110_AT_109 = conditional(ALICE, 2, TakeProfit, Sell, 5, 109, 110, { flags: REDUCE_ONLY });
/** Closing a short: buy stop at 105. */
export const BOB_BUY_STOP_3_TRIGGER_105 = conditional(BOB, 3, StopLoss, Buy, 3, 200, 105, { flags: IOC | REDUCE_ONLY });
/** Closing a short: buy take-profit at 90. */
export const BOB_BUY_TP_3_TRIGGER_90 = conditional(BOB, 4, TakeProfit, Buy, 3, 90, 90, { flags: REDUCE_ONLY });
/** Sell trailing stop 5 % below the highest mark. */
export const ALICE_SELL_TRAILING_5_PERCENT = trailing(ALICE, 5, Sell, 5, 1, FIVE_PERCENT);
/** Buy trailing stop 5 % above the lowest mark. */
export const BOB_BUY_TRAILING_5_PERCENT = trailing(BOB, 6, Buy, 3, 1_000, FIVE_PERCENT);

/** Alice's position-attached pair closing a long: TP at 110 (id 11), SL at 95 (id 12), both 5 lots IOC reduce-only. */
export const ALICE_LONG_5_PAIR_TP_110_SL_95: PlacePair = {
  ocoGroupId: orderNo(1),
  takeProfit: conditional(ALICE, 11, TakeProfit, Sell, 5, 1, 110, { flags: IOC | REDUCE_ONLY }),
  stopLoss: conditional(ALICE, 12, StopLoss, Sell, 5, 1, 95, { flags: IOC | REDUCE_ONLY }),
  parentOrderId: orderNo(0),
  parent: undefined,
  position: 5,
  time: T0,
};

/** Alice's resting buy of 10 at 100 (the engine's order 50), unfilled. */
export const ALICE_PARENT_BUY_10_AT_100 = { orderId: orderNo(50), owner: ALICE.owner, side: Buy, filled: 0 } as const;

/** A pair of 8 lots attached to Alice's parent buy 50: TP 110 (id 21), SL 95 (id 22). */
export const ALICE_PAIR_8_ON_PARENT_50: PlacePair = {
  ocoGroupId: orderNo(2),
  takeProfit: conditional(ALICE, 21, TakeProfit, Sell, 8, 1, 110, { flags: IOC | REDUCE_ONLY }),
  stopLoss: conditional(ALICE, 22, StopLoss, Sell, 8, 1, 95, { flags: IOC | REDUCE_ONLY }),
  parentOrderId: orderNo(50),
  parent: ALICE_PARENT_BUY_10_AT_100,
  position: 0,
  time: T0,
};

export function slice(trader: Trader, orderId: number, side: 1 | -1, quantity: number, price: number): OrderFields {
  return { orderId: orderNo(orderId), owner: trader.owner, account: trader.account, side, price, quantity, flags: GTC, expiresAt: 0, clientId: null };
}

/** TWAP 70: Alice buys 4 × 2 lots at 101, one slice every 60 s (ids 71–74). */
export const ALICE_TWAP_4_SLICES_EVERY_60S: PlaceSlices = {
  groupId: orderNo(70),
  owner: ALICE.owner,
  slices: [71, 72, 73, 74].map((id) => slice(ALICE, id, Buy, 2, 101)),
  period: 60_000,
  time: T0,
};

/** Iceberg 80: Bob sells 3 slices of 5 lots at 102 (ids 81–83). */
export const BOB_ICEBERG_3_SLICES_OF_5: PlaceSlices = {
  groupId: orderNo(80),
  owner: BOB.owner,
  slices: [81, 82, 83].map((id) => slice(BOB, id, Sell, 5, 102)),
  period: 0,
  time: T0,
};
