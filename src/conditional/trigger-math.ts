/**
 * @module conditional/trigger-math
 *
 * When a trigger fires, in integer arithmetic. Every comparison is made in "key space":
 * `key = sense × price`, where `sense` is +1 for orders that fire when the mark FALLS to their
 * trigger and −1 for orders that fire when it RISES to it. In key space every order fires when
 * `sense × mark <= key`, so one max-ordered structure per sense serves both directions.
 *
 * | order                         | sense | fires when      |
 * |-------------------------------|-------|-----------------|
 * | sell stopLoss, sell trailing  | +1    | mark <= trigger |
 * | sell takeProfit               | −1    | mark >= trigger |
 * | buy stopLoss, buy trailing    | −1    | mark >= trigger |
 * | buy takeProfit                | +1    | mark <= trigger |
 *
 * Trailing stop, anchor A (best mark since placement: highest for a sell, lowest for a buy),
 * fraction p at RATE_SCALE: sell trigger = ⌊A·(1 − p)⌋, buy trigger = ⌈A·(1 + p)⌉. Rounding
 * is away from the anchor, so a stop never fires before the mark has retraced by the full
 * fraction. In key space both are `⌊(sense·A)·(1 − sense·p)⌋`.
 * May import: config/market (RATE_ONE only: a constant, no I/O), conditional/types.
 */
import { RATE_ONE } from '../config/market.ts';
import { TriggerKind } from './types.ts';

/** Below every mark key (marks are < 2^53): a buy trailing trigger beyond 2^53 ticks never fires. */
const NEVER = -(2 ** 53);

/** +1 when the order fires on a fall of the mark, −1 on a rise. */
export function senseOf(kind: TriggerKind, side: 1 | -1): 1 | -1 {
  return kind === TriggerKind.TakeProfit ? side : (-side as 1 | -1);
}

/** A trailing stop's trigger key for its anchor key (sense × anchor ticks); `percent` in RATE_SCALE units. */
export function trailingKey(anchorKey: number, percent: number, sense: 1 | -1): number {
  const product = BigInt(anchorKey) * (RATE_ONE - BigInt(sense * percent));
  let floor = product / RATE_ONE;
  if (product < 0n && floor * RATE_ONE !== product) floor -= 1n;
  return floor < BigInt(NEVER) ? NEVER : Number(floor);
}

/** The trigger price in ticks of a trailing stop anchored at `anchor` ticks. */
export function trailingTrigger(anchor: number, percent: number, sense: 1 | -1): number {
  return sense * trailingKey(sense * anchor, percent, sense);
}

/** Whether a mark of `mark` ticks has crossed a trigger of `trigger` ticks for this sense. */
export function crossed(sense: 1 | -1, trigger: number, mark: number): boolean {
  return sense * mark <= sense * trigger;
}
