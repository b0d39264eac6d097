/**
 * @module http/rate-limit
 *
 * Request budgets by GCRA (generic cell rate algorithm): one "theoretical arrival time" per key,
 * so a key costs one map entry and a check is O(1). `rate` requests per second are allowed,
 * with a burst of up to `burst` requests (default: one second's worth); once over, a key is
 * refused until its cool-down ends and told when to retry, and then has the budget it would have
 * had without the refusals: a client that waits out its `Retry-After` goes on at the rate (a whole
 * second's burst after the accounts' one-second cool-down), not one request per cool-down. Keys
 * are accounts (shared across
 * source addresses) for /account/* routes, source addresses for public routes, and source
 * addresses for failed operator keys (a slow rate, a small burst and a long cool-down: a
 * lock-out).
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
  /** The burst in milliseconds of budget. */
  private readonly burst: number;
  private readonly arrival = new Map<string, number>();
  /** Keys refused, until when (ms): nothing of theirs is served before. */
  private readonly coolingUntil = new Map<string, number>();

  /**
   * @param rate requests per second (a fraction for slow budgets: 1/60 is one a minute)
   * @param coolDownMs how long a refused key stays refused
   * @param burst requests allowed at once from a full budget; default one second's worth
   */
  constructor(readonly rate: number, private readonly coolDownMs = 1000, burst = rate) {
    this.interval = 1000 / rate;
    this.burst = burst * this.interval;
  }

  /** Spends `cost` requests of `key`'s budget (a WebSocket subscribe costs one per channel), or refuses them all. */
  take(key: string, now: number, cost = 1): Budget {
    const cooling = this.coolingUntil.get(key);
    if (cooling !== undefined) {
      if (now < cooling) return { allowed: false, remaining: 0, retryAfterSeconds: wholeSeconds(cooling - now) };
      this.coolingUntil.delete(key);
    }
    const tat = Math.max(this.arrival.get(key) ?? now, now);
    const next = tat + this.interval * cost;
    if (next - now > this.burst + this.interval / 2) {
      // Refused: nothing of the key's is served for the cool-down, so a client hammering the
      // limit does not get every other request through. Its budget goes on refilling meanwhile
      // (a refused request spends none of it): after the cool-down it has what it would have had.
      const until = now + this.coolDownMs;
      this.coolingUntil.set(key, until);
      return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(wholeSeconds(this.coolDownMs), this.secondsUntilServed(tat, now)) };
    }
    this.arrival.set(key, next);
    return { allowed: true, remaining: Math.max(0, Math.floor((this.burst - (next - now)) / this.interval)), retryAfterSeconds: 0 };
  }

  /** Whole seconds until `key` would be served (0 when it would be now), spending nothing. */
  retryAfter(key: string, now: number): number {
    const cooling = this.coolingUntil.get(key);
    const tat = this.arrival.get(key);
    const budget = tat === undefined || tat + this.interval - now <= this.burst + this.interval / 2 ? 0 : this.secondsUntilServed(tat, now);
    return cooling === undefined || cooling <= now ? budget : Math.max(budget, wholeSeconds(cooling - now));
  }

  private secondsUntilServed(tat: number, now: number): number {
    return wholeSeconds(tat + this.interval / 2 - this.burst - now);
  }

  /** Forgets keys whose budget has refilled: they behave exactly like unseen keys. */
  sweep(now: number): void {
    for (const [key, tat] of this.arrival) if (tat <= now) this.arrival.delete(key);
    for (const [key, until] of this.coolingUntil) if (until <= now) this.coolingUntil.delete(key);
  }

  /** Keys remembered (a budget being spent, or a cool-down). */
  get size(): number {
    return new Set([...this.arrival.keys(), ...this.coolingUntil.keys()]).size;
  }
}

/** A wait as the whole seconds a client is told (`Retry-After`), at least 1. */
function wholeSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
