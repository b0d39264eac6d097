/**
 * @module app/ports
 *
 * The application's ports: what the `Exchange` is handed to send book commands out (a
 * `MarketRouter`) and to tell what changed (`ExchangeListeners`). The application owns these
 * interfaces; the thread transport, replay and the projections implement them.
 * May import: types/ids, engine/types (types), ledger/events (types), app/order-registry (types).
 */
import type { PlaceOrder, Side } from '../engine/types.ts';
import type { LedgerEvent } from '../ledger/events.ts';
import type { OrderChangeListener } from './order-registry.ts';
import type { MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';

/** Where book commands go: a market thread's ring live, an in-process book in replay. */
export interface MarketRouter {
  place(market: MarketIndex, cmd: PlaceOrder): void;
  cancel(market: MarketIndex, orderId: OrderId, owner: OwnerIndex, time: number): void;
  cancelAll(market: MarketIndex, owner: OwnerIndex, time: number, reason: number): void;
  expire(market: MarketIndex, time: number): void;
}

/** A router that sends nowhere: an exchange that only replays or restores has no books yet. */
export const NO_ROUTER: MarketRouter = { place() {}, cancel() {}, cancelAll() {}, expire() {} };

export interface ExchangeListeners {
  orderChanged?: OrderChangeListener;
  ledgerEvent?: (event: LedgerEvent) => void;
  /** A public trade: the book's fill, seen once. */
  trade?: (market: MarketIndex, seq: number, time: number, price: number, quantity: number, takerSide: Side) => void;
}
