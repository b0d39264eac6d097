/**
 * @module ledger/open-loss
 *
 * The open loss of a fill: what it loses at once against the mark. Admission (holds.ts) holds
 * it with the order; settlement (settlement.ts) posts it as isolated margin of the lots opened.
 * May import: engine/types, ledger/.
 */
import type { Side } from '../engine/types.ts';
import type { MarketState } from './state.ts';
import { notional, valueAt } from './units.ts';

/**
 * What filling `lots` at `price` loses at once against the mark (0 when the mark is unknown):
 * a buy above it, a sell below it. A fill is never worse than its order's limit, so an order
 * that holds this cannot lose more than its owner has. Without it an order priced far through
 * the mark, filled by an accomplice's order there, bankrupts its owner on purpose: the insurance
 * fund and the winners' profit pay the loss, and the accomplice keeps it as profit.
 * Measured with the ledger's own valuations (the fill's notional rounds down, a position's value
 * toward −∞), so it is exactly the uPnL the fill opens with, or the PnL it realises beyond the mark.
 */
export function openLoss(m: MarketState, side: Side, price: number, lots: number): bigint {
  return openLossOf(m, side, notional(m.scale, price, lots), lots);
}

/** The same for `lots` traded for `amount` (a fill's notional, or its opening part). */
export function openLossOf(m: MarketState, side: Side, amount: bigint, lots: number): bigint {
  const mark = m.prices.mark;
  if (mark <= 0 || lots === 0) return 0n;
  const loss = side > 0 ? amount - valueAt(m.scale, mark, lots) : -valueAt(m.scale, mark, -lots) - amount;
  return loss > 0n ? loss : 0n;
}
