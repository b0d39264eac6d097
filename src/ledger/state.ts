/**
 * @module ledger/state
 *
 * The ledger's mutable records: one per owner, one per market, one per open order's margin
 * hold. Plain objects so that snapshots are plain data.
 * May import: types/ids, config/market (types), ledger/, engine/types (types).
 */
import type { MarketSpec } from '../config/market.ts';
import type { FundingState } from './funding.ts';
import type { MarketPrices } from './mark-price.ts';
import type { Position } from './position.ts';
import type { NotionalScale } from './units.ts';
import type { Side } from '../engine/types.ts';
import type { AccountIndex, MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';

/** An owner's margin choice in one market. Default: cross at the market's initialMarginFraction. */
export interface MarginSetting {
  isolated: boolean;
  /** Desired margin fraction (1/leverage), RATE_SCALE. */
  fraction: bigint;
}

export interface OwnerState {
  owner: OwnerIndex;
  account: AccountIndex;
  /** Cross collateral, base units. May be negative only while the owner holds cross positions whose profit covers it. */
  collateral: bigint;
  positions: Map<MarketIndex, Position>;
  settings: Map<MarketIndex, MarginSetting>;
  /** Sum of this owner's hold amounts and side holds (`sideHolds`). */
  holdTotal: bigint;
  /** Per market: lots of open (not reduce-only) orders, buy and sell. */
  openLots: Map<MarketIndex, { buy: number; sell: number }>;
  /**
   * Per market: lots of open reduce-only orders (not liquidations), buy and sell. In flight they
   * shrink the position the book counts before the ledger settles their fills (ledger/holds).
   * Derived from the holds: rebuilt when a snapshot is restored, not saved in it. Each order
   * counts at most `REDUCE_LOTS_COUNTED` lots (`countedReduceLots`).
   */
  reduceLots: Map<MarketIndex, { buy: number; sell: number }>;
  /**
   * Per market: initial margin held for the open orders of a side beyond their own holds
   * (ledger/holds `sideNeed`), part of `holdTotal`. An order's hold counts the lots the position
   * takes back first as closing it, free of margin; when another order closes that position
   * first (a reduce-only order; or an order of the side whose fill closes lots it was held as
   * opening), those lots open a position instead, and the margin closing the position frees
   * is what they need. Kept here while the side's open orders may open that much, no more
   * (trimmed as they fill or leave: `trimSideHolds`); snapshotted.
   */
  sideHolds: Map<MarketIndex, { buy: bigint; sell: bigint }>;
  /**
   * Markets whose liquidation has begun: its order in flight, or, for those also in
   * `cancelling`, not priced yet. The owner places no order while any is here.
   */
  liquidating: Set<MarketIndex>;
  /**
   * Markets of `liquidating` whose liquidation order waits for the owner's orders in its scope
   * (a cross liquidation's: every market; an isolated one's: its own) to leave their books. A
   * book may have matched one before the cancel reached it, and that fill, on its way here,
   * spends equity the bankruptcy price would already have given the liquidation's buyer; each
   * book reports an order's fills before its end, so once every hold in the scope is released
   * every such fill is settled, and the order is priced on the state they left
   * (insolvency.ts `checkLiquidations`). Snapshotted.
   */
  cancelling: Set<MarketIndex>;
  /**
   * Per market: the position's lots less the net lots of this owner's fills the book executed
   * and the ledger settled — what ADL moved (0 entries dropped). Sent with every order to the
   * book, which adds the fills it executed itself to know the position as it is at the book
   * (engine/reduce-only-positions).
   */
  offBook: Map<MarketIndex, number>;
}

export interface MarketState {
  spec: MarketSpec;
  scale: NotionalScale;
  prices: MarketPrices;
  funding: FundingState;
  /** Owners with a non-zero position here, in insertion order. */
  holders: Set<OwnerIndex>;
}

/** The margin reserved for an open order, released as it fills or when it ends. */
export interface Hold {
  orderId: OrderId;
  owner: OwnerIndex;
  market: MarketIndex;
  side: Side;
  /** Lots still open. */
  remaining: number;
  /** Collateral still reserved. */
  amount: bigint;
  reduceOnly: boolean;
  liquidation: boolean;
  /** Owner id paid the originator fee (NO_OWNER = none). */
  originator: OwnerIndex;
  /** Fraction of notional, RATE_SCALE. */
  originatorFee: bigint;
}

/**
 * The most lots one reduce-only order counts in `reduceLots`. A reduce-only order may ask for
 * any quantity up to 2^53 − 1 lots ("close whatever there is"); summed as they are, two such
 * orders passed 2^53 and the count lost lots to rounding (the HTTP fuzz found the holds and
 * the count apart). 2^42 lots is beyond any position margin allows, and 1,000 open orders
 * (the account limit) of it stay exact.
 */
export const REDUCE_LOTS_COUNTED = 2 ** 42;

/** The lots a reduce-only order with `remaining` lots counts in its owner's `reduceLots`. */
export function countedReduceLots(remaining: number): number {
  return Math.min(remaining, REDUCE_LOTS_COUNTED);
}

export function newOwner(owner: OwnerIndex, account: AccountIndex): OwnerState {
  return { owner, account, collateral: 0n, positions: new Map(), settings: new Map(), holdTotal: 0n, openLots: new Map(), reduceLots: new Map(), sideHolds: new Map(), liquidating: new Set(), cancelling: new Set(), offBook: new Map() };
}

/** Adds `lots` on `side` (+ buys, − sells) to `market`'s entry of a per-market lot count. */
export function addLots(counts: Map<MarketIndex, { buy: number; sell: number }>, market: MarketIndex, side: number, lots: number): void {
  let c = counts.get(market);
  if (c === undefined) counts.set(market, (c = { buy: 0, sell: 0 }));
  if (side > 0) c.buy += lots;
  else c.sell += lots;
}

/** Takes `lots` on `side` off `market`'s entry, dropping it at zero both ways. */
export function removeLots(counts: Map<MarketIndex, { buy: number; sell: number }>, market: MarketIndex, side: number, lots: number): void {
  const c = counts.get(market) as { buy: number; sell: number };
  if (side > 0) c.buy -= lots;
  else c.sell -= lots;
  if (c.buy === 0 && c.sell === 0) counts.delete(market);
}
