/**
 * @module client/ticks
 *
 * Price and size arithmetic for bots and tools (the demo's traders, the CLI's market orders): a price moved by a fraction and put on the market's
 * tick, rounded away from the book's middle (a bid down, an ask up) so a quote never crosses the
 * price it was computed from. Floating point is fine here: the result is written with the tick's
 * decimals and the exchange checks it is on the tick.
 *
 * May import: ./routes (types).
 */
import type { Market } from './routes.ts';

const decimalsOf = (step: string): number => step.split('.')[1]?.length ?? 0;

/** `price × (1 + fraction)` on the tick: rounded up when `up`, else down (never below one tick). */
export function onTick(market: Market, price: number, fraction: number, up: boolean): string {
  const tick = Number(market.tickSize);
  const ticks = (price * (1 + fraction)) / tick;
  const rounded = up ? Math.ceil(ticks - 1e-9) : Math.max(1, Math.floor(ticks + 1e-9));
  return (rounded * tick).toFixed(decimalsOf(market.tickSize));
}

/** `count` minimum sizes of the market, as a decimal string. */
export function sizes(market: Market, count: number): string {
  return (Number(market.minSize) * count).toFixed(decimalsOf(market.lotSize));
}
