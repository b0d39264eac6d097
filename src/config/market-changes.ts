/**
 * @module config/market-changes
 *
 * What a new markets file changes against the markets a data directory's state was built under
 * (storage/markets-in-use records them), sorted by what it does to that state:
 *  - **moved, missing, rescaled** — a market whose place in the file changed (its index is in
 *    every order id, position, hold and journal record), one left out (its positions and orders
 *    are still there), or one whose tickSize or lotSize changed (every price is stored in ticks,
 *    every quantity in lots): the state cannot be read
 *    under the new file at all — `refusal`;
 *  - **parameters** — fees, margin fractions and tiers, leverage, minimum size, the originator
 *    fee's ceiling, funding: the journal's commands give other outcomes under other values, so
 *    they change only at a markets record the journal holds (sequencer/markets-record), where
 *    every replay switches too — `parameters`, what such a record changes;
 *  - **free** — oracleFeedId and initialPrice (where the testnet feed starts) change nothing
 *    recorded; and markets appended at the end (new indexes) are listed in `changes` but
 *    replay never meets them.
 * Pure: what to do about each kind (refuse, journal and log) is the caller's.
 * May import: config/market, numeric/decimal.
 */
import { formatDecimal } from '../numeric/decimal.ts';
import { COLLATERAL_SCALE, formatRate as rate, type MarketSpec } from './market.ts';

export interface MarketsDiff {
  /** Why the state cannot be read under the new file (the first market that moved, went missing or changed its units), or null. */
  refusal: string | null;
  /** Each parameter that changed (`BTC-USD-PERP takerFee 0.0005 → 0.0006`) and each market added. */
  parameters: string[];
  added: string[];
}

const tiers = (m: MarketSpec): string =>
  m.marginTiers
    .slice(1)
    .map((t) => `${formatDecimal(t.notionalFloor, COLLATERAL_SCALE)}: ${rate(t.initialMarginFraction)}/${rate(t.maintenanceMarginFraction)}`)
    .join(', ') || 'none';

/** The parameters replay depends on, as the markets file writes them. */
const PARAMETERS: readonly [name: string, text: (m: MarketSpec) => string][] = [
  ['minSize', (m) => m.minSize],
  ['maxLeverage', (m) => String(m.maxLeverage)],
  ['initialMarginFraction', (m) => rate(m.initialMarginFraction)],
  ['maintenanceMarginFraction', (m) => rate(m.maintenanceMarginFraction)],
  ['marginTiers', tiers],
  ['makerFee', (m) => rate(m.makerFee)],
  ['takerFee', (m) => rate(m.takerFee)],
  ['maxOriginatorFee', (m) => rate(m.maxOriginatorFee)],
  ['fundingIntervalMs', (m) => String(m.fundingIntervalMs)],
  ['fundingRateCap', (m) => rate(m.fundingRateCap)],
  ['interestRate', (m) => rate(m.interestRate)],
];

export function diffMarkets(recorded: readonly MarketSpec[], current: readonly MarketSpec[]): MarketsDiff {
  const parameters: string[] = [];
  let refusal: string | null = null;
  for (let i = 0; i < recorded.length && refusal === null; i++) {
    const was = recorded[i];
    const now = current[i];
    if (now === undefined) {
      refusal = `${was.symbol} (market ${i}) is missing from the markets file: this data directory holds its orders, positions and history — keep it in the file, in its place`;
    } else if (now.symbol !== was.symbol) {
      const moved = current.find((m) => m.symbol === was.symbol);
      refusal =
        `${now.symbol} is market ${i} in the markets file (its place in the list), where this data directory has ${was.symbol}` +
        `${moved === undefined ? ` (missing from the file)` : ` (now market ${moved.index})`}: every order id, position and journal record names a market by its place — keep the markets in their places and add new ones at the end`;
    } else if (now.tickUnits !== was.tickUnits || now.priceScale !== was.priceScale) {
      refusal = `${now.symbol} has tickSize "${now.tickSize}" in the markets file, where this data directory's prices are in ticks of "${was.tickSize}": a market's tickSize cannot change`;
    } else if (now.lotUnits !== was.lotUnits || now.quantityScale !== was.quantityScale) {
      refusal = `${now.symbol} has lotSize "${now.lotSize}" in the markets file, where this data directory's quantities are in lots of "${was.lotSize}": a market's lotSize cannot change`;
    } else {
      for (const [name, text] of PARAMETERS) {
        const before = text(was);
        const after = text(now);
        if (before !== after) parameters.push(`${now.symbol} ${name} ${before} → ${after}`);
      }
    }
  }
  return { refusal, parameters, added: current.slice(recorded.length).map((m) => m.symbol) };
}
