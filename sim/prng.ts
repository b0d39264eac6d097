/**
 * @module sim/prng
 *
 * The simulator's only source of chance: xoshiro128** seeded through splitmix32, on 32-bit
 * integers (no bigint, no allocation per draw). The same seed gives the same sequence on every
 * machine and Node version, which is what makes a failing seed a reproduction.
 *
 * May import: nothing.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // splitmix32 spreads any seed (0 included) over the four words of state.
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
      z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
      return (z ^ (z >>> 15)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** An integer in [0, n) (n ≤ 2^32; the tiny modulo bias does not matter to a simulation). */
  below(n: number): number {
    return n <= 1 ? 0 : this.u32() % n;
  }

  /** An integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.below(hi - lo + 1);
  }

  /** True with probability `p` (0..1). */
  chance(p: number): boolean {
    return this.u32() < p * 4294967296;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)];
  }

  /** A new generator whose sequence depends only on this one's next draw (for independent streams). */
  fork(): Prng {
    return new Prng(this.u32());
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
