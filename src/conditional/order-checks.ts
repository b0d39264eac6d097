/**
 * @module conditional/order-checks
 *
 * The checks a new untriggered order (or TP/SL pair) passes before the conditional book records
 * it: its own fields, its id against the ids already taken, a pair's legs against each other
 * and against their parent or position, and its trigger against the last mark. Pure:
 * each returns the first failing `ConditionalCode`, or Ok.
 * May import: conditional/, config/market (RATE_ONE).
 */
import { RATE_ONE } from '../config/market.ts';
import { ConditionalCode } from './codes.ts';
import { crossed, senseOf } from './trigger-math.ts';
import { TriggerKind } from './types.ts';
import type { PlacePair, PlaceTrigger } from './types.ts';

/** Order ids already taken in the book (untriggered orders, pending slices). */
export interface TakenIds {
  has(orderId: number): boolean;
}

/** A positive safe integer: lots, ticks, periods, mark prices. */
export const isCount = (n: number): boolean => Number.isSafeInteger(n) && n > 0;

/** The first failing check of a trigger order's own fields and id, or Ok. */
export function checkTrigger(cmd: PlaceTrigger, taken: TakenIds): number {
  if (cmd.kind !== TriggerKind.TakeProfit && cmd.kind !== TriggerKind.StopLoss && cmd.kind !== TriggerKind.TrailingStop) return ConditionalCode.InvalidKind;
  if (!isCount(cmd.quantity)) return ConditionalCode.InvalidQuantity;
  if (!isCount(cmd.price)) return ConditionalCode.InvalidPrice;
  if (cmd.kind === TriggerKind.TrailingStop) {
    if (cmd.triggerPrice !== 0) return ConditionalCode.InvalidTrigger;
    if (cmd.trailingPercent <= 0n || cmd.trailingPercent >= RATE_ONE) return ConditionalCode.InvalidTrailingPercent;
  } else {
    if (!isCount(cmd.triggerPrice)) return ConditionalCode.InvalidTrigger;
    if (cmd.trailingPercent !== 0n) return ConditionalCode.InvalidTrailingPercent;
  }
  if (cmd.expiresAt !== 0 && cmd.expiresAt <= cmd.time) return ConditionalCode.AlreadyExpired;
  if (taken.has(cmd.orderId)) return ConditionalCode.OrderIdExists;
  return ConditionalCode.Ok;
}

/** A trailing stop needs a mark to anchor to; a fixed trigger must not be crossed by it already. */
export function checkMark(cmd: PlaceTrigger, lastMark: number): number {
  if (cmd.kind === TriggerKind.TrailingStop) {
    if (lastMark === 0) return ConditionalCode.MarkPriceUnknown;
  } else if (lastMark > 0 && crossed(senseOf(cmd.kind, cmd.side), cmd.triggerPrice, lastMark)) {
    return ConditionalCode.TriggerAlreadyCrossed;
  }
  return ConditionalCode.Ok;
}

/** OCO group ids in use. */
export interface TakenGroups {
  has(ocoGroupId: number): boolean;
}

/** The first failing check of a TP/SL pair: each leg, the legs together, its parent or position, then the mark. */
export function checkPair(cmd: PlacePair, taken: TakenIds, groups: TakenGroups, lastMark: number): number {
  const { takeProfit: tp, stopLoss: sl } = cmd;
  if (tp.kind !== TriggerKind.TakeProfit || sl.kind !== TriggerKind.StopLoss) return ConditionalCode.InvalidPair;
  const code = checkTrigger(tp, taken) || checkTrigger(sl, taken);
  if (code !== ConditionalCode.Ok) return code;
  if (tp.orderId === sl.orderId) return ConditionalCode.OrderIdExists;
  if (tp.owner !== sl.owner || tp.account !== sl.account || tp.side !== sl.side) return ConditionalCode.InvalidPair;
  // The take-profit lies beyond the stop in the direction of profit.
  if (tp.side * tp.triggerPrice >= tp.side * sl.triggerPrice) return ConditionalCode.InvalidPair;
  if (groups.has(cmd.ocoGroupId)) return ConditionalCode.GroupIdExists;
  if (cmd.parentOrderId !== 0) {
    const parent = cmd.parent;
    if (parent === undefined || parent.orderId !== cmd.parentOrderId) return ConditionalCode.ParentNotFound;
    if (parent.owner !== tp.owner) return ConditionalCode.NotOwner;
    if (parent.side !== -tp.side) return ConditionalCode.InvalidPair;
  } else if (cmd.position * tp.side >= 0) {
    return ConditionalCode.NoPositionToClose;
  }
  return checkMark(tp, lastMark) || checkMark(sl, lastMark);
}
