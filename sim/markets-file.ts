/**
 * @module sim/markets-file
 *
 * The simulated operator's markets file at a restart: the markets in force with some of their
 * parameters changed, as an operator edits the file between two starts (docs/operations.md
 * "Changing the markets file") — fees (a rebate now and then), margin fractions and their tiers,
 * maxLeverage, minSize, maxOriginatorFee, funding — and now and then a market appended at the
 * end. Never a market moved, re-ticked or re-lotted (the start refuses those).
 *
 * Every variant is built as a file (`marketsFileOf`) and read back through `parseMarkets`, the
 * parser a start reads the file with: a change the parser refuses is not made (that market keeps
 * its values), so no invalid market can reach the exchange through the simulator.
 *
 * May import: src/config, sim/prng. No clock, no Math.random.
 */
import { RATE_ONE, formatRate, lotsToQuantity, marketsFileOf, parseMarket, parseMarkets, type MarketSpec } from '../src/config/market.ts';
import type { Prng } from './prng.ts';

/** At most this many markets beyond the first file's are appended in one seed. */
export const MAX_APPENDED = 3;

type Entry = Record<string, unknown>;

/** A rate `base × factor / 10`, clamped to [lo, RATE_ONE]. */
function scaled(base: bigint, tenths: number, lo = 0n): bigint {
  const v = (base * BigInt(tenths)) / 10n;
  return v < lo ? lo : v > RATE_ONE ? RATE_ONE : v;
}

/** A ceiling of `RATE_ONE / n`. */
const oneOver = (n: number): bigint => (RATE_ONE + BigInt(n) - 1n) / BigInt(n);

/** One market's entry with some parameters changed (not validated yet). */
function changed(rng: Prng, spec: MarketSpec, entry: Entry): Entry {
  const e: Entry = { ...entry };
  if (rng.chance(0.5)) {
    // Fees: 0 to 0.2 % for the taker; the maker a rebate, zero or a fee.
    const taker = BigInt(rng.between(0, 40) * 5_000);
    const maker = rng.chance(0.3) ? -((taker * BigInt(rng.between(0, 5))) / 10n) : (taker * BigInt(rng.between(0, 10))) / 10n;
    e.takerFee = formatRate(taker);
    e.makerFee = formatRate(maker);
  }
  if (rng.chance(0.35)) {
    // Leverage and margins: 1/maxLeverage ≤ IMF, MMF below it, tiers never falling.
    const maxLeverage = rng.pick([2, 5, 10, 20, 25, 50, 100]);
    const imf = scaled(oneOver(maxLeverage), rng.between(10, 30), 1n);
    const mmf = (imf * BigInt(rng.between(3, 7))) / 10n;
    e.maxLeverage = maxLeverage;
    e.initialMarginFraction = formatRate(imf);
    e.maintenanceMarginFraction = formatRate(mmf > 0n ? mmf : 1n);
    let prevI = imf;
    let prevM = mmf > 0n ? mmf : 1n;
    e.marginTiers = rng.chance(0.3)
      ? []
      : ((entry.marginTiers as Entry[] | undefined) ?? []).map((t) => {
          const i2 = scaled(prevI, rng.between(10, 25), prevI);
          const m2 = (() => {
            const m = (i2 * BigInt(rng.between(3, 7))) / 10n;
            return m < prevM ? prevM : m;
          })();
          prevI = i2;
          prevM = m2;
          return { notionalFloor: t.notionalFloor, initialMarginFraction: formatRate(i2), maintenanceMarginFraction: formatRate(m2) };
        });
  }
  if (rng.chance(0.25)) {
    // minSize: orders resting below a raised one stay (the books check it at placement only).
    const lots = Math.max(1, Math.round((spec.minSizeLots * rng.between(1, 40)) / 10));
    e.minSize = lotsToQuantity(spec, lots);
  }
  if (rng.chance(0.3)) e.maxOriginatorFee = formatRate(rng.pick([0n, 10_000n, 50_000n, 100_000n, 200_000n]));
  if (rng.chance(0.25)) {
    e.fundingIntervalMs = rng.pick([60_000, 900_000, 3_600_000, 8 * 3_600_000]);
    e.fundingRateCap = formatRate(scaled(spec.fundingRateCap, rng.between(1, 30), 1n));
    e.interestRate = formatRate(BigInt(rng.between(-2_000, 5_000)));
  }
  return e;
}

/**
 * What a sane operator keeps to: a taker's fees (trading and the originator's ceiling) well
 * inside every tier's gap between initial and maintenance margin. An isolated position's opening
 * fill pays its fees out of the initial margin it posts (ledger/settlement), so fees beyond the
 * gap open it below maintenance by its owner's own order — a finding of this generator when it
 * compounded fees across restarts (docs/simulator.md), kept out so the seeds test the records.
 */
function sane(m: MarketSpec): boolean {
  const gap = m.marginTiers.reduce((least, t) => (t.initialMarginFraction - t.maintenanceMarginFraction < least ? t.initialMarginFraction - t.maintenanceMarginFraction : least), RATE_ONE);
  return 2n * (m.takerFee + m.maxOriginatorFee) <= gap;
}

/** An entry for market `index` appended at the end: a copy of `template`'s under a new symbol and feed. */
function appended(template: Entry, index: number): Entry {
  return { ...template, symbol: `SIM${index}-USD-PERP`, oracleFeedId: `0x${(0x5100 + index).toString(16)}` };
}

/**
 * The markets file the operator starts the next process with: `current` (the journal's markets
 * now) with each market changed at a chance, parsed as a start parses it; a market appended at
 * the end at `appendChance` while fewer than `MAX_APPENDED` were appended beyond `initialCount`.
 * May come out equal to `current` (a start then journals nothing).
 */
export function operatorMarketsFile(rng: Prng, current: readonly MarketSpec[], initialCount: number, appendChance = 0.15): MarketSpec[] {
  const file = marketsFileOf(current).markets;
  const entries = file.map((entry, i) => {
    if (!rng.chance(0.5)) return entry;
    const e = changed(rng, current[i], entry);
    try {
      return sane(parseMarket(e, i)) ? e : entry;
    } catch {
      return entry; // what the parser refuses the operator fixes: this market keeps its values
    }
  });
  if (current.length - initialCount < MAX_APPENDED && rng.chance(appendChance)) entries.push(appended(rng.pick(file), current.length));
  return parseMarkets({ markets: entries });
}
