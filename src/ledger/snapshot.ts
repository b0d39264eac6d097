/**
 * @module ledger/snapshot
 *
 * The ledger's state as plain data: arrays and objects of numbers, booleans, strings and
 * **bigints** (money and fractions stay exact; a JSON writer needs a bigint replacer, msgpack
 * with bigint support takes it as is). Everything is in a canonical order (owners by id,
 * positions by market, holds by orderId) so that equal states serialize equally.
 * May import: types/ids, ledger/.
 */
import type { FundingRecord } from './funding.ts';
import type { MarketPrices } from './mark-price.ts';
import type { Position } from './position.ts';
import type { Hold } from './state.ts';
import type { MarketIndex } from '../types/ids.ts';

export interface OwnerSnapshot {
  collateral: bigint;
  holdTotal: bigint;
  positions: Position[];
  settings: Array<{ market: MarketIndex; isolated: boolean; fraction: bigint }>;
  openLots: Array<{ market: MarketIndex; buy: number; sell: number }>;
  liquidating: MarketIndex[];
  /** Per market: position lots moved outside the books (ADL), see `OwnerState.offBook`. Absent in snapshots written before it existed. */
  offBook?: Array<{ market: MarketIndex; lots: number }>;
}

export interface LedgerSnapshot {
  version: 1;
  /** (address, subaccountIndex) by owner id − 1. */
  registry: Array<[string, number]>;
  /** By owner id − 1. */
  owners: OwnerSnapshot[];
  holds: Hold[];
  markets: Array<{
    prices: MarketPrices;
    funding: { nextAt: number; premiumSum: bigint; samples: number; history: FundingRecord[] };
    holders: number[];
  }>;
  insuranceFund: bigint;
  feesCollected: bigint;
  deposited: bigint;
  withdrawn: bigint;
  fauceted: bigint;
}
