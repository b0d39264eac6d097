/**
 * @module ledger/hash
 *
 * FNV-1a 64-bit over a string's UTF-16 code units, as 16 hex digits: a pure, deterministic
 * state hash (not cryptographic; it detects divergence, it does not resist forgery).
 * May import: nothing.
 */

/**
 * The 64-bit state is two 32-bit halves in numbers (exact: no product exceeds 2^53), so a
 * state hash of a large ledger costs no BigInt per character. The prime is 2^40 + 0x1b3:
 * h × prime = h × 0x1b3 + (h << 40), and h << 40 adds only the low half, shifted by 8, to the
 * high half.
 */
export function fnv1a64(text: string): string {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0; i < text.length; i++) {
    lo ^= text.charCodeAt(i);
    const low = (lo >>> 0) * 0x1b3;
    hi = (hi * 0x1b3 + Math.floor(low / 0x1_0000_0000) + ((lo << 8) >>> 0)) >>> 0;
    lo = low >>> 0;
  }
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}
