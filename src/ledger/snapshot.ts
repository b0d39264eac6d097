/**
 * @module ledger/snapshot
 *
 * The ledger's state as plain data: arrays and objects of numbers, booleans, strings and
 * **bigints** (money and fractions stay exact; a JSON writer needs a bigint replacer, msgpack
 * with bigint support takes it as is). Everything is in a canonical order (owners by id,
 * positions by market, holds by orderId) so that equal states serialize equally.
 *
 * `snapshotOf` reads the ledger's records into it; `restoreRecords` writes it back into the
 * records of a new ledger whose owners are registered already (Ledger.restore). Both copy:
 * nothing of a snapshot is shared with the ledger it came from or went into. O(owners +
 * positions + holds).
 * May import: types/ids, ledger/.
 */
import type { FundingRecord } from './funding.ts';
import type { MoneyFlows, LedgerRecords } from './invariants.ts';
import type { MarketPrices } from './mark-price.ts';
import type { Funds } from './moves.ts';
import type { Position } from './position.ts';
import { addLots, countedReduceLots, type Hold, type MarketState, type OwnerState } from './state.ts';
import type { MarketIndex, OwnerIndex } from '../types/ids.ts';

export interface OwnerSnapshot {
  collateral: bigint;
  holdTotal: bigint;
  positions: Position[];
  settings: Array<{ market: MarketIndex; isolated: boolean; fraction: bigint }>;
  openLots: Array<{ market: MarketIndex; buy: number; sell: number }>;
  liquidating: MarketIndex[];
  /** Markets of `liquidating` whose order waits for the owner's orders to leave the books, see `OwnerState.cancelling`. Absent when there is none. */
  cancelling?: MarketIndex[];
  /** Per market: position lots moved outside the books (ADL), see `OwnerState.offBook`. Absent in snapshots written before it existed. */
  offBook?: Array<{ market: MarketIndex; lots: number }>;
  /** Per market: margin held for a side's open orders beyond their holds, see `OwnerState.sideHolds`. Absent when there is none (and in snapshots written before it existed). */
  sideHolds?: Array<{ market: MarketIndex; buy: bigint; sell: bigint }>;
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
    holders: OwnerIndex[];
  }>;
  insuranceFund: bigint;
  feesCollected: bigint;
  deposited: bigint;
  withdrawn: bigint;
  fauceted: bigint;
}

/** The state of the ledger whose records these are, as plain data in canonical order. */
export function snapshotOf(records: LedgerRecords): LedgerSnapshot {
  return {
    version: 1,
    registry: records.registry.entries(),
    owners: records.owners.slice(1).map((o) => ({
      collateral: o.collateral,
      holdTotal: o.holdTotal,
      positions: [...o.positions.values()].sort((a, b) => a.market - b.market).map((p) => ({ ...p })),
      settings: [...o.settings.entries()].sort((a, b) => a[0] - b[0]).map(([market, s]) => ({ market, ...s })),
      openLots: [...o.openLots.entries()].sort((a, b) => a[0] - b[0]).map(([market, l]) => ({ market, ...l })),
      liquidating: [...o.liquidating].sort((a, b) => a - b),
      // Only when there is one, as for side holds.
      ...(o.cancelling.size === 0 ? {} : { cancelling: [...o.cancelling].sort((a, b) => a - b) }),
      offBook: [...o.offBook.entries()].sort((a, b) => a[0] - b[0]).map(([market, lots]) => ({ market, lots })),
      // Only when there is one: a state without side holds serializes (and hashes) as before them.
      ...(o.sideHolds.size === 0 ? {} : { sideHolds: [...o.sideHolds.entries()].sort((a, b) => a[0] - b[0]).map(([market, h]) => ({ market, ...h })) }),
    })),
    holds: [...records.holds.values()].sort((a, b) => a.orderId - b.orderId).map((h) => ({ ...h })),
    markets: records.markets.map((m) => ({
      prices: { ...m.prices },
      funding: { nextAt: m.funding.nextAt, premiumSum: m.funding.premiumSum, samples: m.funding.samples, history: m.funding.history.map((r) => ({ ...r })) },
      holders: [...m.holders],
    })),
    insuranceFund: records.funds.insurance,
    feesCollected: records.funds.feesCollected,
    deposited: records.flows.deposited,
    withdrawn: records.flows.withdrawn,
    fauceted: records.flows.fauceted,
  };
}

/** What `restoreRecords` writes: a new ledger's records, its owners registered (one per snapshot owner, in id order). */
export interface RestoredRecords {
  readonly owners: readonly OwnerState[];
  readonly markets: readonly MarketState[];
  readonly holds: Map<number, Hold>;
  readonly funds: Funds;
  readonly flows: MoneyFlows;
  /** Owners with a waiting liquidation (`cancelling`), derived: rebuilt here. */
  readonly waiting: Set<OwnerIndex>;
}

/** Writes `snap` into `records`: every owner's money, positions, settings and lots, the holds, the markets' prices and funding, the funds and flows. */
export function restoreRecords(records: RestoredRecords, snap: LedgerSnapshot): void {
  snap.owners.forEach((s, i) => {
    const o = records.owners[i + 1]!;
    o.collateral = s.collateral;
    o.holdTotal = s.holdTotal;
    for (const p of s.positions) o.positions.set(p.market, { ...p });
    for (const st of s.settings) o.settings.set(st.market, { isolated: st.isolated, fraction: st.fraction });
    for (const ol of s.openLots) o.openLots.set(ol.market, { buy: ol.buy, sell: ol.sell });
    for (const mk of s.liquidating) o.liquidating.add(mk);
    for (const mk of s.cancelling ?? []) o.cancelling.add(mk);
    if (o.cancelling.size > 0) records.waiting.add(o.owner);
    // A snapshot from before offBook: the books restored with it count no fills yet, so
    // everything of the position is off the book (engine/reduce-only-positions `restore`).
    if (s.offBook === undefined) for (const p of s.positions) o.offBook.set(p.market, p.quantity);
    else for (const ob of s.offBook) o.offBook.set(ob.market, ob.lots);
    for (const sh of s.sideHolds ?? []) o.sideHolds.set(sh.market, { buy: sh.buy, sell: sh.sell });
  });
  for (const h of snap.holds) {
    records.holds.set(h.orderId, { ...h });
    if (h.reduceOnly && !h.liquidation) addLots(records.owners[h.owner].reduceLots, h.market, h.side, countedReduceLots(h.remaining));
  }
  snap.markets.forEach((sm, i) => {
    const m = records.markets[i]!;
    Object.assign(m.prices, sm.prices);
    m.funding.nextAt = sm.funding.nextAt;
    m.funding.premiumSum = sm.funding.premiumSum;
    m.funding.samples = sm.funding.samples;
    m.funding.history = sm.funding.history.map((r) => ({ ...r }));
    for (const h of sm.holders) m.holders.add(h);
  });
  records.funds.insurance = snap.insuranceFund;
  records.funds.feesCollected = snap.feesCollected;
  records.flows.deposited = snap.deposited;
  records.flows.withdrawn = snap.withdrawn;
  records.flows.fauceted = snap.fauceted;
}
