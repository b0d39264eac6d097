/**
 * @module ledger/hash
 *
 * FNV-1a 64-bit over a string's UTF-16 code units, as 16 hex digits: a pure, deterministic
 * state hash (not cryptographic; it detects divergence, it does not resist forgery).
 *
 * Computed in four 16-bit limbs held in numbers (the prime is 2^40 + 435, so a multiply is
 * four small products and two shifted adds): snapshots hash the whole ledger, and BigInt
 * arithmetic per character made that seconds at 100,000 accounts. Equal, digit for digit, to
 * the textbook BigInt form (test/ledger/hash.test.ts): recorded snapshot hashes stay valid.
 * May import: nothing.
 */

export function fnv1a64(text: string): string {
  // The offset basis 0xcbf29ce484222325, lowest limb first.
  let v0 = 0x2325;
  let v1 = 0x8422;
  let v2 = 0x9ce4;
  let v3 = 0xcbf2;
  for (let i = 0; i < text.length; i++) {
    v0 ^= text.charCodeAt(i);
    // × 435 per limb, + (v << 40): v0 and v1 shifted by 8 land in limbs 2 and 3.
    const t0 = v0 * 435;
    let t1 = v1 * 435;
    let t2 = v2 * 435 + (v0 << 8);
    const t3 = v3 * 435 + (v1 << 8);
    t1 += t0 >>> 16;
    t2 += t1 >>> 16;
    v0 = t0 & 0xffff;
    v1 = t1 & 0xffff;
    v3 = (t3 + (t2 >>> 16)) & 0xffff;
    v2 = t2 & 0xffff;
  }
  const hex = (limb: number) => limb.toString(16).padStart(4, '0');
  return hex(v3) + hex(v2) + hex(v1) + hex(v0);
}
