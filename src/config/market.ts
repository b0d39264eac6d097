/**
 * @module config/market
 *
 * A market's parameters, as written in the markets file (decimal strings) and as the cores
 * use them (integers). Everything numeric the engine and ledger see comes from `MarketSpec`.
 *
 * Units: prices are integer ticks of `tickSize`; quantities are integer lots of `lotSize`;
 * fractions (margins, fees, funding) are integers of 10^-RATE_SCALE; collateral is integer
 * base units of 10^-COLLATERAL_SCALE quote currency.
 * May import: numeric/decimal, types/ids.
 */
import { formatDecimal, parseDecimal, decimalPlaces } from '../numeric/decimal.ts';
import { asMarketIndex, type MarketIndex } from '../types/ids.ts';

/** Collateral (USD) base units: 6 decimals, like USDC. */
export const COLLATERAL_SCALE = 6;
/** Fractions (fees, margin fractions, funding rates): 8 decimals. */
export const RATE_SCALE = 8;
export const RATE_ONE = 10n ** BigInt(RATE_SCALE);

/** A rate (fee, margin fraction, funding) as the markets file writes it: `formatRate(50000n)` is `'0.0005'`. */
export const formatRate = (value: bigint): string => formatDecimal(value, RATE_SCALE);
/** Largest tick or lot count the engine accepts: an integer JavaScript numbers hold exactly. */
export const MAX_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

/** One margin tier: from `notionalFloor` (collateral units) upward these fractions apply. */
export interface MarginTier {
  notionalFloor: bigint;
  initialMarginFraction: bigint;
  maintenanceMarginFraction: bigint;
}

export interface MarketSpec {
  /** Position in the markets file; part of every orderId of this market. */
  index: MarketIndex;
  symbol: string;
  base: string;
  quote: string;
  tickSize: string;
  lotSize: string;
  minSize: string;
  /** Decimal places of a price and of a quantity. */
  priceScale: number;
  quantityScale: number;
  /** tickSize × 10^priceScale and lotSize × 10^quantityScale. */
  tickUnits: bigint;
  lotUnits: bigint;
  minSizeLots: number;
  maxLeverage: number;
  initialMarginFraction: bigint;
  maintenanceMarginFraction: bigint;
  marginTiers: MarginTier[];
  makerFee: bigint;
  takerFee: bigint;
  /** Largest `originatorFee` an order may carry, RATE_SCALE fraction of notional (markets file: optional, default `DEFAULT_MAX_ORIGINATOR_FEE`). */
  maxOriginatorFee: bigint;
  fundingIntervalMs: number;
  fundingRateCap: bigint;
  interestRate: bigint;
  oracleFeedId: string;
  /** Starting index price for the testnet feed (decimal string). */
  initialPrice: string;
}

/**
 * The originator fee's ceiling when a market does not set `maxOriginatorFee`: 0.1 % of notional
 * (what builder fees on perpetuals usually stay under). An order above its market's ceiling is
 * refused: the fee is charged to the trader and paid out whole, so without a ceiling an order
 * could move any amount to an originator of its choosing.
 */
const DEFAULT_MAX_ORIGINATOR_FEE = 100_000n;

/** A bad markets file: names the field and the value, as the operator wrote them. */
export class ConfigError extends Error {
  constructor(readonly field: string, readonly value: unknown, expectation: string) {
    super(`${field}: ${expectation}, got ${JSON.stringify(value)}`);
    this.name = 'ConfigError';
  }
}

const SYMBOL = /^[A-Z0-9]{1,12}-[A-Z0-9]{1,12}-PERP$/;
const FEED_ID = /^0x[0-9a-fA-F]{1,64}$/;

function positiveDecimal(field: string, value: unknown, maxScale = 18): { value: bigint; scale: number } {
  if (typeof value !== 'string') throw new ConfigError(field, value, 'must be a decimal string');
  const scale = decimalPlaces(value);
  const parsed = parseDecimal(value, Math.min(scale, maxScale), MAX_UNITS);
  if (!parsed.ok || parsed.value <= 0n) throw new ConfigError(field, value, 'must be a positive decimal string');
  return { value: parsed.value, scale };
}

