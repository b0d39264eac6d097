/**
 * @module ledger/hash
 *
 * FNV-1a 64-bit over a string's UTF-16 code units, as 16 hex digits: a pure, deterministic
 * state hash (not cryptographic; it detects divergence, it does not resist forgery).
 * May import: nothing.
 */
const OFFSET = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

export function fnv1a64(text: string): string {
  // Two 32-bit halves in numbers would be faster; this runs on the cold path only.
  let h = OFFSET;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * PRIME) & MASK;
  }
  return h.toString(16).padStart(16, '0');
}
