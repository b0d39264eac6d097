/**
 * The steps the ledger properties (properties.test, attack-money.property.test) take over their
 * reference books (NaiveOrderBook) as the application would, and the invariants both check
 * after every step. Each property keeps its own actions, prices and `place`: only what they do
 * alike is here.
 */
import assert from 'node:assert/strict';
import type { Ledger } from '../../src/ledger/ledger.ts';
import type { LiquidationCancel } from '../../src/ledger/events.ts';
import type { NaiveOrderBook } from '../../src/engine/naive-book.ts';
import { Reason } from '../../src/engine/codes.ts';
import { OrderFlag, marketOfOrderId, type Side } from '../../src/engine/types.ts';
import type { MarketIndex, OrderId, OwnerIndex } from '../../src/types/ids.ts';

/** The property's own way to admit an order and place it on its book. */
export type Place = (owner: OwnerIndex, market: MarketIndex, side: Side, price: number, lots: number, flags: number, liquidation: boolean) => void;

/** Cancels the order `pick` lands on among those placed, if it still rests. */
export function cancelPicked(books: readonly NaiveOrderBook[], placed: readonly OrderId[], pick: number, time: number): void {
  if (placed.length === 0) return;
  const id = placed[pick % placed.length];
  const view = books[marketOfOrderId(id)].order(id);
  if (view !== undefined) books[marketOfOrderId(id)].cancel(id, view.owner, time);
}

/** Samples the funding of `market` from its book's best bid and ask. */
export function sampleFunding(ledger: Ledger, books: readonly NaiveOrderBook[], market: MarketIndex, time: number): void {
  ledger.sampleFunding(market, books[market].bestBid(), books[market].bestAsk(), time);
}

/**
 * Liquidates whom the ledger finds below maintenance as the application does (app/exchange
 * `tick`): the owner's orders leave the books first — a cross liquidation's every book, an
 * isolated one's its market's — and once they have (these books answer at once) the
 * liquidation order (IOC, reduce-only) is priced and sent.
 */
export function liquidate(ledger: Ledger, books: readonly NaiveOrderBook[], time: number, place: Place): void {
  const cancels: LiquidationCancel[] = [];
  const orders = ledger.checkLiquidations(time, cancels);
  for (const c of cancels) for (const b of c.market === null ? books : [books[c.market]]) b.cancelAll(c.owner, time, Reason.ExchangeCancelled);
  for (const l of [...orders, ...ledger.readyLiquidations(time)]) place(l.owner, l.market, l.side, l.price, l.quantity, OrderFlag.ImmediateOrCancel | OrderFlag.ReduceOnly, true);
}

/**
 * Money conserved to the unit, every move of the insurance fund an event (`insuranceMoved`: the
 * sum of their deltas), the ledger's and the books' invariants, and no hold without its order
 * resting.
 */
export function checkLedgerAndBooks(ledger: Ledger, insuranceMoved: bigint, books: readonly NaiveOrderBook[], placed: readonly OrderId[]): void {
  ledger.checkConservation();
  assert.equal(insuranceMoved, ledger.insuranceFund, 'every move of the insurance fund is an insurance event');
  ledger.validateInternalState();
  for (const b of books) b.validateInternalState();
  for (const id of placed) if (ledger.holdOf(id) > 0n) assert.ok(books[marketOfOrderId(id)].order(id) !== undefined, `hold of ${id} without a resting order`);
}
