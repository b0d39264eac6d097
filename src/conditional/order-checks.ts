/**
 * @module conditional/order-checks
 *
 * The checks a new untriggered order passes before the conditional book records it: its own
 * fields, its id against the ids already taken, and its trigger against the last mark. Pure:
 * each returns the first failing `ConditionalCode`, or Ok.
 * May import: conditional/, config/market (RATE_ONE).
 */
import { RATE_ONE } from '../config/market.ts';
import { ConditionalCode } from './codes.ts';
import { crossed, senseOf } from './trigger-math.ts';
import { TriggerKind } from './types.ts';
import type { PlaceTrigger } from './types.ts';

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
