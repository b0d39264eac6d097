/**
 * @module http/rate-limit
 *
 * Request budgets by GCRA (generic cell rate algorithm): one "theoretical arrival time" per key,
 * so a key costs one map entry and a check is O(1). `rate` requests per second are allowed,
 * with a burst of up to `rate` requests; once over, a key is refused until its cool-down ends
 * and told when to retry. Keys are accounts (shared across source addresses) for /account/*
 * routes and source addresses for public routes.
 *
 * Time is passed in (milliseconds), so the limiter is deterministic under test. Memory is bounded
 * by `sweep`, which forgets keys whose budget is full again.
 */

export interface Budget {
  allowed: boolean;
  /** Requests left in the current burst (0 when refused). */
  remaining: number;
  /** Whole seconds to wait before retrying (only when refused). */
  retryAfterSeconds: number;
}

export class RateLimiter {
  private readonly interval: number;
  private readonly burst: number;
  private readonly arrival = new Map<string, number>();

  /**
   * @param rate requests per second
   * @param coolDownMs how long a refused key stays refused, at least
   */
  constructor(readonly rate: number, private readonly coolDownMs = 1000) {
    this.interval = 1000 / rate;
    this.burst = 1000; // the burst equals one second of budget
  }

  take(key: string, now: number): Budget {
    const tat = Math.max(this.arrival.get(key) ?? now, now);
    const next = tat + this.interval;
    if (next - now > this.burst + this.interval / 2) {
      // Refused: hold the key for the cool-down so a client hammering the limit does not
      // get every other request through.
      const until = Math.max(tat, now + this.coolDownMs + this.burst);
      this.arrival.set(key, until);
      return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil((until - this.burst - now) / 1000)) };
    }
    this.arrival.set(key, next);
    return { allowed: true, remaining: Math.max(0, Math.floor((this.burst - (next - now)) / this.interval)), retryAfterSeconds: 0 };
  }

  /** Forgets keys whose budget has refilled: they behave exactly like unseen keys. */
  sweep(now: number): void {
    for (const [key, tat] of this.arrival) if (tat <= now) this.arrival.delete(key);
  }

  get size(): number {
    return this.arrival.size;
  }
}
