/**
 * Self-naming traders and orders. Accounts: ALICE (owners ALICE and ALICE_SUB_2, one
 * account), BOB, CAROL, DAVE. Each named order has its own orderId; `at(time, order)` and
 * `{ ...ORDER, … }` make variants.
 */
import { OrderFlag, Side } from '../../src/engine/types.ts';
import type { AccountIndex, OwnerIndex, PlaceOrder } from '../../src/engine/types.ts';
import { accountNo, orderNo, ownerNo } from '../fixtures/ids.ts';

export interface Trader {
  owner: OwnerIndex;
  account: AccountIndex;
}

export const ALICE: Trader = { owner: ownerNo(11), account: accountNo(1) };
/** Alice's second subaccount: another owner, the same account (self-trade, clientIds). */
export const ALICE_SUB_2: Trader = { owner: ownerNo(12), account: accountNo(1) };
export const BOB: Trader = { owner: ownerNo(21), account: accountNo(2) };
export const CAROL: Trader = { owner: ownerNo(31), account: accountNo(3) };
export const DAVE: Trader = { owner: ownerNo(41), account: accountNo(4) };

export const GTC = 0;
export const IOC = OrderFlag.ImmediateOrCancel;
export const POST_ONLY = OrderFlag.PostOnly;
export const REDUCE_ONLY = OrderFlag.ReduceOnly;

export const T0 = 1_000;

export function limit(trader: Trader, orderId: number, side: 1 | -1, quantity: number, price: number, more: Partial<PlaceOrder> = {}): PlaceOrder {
  return {
    orderId: orderNo(orderId), owner: trader.owner, account: trader.account, side, price, quantity,
    flags: GTC, expiresAt: 0, clientId: null, position: 0, time: T0, ...more,
  };
}

export function at(time: number, order: PlaceOrder): PlaceOrder {
  return { ...order, time };
}

const { Buy, Sell } = Side;

export const ALICE_BUY_5_AT_10_GTC = limit(ALICE, 1, Buy, 5, 10);
export const ALICE_BUY_3_AT_9_GTC = limit(ALICE, 2, Buy, 3, 9);
export const ALICE_SELL_2_AT_11_GTC = limit(ALICE, 3, Sell, 2, 11);
export const ALICE_BUY_5_AT_10_CLIENT_A = limit(ALICE, 6, Buy, 5, 10, { clientId: 'a' });
export const ALICE_SUB_2_BUY_1_AT_8_CLIENT_A = limit(ALICE_SUB_2, 7, Buy, 1, 8, { clientId: 'a' });

export const BOB_SELL_3_AT_11_GTC = limit(BOB, 22, Sell, 3, 11);
export const BOB_SELL_2_AT_12_GTC = limit(BOB, 23, Sell, 2, 12);
export const BOB_SELL_3_AT_9_GTC = limit(BOB, 24, Sell, 3, 9);
export const BOB_SELL_7_AT_10_GTC = limit(BOB, 25, Sell, 7, 10);
export const BOB_SELL_2_AT_10_POST_ONLY = limit(BOB, 27, Sell, 2, 10, { flags: POST_ONLY });
export const BOB_SELL_2_AT_11_POST_ONLY = limit(BOB, 28, Sell, 2, 11, { flags: POST_ONLY });
export const BOB_BUY_1_AT_9_CLIENT_A = limit(BOB, 29, Buy, 1, 9, { clientId: 'a' });

export const CAROL_BUY_2_AT_10_GTC = limit(CAROL, 31, Buy, 2, 10);
export const CAROL_BUY_8_AT_12_GTC = limit(CAROL, 32, Buy, 8, 12);
export const CAROL_BUY_8_AT_12_IOC = limit(CAROL, 33, Buy, 8, 12, { flags: IOC });
export const CAROL_BUY_2_AT_11_IOC = limit(CAROL, 34, Buy, 2, 11, { flags: IOC });
export const CAROL_SELL_10_AT_9_REDUCE_ONLY_LONG_4 = limit(CAROL, 36, Sell, 10, 9, { flags: REDUCE_ONLY, position: 4 });
export const CAROL_BUY_2_AT_9_REDUCE_ONLY_SHORT_3 = limit(CAROL, 37, Buy, 2, 9, { flags: REDUCE_ONLY, position: -3 });
export const CAROL_BUY_2_AT_9_REDUCE_ONLY_FLAT = limit(CAROL, 38, Buy, 2, 9, { flags: REDUCE_ONLY, position: 0 });
export const CAROL_BUY_2_AT_9_REDUCE_ONLY_LONG_5 = limit(CAROL, 39, Buy, 2, 9, { flags: REDUCE_ONLY, position: 5 });

export const DAVE_BUY_1_AT_11_GTC = limit(DAVE, 41, Buy, 1, 11);
