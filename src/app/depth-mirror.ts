/**
 * @module app/depth-mirror
 *
 * The L2 book of one market as the main thread sees it, kept from the market thread's
 * `onLevel` events (each says the new total at a price). GET /book and funding samples read
 * it without waiting on matching. Prices are kept sorted best-first per side.
 *
 * Cost: an update is a Map write plus, when a level appears or disappears, a binary search
 * and an array splice (levels near the top move few entries).
 *
 * It is the gateway's `BookReader` (http/ports) by shape: the consumer owns that interface, so
 * this file needs nothing of the gateway.
 * May import: engine/types.
 */
import { Side, type Level } from '../engine/types.ts';

class SideLevels {
  readonly quantity = new Map<number, number>();
  /** Prices best first. */
  readonly prices: number[] = [];
  constructor(private readonly better: (a: number, b: number) => boolean) {}

  set(price: number, quantity: number): void {
    const had = this.quantity.has(price);
    if (quantity === 0) {
      if (!had) return;
      this.quantity.delete(price);
      this.prices.splice(this.indexOf(price), 1);
      return;
    }
    this.quantity.set(price, quantity);
    if (!had) this.prices.splice(this.indexOf(price), 0, price);
  }

  /** Where `price` is or would go (first index not better than it). */
  private indexOf(price: number): number {
    let lo = 0;
    let hi = this.prices.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.better(this.prices[mid], price)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export class DepthMirror {
  sequence = 0;
  private readonly bids = new SideLevels((a, b) => a > b);
  private readonly asks = new SideLevels((a, b) => a < b);

  level(seq: number, side: Side, price: number, quantity: number): void {
    this.sequence = seq;
    (side === Side.Buy ? this.bids : this.asks).set(price, quantity);
  }

  /** Any event of the market moves the sequence the snapshot reflects. */
  saw(seq: number): void {
    this.sequence = seq;
  }

  bestBid(): number {
    return this.bids.prices[0] ?? 0;
  }

  bestAsk(): number {
    return this.asks.prices[0] ?? 0;
  }

  depth(side: Side, levels: number, tickMultiple: number): Level[] {
    const book = side === Side.Buy ? this.bids : this.asks;
    const out: Level[] = [];
    for (const price of book.prices) {
      const bucket = tickMultiple === 1 ? price : side === Side.Buy ? Math.floor(price / tickMultiple) * tickMultiple : Math.ceil(price / tickMultiple) * tickMultiple;
      const last = out[out.length - 1];
      if (last !== undefined && last.price === bucket) last.quantity += book.quantity.get(price)!;
      else {
        if (out.length === levels) break;
        out.push({ price: bucket, quantity: book.quantity.get(price)! });
      }
    }
    return out;
  }

  snapshot(): { sequence: number; bids: [number, number][]; asks: [number, number][] } {
    return {
      sequence: this.sequence,
      bids: this.bids.prices.map((p) => [p, this.bids.quantity.get(p)!]),
      asks: this.asks.prices.map((p) => [p, this.asks.quantity.get(p)!]),
    };
  }

  static restore(data: ReturnType<DepthMirror['snapshot']>): DepthMirror {
    const mirror = new DepthMirror();
    for (const [p, q] of data.bids) mirror.level(data.sequence, Side.Buy, p, q);
    for (const [p, q] of data.asks) mirror.level(data.sequence, Side.Sell, p, q);
    // An empty book has no level to carry the sequence: set it directly.
    mirror.sequence = data.sequence;
    return mirror;
  }
}
