/**
 * Shared fixtures of the ledger tests: two markets with round numbers, named traders, and a
 * ledger that records its events and checks its invariants after every command.
 *
 * BTC-USD-PERP: tick 1 USD (priceScale 0), lot 0.001 BTC (quantityScale 3) → notional of
 *   t ticks × l lots = t·l·1000 base units; 100 ticks × 1000 lots (1 BTC at 100) = 100 USD.
 *   10× max leverage, IMF 10 %, MMF 5 %, maker −0.01 % (rebate), taker 0.05 %.
 * ETH-USD-PERP: tick 0.01, lot 0.00001 → notional = t·l / 10 (rounded down): the divide case.
 *   Tiers: above 1,000 USD notional IMF 20 %, MMF 10 %.
 */
import { parseMarket, type MarketSpec } from '../../src/config/market.ts';
import { Ledger, type LedgerOptions } from '../../src/ledger/ledger.ts';
import type { LedgerEvent, LedgerListener } from '../../src/ledger/events.ts';
import type { MarketIndex, OwnerIndex } from '../../src/types/ids.ts';
import { marketNo, orderNo } from '../fixtures/ids.ts';

export const BTC = marketNo(0);
export const ETH = marketNo(1);

export const MARKETS: MarketSpec[] = [
  parseMarket(
    {
      symbol: 'BTC-USD-PERP', tickSize: '1', lotSize: '0.001', minSize: '0.001', maxLeverage: 10,
      initialMarginFraction: '0.1', maintenanceMarginFraction: '0.05', makerFee: '-0.0001', takerFee: '0.0005',
      fundingIntervalMs: 3_600_000, fundingRateCap: '0.04', interestRate: '0', oracleFeedId: '0x01', initialPrice: '100',
    },
    0,
  ),
  parseMarket(
    {
      symbol: 'ETH-USD-PERP', tickSize: '0.01', lotSize: '0.00001', minSize: '0.00001', maxLeverage: 20,
      initialMarginFraction: '0.05', maintenanceMarginFraction: '0.03', makerFee: '0', takerFee: '0.0005',
      fundingIntervalMs: 3_600_000, fundingRateCap: '0.04', interestRate: '0.0001', oracleFeedId: '0x02', initialPrice: '10',
      marginTiers: [{ notionalFloor: '1000', initialMarginFraction: '0.2', maintenanceMarginFraction: '0.1' }],
    },
    1,
  ),
];

export const ALICE = '0x' + 'a'.repeat(40);
export const BOB = '0x' + 'b'.repeat(40);
export const CAROL = '0x' + 'c'.repeat(40);
export const DAVE = '0x' + 'd'.repeat(40);

/** n whole USD in collateral base units. */
export const usd = (n: number): bigint => BigInt(Math.round(n * 1_000_000));

export interface Harness {
  ledger: Ledger;
  events: LedgerEvent[];
  /** Owner id of (address, 0), registering it. */
  id(address: string, sub?: number): OwnerIndex;
  /** Deposits and returns the owner id. */
  fund(address: string, amount: bigint, sub?: number): OwnerIndex;
  /** A fill between two owners with made-up order ids (no holds): maker rests, taker takes. */
  fill(maker: OwnerIndex, taker: OwnerIndex, takerSide: 1 | -1, price: number, lots: number, market?: MarketIndex, time?: number): void;
  ofType<T extends LedgerEvent['type']>(type: T): Array<Extract<LedgerEvent, { type: T }>>;
}

/** `also` hears every event too (a checker under test: sim/bounds); `markets` MARKETS unless given (more markets after them). */
export function harness(options: LedgerOptions = { faucet: true }, also?: LedgerListener, markets: MarketSpec[] = MARKETS): Harness {
  const events: LedgerEvent[] = [];
  const ledger = new Ledger(markets, options, (e) => {
    events.push(e);
    also?.(e);
  });
  let nextOrder = 1_000_000;
  const h: Harness = {
    ledger,
    events,
    id(address, sub = 0) {
      const r = ledger.register(address, sub);
      if (typeof r === 'number') throw new Error(`register: ${r}`);
      return r.owner;
    },
    fund(address, amount, sub = 0) {
      const code = ledger.deposit(address, sub, amount, 0);
      if (code !== 0) throw new Error(`deposit: ${code}`);
      return h.id(address, sub);
    },
    fill(maker, taker, takerSide, price, lots, market = BTC, time = 1) {
      const code = ledger.settleFill(orderNo(nextOrder++), orderNo(nextOrder++), maker, taker, takerSide, market, price, lots, time);
      if (code !== 0) throw new Error(`settleFill: ${code}`);
      ledger.validateInternalState();
    },
    ofType(type) {
      return events.filter((e) => e.type === type) as never;
    },
  };
  return h;
}
