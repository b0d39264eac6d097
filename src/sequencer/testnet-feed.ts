/**
 * @module sequencer/testnet-feed
 *
 * The testnet's built-in oracle: an index price per market that wanders around its anchor (the
 * markets file's `initialPrice`, or the price it resumed or was handed back at) — a bounded
 * integer random walk in ticks, at most one basis point a step, never more than 5% away. Each
 * step becomes a journaled `IndexPrice` command, so a replay sees the same prices: the feed is
 * an adapter deciding which prices to send, never part of the replayed state.
 *
 * An operator-set index price (POST /operator/index-price) takes its market over: `hold` stops
 * the walk for that market until `release`, which re-anchors the walk at the held price, so a
 * test can hold a stop, take-profit or liquidation scenario. Holds live in this adapter, not in
 * the journal: after a restart every market walks again, from its last (journaled) price.
 * Mainnet has no feed and takes every index price from the operator API.
 * May import: types/ids, config/.
 */
import { priceToTicks, type MarketSpec } from '../config/market.ts';
import { asMarketIndex, type MarketIndex } from '../types/ids.ts';

export class TestnetFeed {
  private readonly ticks: number[];
  private readonly anchor: number[];
  private readonly held: boolean[];
  private state: number;

  constructor(private readonly markets: readonly MarketSpec[], seed = 0x9e3779b9) {
    this.anchor = markets.map((m) => priceToTicks(m, m.initialPrice) as number);
    this.ticks = [...this.anchor];
    this.held = markets.map(() => false);
    this.state = seed >>> 0;
  }

  /**
   * Continues from the prices the exchange already has (after a restart), where known; the walk
   * stays within 5% of where it resumes. Returns the markets without a price yet and the
   * feed's first price for each, to send before the exchange answers anybody.
   */
  resumeFrom(prices: readonly number[]): { market: MarketIndex; price: number }[] {
    const missing: { market: MarketIndex; price: number }[] = [];
    prices.forEach((p, i) => {
      if (p > 0) this.ticks[i] = this.anchor[i] = p;
      else missing.push({ market: asMarketIndex(i), price: this.ticks[i] });
    });
    return missing;
  }

  /** The operator set `market`'s index to `ticks`: the walk leaves it alone until `release`. */
  hold(market: MarketIndex, ticks: number): void {
    this.held[market] = true;
    this.ticks[market] = ticks;
  }

  /** Hands `market` back to the walk, which goes on from the held price. */
  release(market: MarketIndex): void {
    this.held[market] = false;
    this.anchor[market] = this.ticks[market];
  }

  isHeld(market: MarketIndex): boolean {
    return this.held[market] === true;
  }

  /** xorshift32: deterministic, integer-only. */
  private next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state;
  }

  /** The next index price of every market the operator does not hold, in ticks. */
  step(): { market: MarketIndex; price: number }[] {
    const out: { market: MarketIndex; price: number }[] = [];
    for (const m of this.markets) {
      if (this.held[m.index]) continue;
      const anchor = this.anchor[m.index];
      const maxStep = Math.max(1, Math.floor(anchor / 10_000));
      const band = Math.floor(anchor / 20);
      const move = (this.next() % (2 * maxStep + 1)) - maxStep;
      const next = Math.min(anchor + band, Math.max(Math.max(1, anchor - band), this.ticks[m.index] + move));
      this.ticks[m.index] = next;
      out.push({ market: m.index, price: next });
    }
    return out;
  }
}
