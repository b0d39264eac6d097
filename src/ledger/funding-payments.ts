/**
 * @module ledger/funding-payments
 *
 * Funding settlement: at an interval's boundary the rate (funding.ts) is fixed, recorded, and
 * paid between the holders of the market's positions — into the cross collateral or the
 * isolated margin, and into the position's `funding` — with the rounding dust to the fund.
 *
 * Invariants: payers pay rounded up, receivers get rounded down, so Σ payments ≤ 0 and the
 * difference goes to the insurance fund (`fundingDust`): money is conserved to the unit.
 * A function over a `FundingContext` the `Ledger` hands it (its own records, shared).
 * May import: types/ids, config/market, ledger/.
 */
import { RATE_ONE } from '../config/market.ts';
import type { LedgerListener } from './events.ts';
import { fundingRate, nextBoundary } from './funding.ts';
import { credit, emitPosition, moveInsurance, type Funds } from './moves.ts';
import type { Position } from './position.ts';
import type { MarketState, OwnerState } from './state.ts';
import { ceilDiv } from './units.ts';
import { NO_OWNER } from '../types/ids.ts';

/** What funding settlement needs of the ledger: the owners (holders' accounts), the fund, the listener. */
export interface FundingContext {
  readonly owners: readonly OwnerState[];
  readonly funds: Funds;
  readonly emit: LedgerListener;
}

/** Settles `m`'s funding when `time` has reached the boundary of the interval being sampled. */
export function settleFundingIfDue(ctx: FundingContext, m: MarketState, time: number): void {
  const f = m.funding;
  if (f.nextAt === 0 || time < f.nextAt) return;
  const rate = fundingRate(m.spec, f.premiumSum, f.samples);
  const at = f.nextAt;
  f.premiumSum = 0n;
  f.samples = 0;
  f.nextAt = nextBoundary(m.spec, time);
  f.history.push({ time: at, rate });
  ctx.emit({ type: 'fundingRate', market: m.spec.index, rate, time: at });
  if (rate === 0n) return;
  const price = m.prices.index > 0 ? m.prices.index : m.prices.mark;
  // Payers pay rounded up, receivers get rounded down, each once from the exact payment
  // (|q|·price·rate, the notional not rounded first); the exact sums are equal (positions net
  // to zero), so Σ paid − Σ received ≥ 0 is the dust that goes to the fund. Rounding each
  // position's notional down first (a market whose notional divides) let one large receiver's
  // notional keep units its many small payers' lost, and the fund paid the difference.
  const perLot = BigInt(price) * m.scale.mul * (rate < 0n ? -rate : rate);
  const denominator = m.scale.div * RATE_ONE;
  let net = 0n;
  for (const ownerId of m.holders) {
    const o = ctx.owners[ownerId];
    const p = o.positions.get(m.spec.index) as Position;
    const due = perLot * BigInt(Math.abs(p.quantity));
    const amount = p.quantity > 0 === rate > 0n ? -ceilDiv(due, denominator) : due / denominator;
    net += amount;
    p.funding += amount;
    p.updatedAt = time;
    if (p.isolated) p.margin += amount;
    else credit(ctx.emit, o, amount, 'funding', time);
    ctx.emit({ type: 'fundingPayment', owner: ownerId, market: m.spec.index, amount, rate, time });
    emitPosition(ctx.emit, ownerId, p);
  }
  moveInsurance(ctx.emit, ctx.funds, -net, 'fundingDust', NO_OWNER, time);
}
