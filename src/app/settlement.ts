/**
 * @module app/settlement
 *
 * R2: what one market's book events do to the exchange's state on the sequencer thread. A fill
 * is settled in the ledger (positions, balances, fees) and releases the filled orders' holds;
 * every event moves the order registry and the depth mirror on; the conditional book hears of
 * fills and of orders leaving the book, and a fill (which moves the last price, so perhaps the
 * mark) lets triggers fire. What the conditional book asks for, and the liquidations the event
 * made ready (their owner's last order ended), are applied after the event by `afterEvent`
 * (never re-entrantly).
 *
 * May import: types/ids, engine/types, ledger/ledger, conditional/index, app/order-registry, app/depth-mirror.
 * Invariant: deterministic — the same events in the same order leave the same state, live and
 * in replay.
 */
import type { BookListener, Side } from '../engine/types.ts';
import type { Ledger } from '../ledger/ledger.ts';
import type { ConditionalBook } from '../conditional/index.ts';
import type { OrderRegistry } from './order-registry.ts';
import type { DepthMirror } from './depth-mirror.ts';
import type { MarketIndex, OrderId } from '../types/ids.ts';

export interface SettlementParts {
  market: MarketIndex;
  depth: DepthMirror;
  orders: OrderRegistry;
  ledger: Ledger;
  conditional: ConditionalBook;
  /** A public trade happened (for history). */
  trade?: (market: MarketIndex, seq: number, time: number, price: number, quantity: number, takerSide: Side) => void;
  /** The mark may have moved: let crossed triggers fire. */
  markMoved(time: number): void;
  /** After each event (at its time): price the liquidations it made ready, apply what the conditional book asked for. */
  afterEvent(time: number): void;
}

/** The BookListener that settles `market`'s events into the exchange's state. */
export function settlementListener(parts: SettlementParts): BookListener {
  const { market, depth, orders, ledger, conditional, trade, markMoved, afterEvent } = parts;
  const end = (orderId: OrderId, status: 'cancelled' | 'expired' | 'rejected', reason: number, seq: number, time: number) => {
    depth.saw(seq);
    ledger.releaseOrder(orderId, time);
    orders.ended(orderId, status, reason, seq, time);
    conditional.onOrderGone(orderId, time);
    afterEvent(time);
  };
  return {
    onAccepted(seq, orderId, _owner, _side, _price, quantity, time) {
      depth.saw(seq);
      orders.accepted(orderId, quantity, seq, time);
    },
    onRested(seq, orderId, _owner, _side, _price, _remaining, time) {
      depth.saw(seq);
      orders.rested(orderId, seq, time);
    },
    onFill(seq, makerOrderId, takerOrderId, makerOwner, takerOwner, takerSide, price, quantity, makerRemaining, takerRemaining, time) {
      depth.saw(seq);
      ledger.settleFill(makerOrderId, takerOrderId, makerOwner, takerOwner, takerSide, market, price, quantity, time);
      orders.filled(makerOrderId, quantity, makerRemaining, seq, time);
      orders.filled(takerOrderId, quantity, takerRemaining, seq, time);
      // A reduce-only order capped by the book holds more lots in the ledger than it filled.
      if (makerRemaining === 0) ledger.releaseOrder(makerOrderId, time);
      if (takerRemaining === 0) ledger.releaseOrder(takerOrderId, time);
      trade?.(market, seq, time, price, quantity, takerSide);
      conditional.onFill(makerOrderId, quantity, makerRemaining, time);
      conditional.onFill(takerOrderId, quantity, takerRemaining, time);
      // The trade moved the last price, so perhaps the mark.
      markMoved(time);
      afterEvent(time);
    },
    onCancelled(seq, orderId, _owner, _remaining, reason, time) {
      end(orderId, 'cancelled', reason, seq, time);
    },
    onExpired(seq, orderId, _owner, _remaining, reason, time) {
      end(orderId, 'expired', reason, seq, time);
    },
    onRejected(seq, orderId, _owner, code, time) {
      end(orderId, 'rejected', code, seq, time);
    },
    onLevel(seq, side, price, quantity) {
      depth.level(seq, side, price, quantity);
    },
  };
}
