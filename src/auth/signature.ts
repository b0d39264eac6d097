/**
 * @module auth/signature
 *
 * The one gate every signature passes before any curve arithmetic: a 65-byte `r ‖ s ‖ v`
 * signature, as `0x` + 130 hex digits, in canonical form.
 *
 * May import: ./address.
 *
 * Invariants (each failure is `InvalidSignature`, text `Invalid signature`):
 *  - exactly 65 bytes; 64-byte compact (EIP-2098) and DER forms are refused;
 *  - `0x` prefix, hex digits of either case;
 *  - 0 < r < n and 0 < s ≤ n/2 (high-s twins are refused: no malleable second encoding);
 *  - v ∈ {27, 28} or v ∈ {0, 1}: both spellings name the same recovery bit and are accepted
 *    (wallets and hardware signers differ). This yields two byte strings for one signature,
 *    which is harmless because replay protection keys on (signer, nonce), never on bytes.
 */
import { hexInto } from './address.ts';

/** secp256k1 group order. */
export const CURVE_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = CURVE_N >> 1n;

const SIGNATURE_BYTES = 65;

export interface ParsedSignature {
  r: bigint;
  s: bigint;
  /** The recovery bit, 0 or 1. */
  recovery: 0 | 1;
}

function readScalar(bytes: Uint8Array, offset: number): bigint {
  let v = 0n;
  for (let i = offset; i < offset + 32; i++) v = (v << 8n) | BigInt(bytes[i]);
  return v;
}

/** The canonical parts of a 65-byte signature, or undefined when it is not canonical. */
export function parseSignatureBytes(bytes: Uint8Array): ParsedSignature | undefined {
  if (bytes.length !== SIGNATURE_BYTES) return undefined;
  const v = bytes[64];
  const recovery = v === 27 || v === 0 ? 0 : v === 28 || v === 1 ? 1 : -1;
  if (recovery < 0) return undefined;
  const r = readScalar(bytes, 0);
  const s = readScalar(bytes, 32);
  if (r === 0n || r >= CURVE_N || s === 0n || s > HALF_N) return undefined;
  return { r, s, recovery: recovery as 0 | 1 };
}

/** `0x` + 130 hex digits → 65 bytes, or undefined (length, prefix or digit wrong). */
export function signatureBytes(hex: unknown): Uint8Array | undefined {
  if (typeof hex !== 'string' || hex.length !== 2 + 2 * SIGNATURE_BYTES || hex[0] !== '0' || (hex[1] !== 'x' && hex[1] !== 'X')) return undefined;
  const out = new Uint8Array(SIGNATURE_BYTES);
  return hexInto(hex.slice(2), out) ? out : undefined;
}
