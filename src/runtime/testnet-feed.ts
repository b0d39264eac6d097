/**
 * @module runtime/testnet-feed
 *
 * The testnet's built-in oracle: an index price per market that wanders around the markets
 * file's `initialPrice` (a bounded integer random walk in ticks, at most one basis point a step,
 * never more than 5% away). Each step becomes a journaled `IndexPrice` command, so a replay
 * sees the same prices. Mainnet takes index prices from the operator API instead.
 */
import { priceToTicks, type MarketSpec } from '../config/market.ts';

export class TestnetFeed {
  private readonly ticks: number[];
  private readonly anchor: number[];
  private state: number;

  constructor(private readonly markets: readonly MarketSpec[], seed = 0x9e3779b9) {
    this.anchor = markets.map((m) => priceToTicks(m, m.initialPrice) as number);
    this.ticks = [...this.anchor];
    this.state = seed >>> 0;
  }

  /** Continues from the prices the exchange already has (after a restart), where known. */
  resumeFrom(prices: readonly number[]): void {
    prices.forEach((p, i) => {
      if (p > 0) this.ticks[i] = p;
    });
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

  /** The next index price of every market, in ticks. */
  step(): number[] {
    return this.markets.map((m) => {
      const anchor = this.anchor[m.index];
      const maxStep = Math.max(1, Math.floor(anchor / 10_000));
      const band = Math.floor(anchor / 20);
      const move = (this.next() % (2 * maxStep + 1)) - maxStep;
      const next = Math.min(anchor + band, Math.max(Math.max(1, anchor - band), this.ticks[m.index] + move));
      this.ticks[m.index] = next;
      return next;
    });
  }
}