function rate(field: string, value: unknown, allowNegative = false): bigint {
  if (typeof value !== 'string') throw new ConfigError(field, value, 'must be a decimal string');
  const parsed = parseDecimal(value, RATE_SCALE);
  if (!parsed.ok) throw new ConfigError(field, value, `must be a decimal string with at most ${RATE_SCALE} decimals`);
  if (parsed.value < 0n && !allowNegative) throw new ConfigError(field, value, 'must not be negative');
  if (parsed.value > RATE_ONE || parsed.value < -RATE_ONE) throw new ConfigError(field, value, 'must be between -1 and 1');
  return parsed.value;
}

function positiveInteger(field: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > max) {
    throw new ConfigError(field, value, `must be an integer from 1 to ${max}`);
  }
  return value;
}

/** Units of `text` at `scale` decimals, which must be a whole multiple of `step` units. */
function unitsOf(field: string, text: string, scale: number, step: bigint): bigint {
  const parsed = parseDecimal(text, scale, MAX_UNITS);
  if (!parsed.ok || parsed.value <= 0n || parsed.value % step !== 0n) {
    throw new ConfigError(field, text, 'must be a positive multiple of the step it is measured in');
  }
  return parsed.value / step;
}

/** Validates one entry of the markets file. */
export function parseMarket(raw: unknown, index: number, rules: MarketRules = 'policy'): MarketSpec {
  const policy = rules === 'policy';
  const at = `markets[${index}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError(at, raw, 'must be an object');
  const m = raw as Record<string, unknown>;
  if (typeof m.symbol !== 'string' || !SYMBOL.test(m.symbol)) {
    throw new ConfigError(`${at}.symbol`, m.symbol, 'must look like BASE-QUOTE-PERP in capitals');
  }
  const [base, quote] = m.symbol.split('-');
  const tick = positiveDecimal(`${at}.tickSize`, m.tickSize);
  const lot = positiveDecimal(`${at}.lotSize`, m.lotSize);
  positiveDecimal(`${at}.minSize`, m.minSize);
  const minSizeLots = Number(unitsOf(`${at}.minSize`, m.minSize as string, lot.scale, lot.value));
  const maxLeverage = positiveInteger(`${at}.maxLeverage`, m.maxLeverage, 1000);
  const initialMarginFraction = rate(`${at}.initialMarginFraction`, m.initialMarginFraction);
  const maintenanceMarginFraction = rate(`${at}.maintenanceMarginFraction`, m.maintenanceMarginFraction);
  if (initialMarginFraction <= 0n) throw new ConfigError(`${at}.initialMarginFraction`, m.initialMarginFraction, 'must be positive');
  if (maintenanceMarginFraction <= 0n || (policy && maintenanceMarginFraction >= initialMarginFraction)) {
    throw new ConfigError(`${at}.maintenanceMarginFraction`, m.maintenanceMarginFraction, 'must be positive and below initialMarginFraction');
  }
  if (policy && initialMarginFraction * BigInt(maxLeverage) < RATE_ONE) {
    throw new ConfigError(`${at}.initialMarginFraction`, m.initialMarginFraction, `must be at least 1/maxLeverage (${formatDecimal(RATE_ONE / BigInt(maxLeverage), RATE_SCALE)})`);
  }
  const makerFee = rate(`${at}.makerFee`, m.makerFee, true);
  const takerFee = rate(`${at}.takerFee`, m.takerFee);
  if (policy && takerFee + makerFee < 0n) throw new ConfigError(`${at}.makerFee`, m.makerFee, 'rebate must not exceed takerFee');
  const maxOriginatorFee = m.maxOriginatorFee === undefined ? DEFAULT_MAX_ORIGINATOR_FEE : rate(`${at}.maxOriginatorFee`, m.maxOriginatorFee);
  const fundingIntervalMs = positiveInteger(`${at}.fundingIntervalMs`, m.fundingIntervalMs, 7 * 24 * 3600 * 1000);
  const fundingRateCap = rate(`${at}.fundingRateCap`, m.fundingRateCap);
  const interestRate = rate(`${at}.interestRate`, m.interestRate, true);
  if (typeof m.oracleFeedId !== 'string' || !FEED_ID.test(m.oracleFeedId)) {
    throw new ConfigError(`${at}.oracleFeedId`, m.oracleFeedId, 'must be a 0x-prefixed hex string');
  }
  positiveDecimal(`${at}.initialPrice`, m.initialPrice);
  unitsOf(`${at}.initialPrice`, m.initialPrice as string, tick.scale, tick.value);
  const marginTiers = parseTiers(`${at}.marginTiers`, m.marginTiers, initialMarginFraction, maintenanceMarginFraction, policy);
  // An isolated position pays the fees of the fill that opens it out of the initial margin that
  // fill posts: fees at or above the gap to maintenance made its owner's own order open it below
  // maintenance, liquidated at the next Tick (found by the simulator's markets changes;
  // test/ledger/isolated-open-fee-gap).
  const feeCeiling = (makerFee > takerFee ? makerFee : takerFee) + maxOriginatorFee;
  for (const t of policy ? marginTiers : []) {
    const gap = t.initialMarginFraction - t.maintenanceMarginFraction;
    if (feeCeiling >= gap) {
      throw new ConfigError(
        `${at}.takerFee`,
        m.takerFee,
        `plus maxOriginatorFee (${formatRate(feeCeiling)} together) must stay below initialMarginFraction − maintenanceMarginFraction of every tier (${formatRate(gap)} at notional ${formatDecimal(t.notionalFloor, COLLATERAL_SCALE)}): an isolated position pays its opening fees out of its initial margin, and would open below maintenance`,
      );
    }
  }
  return {
    index: asMarketIndex(index),
    symbol: m.symbol,
    base,
    quote,
    tickSize: m.tickSize as string,
    lotSize: m.lotSize as string,
    minSize: m.minSize as string,
    priceScale: tick.scale,
    quantityScale: lot.scale,
    tickUnits: tick.value,
    lotUnits: lot.value,
    minSizeLots,
    maxLeverage,
    initialMarginFraction,
    maintenanceMarginFraction,
    marginTiers,
    makerFee,
    takerFee,
    maxOriginatorFee,
    fundingIntervalMs,
    fundingRateCap,
    interestRate,
    oracleFeedId: m.oracleFeedId.toLowerCase(),
    initialPrice: m.initialPrice as string,
  };
}

function parseTiers(field: string, raw: unknown, imf: bigint, mmf: bigint, policy: boolean): MarginTier[] {
  const base: MarginTier = { notionalFloor: 0n, initialMarginFraction: imf, maintenanceMarginFraction: mmf };
  if (raw === undefined) return [base];
  if (!Array.isArray(raw)) throw new ConfigError(field, raw, 'must be an array');
  const tiers = [base];
  raw.forEach((t, i) => {
    const at = `${field}[${i}]`;
    if (typeof t !== 'object' || t === null) throw new ConfigError(at, t, 'must be an object');
    const tier = t as Record<string, unknown>;
    const floor = parseDecimal(String(tier.notionalFloor), COLLATERAL_SCALE);
    if (typeof tier.notionalFloor !== 'string' || !floor.ok || floor.value <= tiers[tiers.length - 1].notionalFloor) {
      throw new ConfigError(`${at}.notionalFloor`, tier.notionalFloor, 'must be a decimal string above the previous tier');
    }
    const i2 = rate(`${at}.initialMarginFraction`, tier.initialMarginFraction);
    const m2 = rate(`${at}.maintenanceMarginFraction`, tier.maintenanceMarginFraction);
    const prev = tiers[tiers.length - 1];
    if (policy && (i2 < prev.initialMarginFraction || m2 < prev.maintenanceMarginFraction || m2 >= i2)) {
      throw new ConfigError(at, t, 'fractions must not fall with notional, and maintenance must stay below initial');
    }
    tiers.push({ notionalFloor: floor.value, initialMarginFraction: i2, maintenanceMarginFraction: m2 });
  });
  return tiers;
}

/**
 * Which rules a markets list is read under:
 *  - `policy`, a markets file an operator starts on: every rule of today, the shape of each field
 *    and the risk rules between them (maintenance below initial, initial at least 1/maxLeverage,
 *    a rebate no larger than the taker fee, tiers that do not fall, the fee gap);
 *  - `recorded`, markets the exchange already ran under (a journal's markets record, a snapshot's,
 *    `markets-in-use.json`): the shape alone. They passed the policy of their day when they were
 *    written, and the outcomes given under them stand: a rule tightened since must not stop their
 *    replay (test/e2e/markets-record-old-rules).
 */
export type MarketRules = 'policy' | 'recorded';

/** Validates the whole markets file: `{ "markets": [...] }` with unique symbols and feed ids. */
export function parseMarkets(raw: unknown, rules: MarketRules = 'policy'): MarketSpec[] {
  if (typeof raw !== 'object' || raw === null || !Array.isArray((raw as { markets?: unknown }).markets)) {
    throw new ConfigError('markets', raw, 'must be an object with a "markets" array');
  }
  const list = (raw as { markets: unknown[] }).markets;
  if (list.length === 0 || list.length > 4096) throw new ConfigError('markets', list.length, 'must list 1 to 4096 markets');
  const markets = list.map((m, index) => parseMarket(m, index, rules));
  const seen = new Set<string>();
  for (const m of markets) {
    if (seen.has(m.symbol)) throw new ConfigError(`markets[${m.index}].symbol`, m.symbol, 'must be unique');
    seen.add(m.symbol);
  }
  return markets;
}

/**
 * The markets as a markets file writes them (`parseMarkets` reads it back to the same specs): what
 * storage/markets-in-use keeps of the markets a data directory's state was built under, so the
 * operator can start on it again (`--markets`).
 */
export function marketsFileOf(markets: readonly MarketSpec[]): { markets: Record<string, unknown>[] } {
  const rate = formatRate;
  return {
    markets: markets.map((m) => ({
      symbol: m.symbol,
      tickSize: m.tickSize,
      lotSize: m.lotSize,
      minSize: m.minSize,
      maxLeverage: m.maxLeverage,
      initialMarginFraction: rate(m.initialMarginFraction),
      maintenanceMarginFraction: rate(m.maintenanceMarginFraction),
      marginTiers: m.marginTiers.slice(1).map((t) => ({
        notionalFloor: formatDecimal(t.notionalFloor, COLLATERAL_SCALE),
        initialMarginFraction: rate(t.initialMarginFraction),
        maintenanceMarginFraction: rate(t.maintenanceMarginFraction),
      })),
      makerFee: rate(m.makerFee),
      takerFee: rate(m.takerFee),
      maxOriginatorFee: rate(m.maxOriginatorFee),
      fundingIntervalMs: m.fundingIntervalMs,
      fundingRateCap: rate(m.fundingRateCap),
      interestRate: rate(m.interestRate),
      oracleFeedId: m.oracleFeedId,
      initialPrice: m.initialPrice,
    })),
  };
}

/** Price string → ticks, or why not. The gateway maps the problem to its error text. */
export function priceToTicks(market: MarketSpec, text: string): number | 'notDecimal' | 'offTick' | 'outOfRange' {
  const parsed = parseDecimal(text, market.priceScale, MAX_UNITS);
  if (!parsed.ok) return parsed.problem === 'tooPrecise' ? 'offTick' : parsed.problem === 'tooLarge' ? 'outOfRange' : 'notDecimal';
  if (parsed.value % market.tickUnits !== 0n) return 'offTick';
  const ticks = parsed.value / market.tickUnits;
  if (ticks <= 0n) return 'outOfRange';
  return Number(ticks);
}

/** Quantity string → signed lots, or why not. */
export function quantityToLots(market: MarketSpec, text: string): number | 'notDecimal' | 'offLot' | 'outOfRange' {
  const parsed = parseDecimal(text, market.quantityScale, MAX_UNITS);
  if (!parsed.ok) return parsed.problem === 'tooPrecise' ? 'offLot' : parsed.problem === 'tooLarge' ? 'outOfRange' : 'notDecimal';
  if (parsed.value % market.lotUnits !== 0n) return 'offLot';
  return Number(parsed.value / market.lotUnits);
}

export function ticksToPrice(market: MarketSpec, ticks: number): string {
  return formatDecimal(BigInt(ticks) * market.tickUnits, market.priceScale);
}

export function lotsToQuantity(market: MarketSpec, lots: number): string {
  return formatDecimal(BigInt(lots) * market.lotUnits, market.quantityScale);
}

/** Finds a market by `BASE-QUOTE-PERP`, or by bare `BASE` when exactly one market has it. */
export function findMarket(markets: readonly MarketSpec[], symbol: string): MarketSpec | undefined {
  const exact = markets.find((m) => m.symbol === symbol);
  if (exact !== undefined) return exact;
  const byBase = markets.filter((m) => m.base === symbol);
  return byBase.length === 1 ? byBase[0] : undefined;
}
