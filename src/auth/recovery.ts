/**
 * @module auth/recovery
 *
 * Signer recovery: digest (32 bytes) + signature (65 bytes) → the signing address, or null when
 * the signature is invalid. Two interchangeable backends behind `RecoveryBackend`:
 *  - `noble`: @noble/curves secp256k1, audited pure JS, always available (the default);
 *  - `native`: libsecp256k1 through the optional `secp256k1` package's N-API prebuild, about
 *    25× faster here, used only where it loads (`loadRecoveryBackend('native')` is undefined
 *    otherwise).
 * Both run `parseSignatureBytes` first, so they agree on every input, good or bad (proven by a
 * differential property test); an all-zero recovered address is refused.
 *
 * May import: @noble/curves, node:module, ./address, ./signature. The native secp256k1
 * (optional) is loaded lazily, through `createRequire`.
 * Complexity: one point recovery (~2 ms noble, ~75 µs native on this VM) plus one keccak.
 */
import { createRequire } from 'node:module';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { addressOfPublicKey, ZERO_ADDRESS, type Address } from './address.ts';
import { parseSignatureBytes } from './signature.ts';

export type BackendName = 'noble' | 'native';

export interface RecoveryBackend {
  readonly name: BackendName;
  /** The signer of `digest`, or null when `signature` is not a valid canonical signature. */
  recover(digest: Uint8Array, signature: Uint8Array): Address | null;
}

function signerOf(uncompressed: Uint8Array): Address | null {
  const address = addressOfPublicKey(uncompressed.subarray(1, 65));
  return address === ZERO_ADDRESS ? null : address;
}

export const nobleBackend: RecoveryBackend = {
  name: 'noble',
  recover(digest, signature) {
    if (digest.length !== 32) return null;
    const parsed = parseSignatureBytes(signature);
    if (parsed === undefined) return null;
    try {
      const point = new secp256k1.Signature(parsed.r, parsed.s, parsed.recovery).recoverPublicKey(digest);
      return signerOf(point.toBytes(false));
    } catch {
      return null; // r is not the x of a curve point, or the recovered point is infinity
    }
  },
};

/** The part of the `secp256k1` package's API used here (it ships no types). */
interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recovery: number, digest: Uint8Array, compressed: boolean, output?: Uint8Array): Uint8Array;
}

function nativeBackend(lib: NativeSecp256k1): RecoveryBackend {
  return {
    name: 'native',
    recover(digest, signature) {
      if (digest.length !== 32) return null;
      const parsed = parseSignatureBytes(signature);
      if (parsed === undefined) return null;
      try {
        return signerOf(lib.ecdsaRecover(signature.subarray(0, 64), parsed.recovery, digest, false));
      } catch {
        return null; // libsecp256k1 could not recover a point
      }
    },
  };
}

let native: RecoveryBackend | null | undefined;

/** The named backend, or undefined when it cannot load here (native without its prebuild). */
export function loadRecoveryBackend(name: BackendName): RecoveryBackend | undefined {
  if (name === 'noble') return nobleBackend;
  if (native === undefined) {
    try {
      // `secp256k1/bindings` is the N-API build only; the package root would fall back to elliptic.
      native = nativeBackend(createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1);
    } catch {
      native = null;
    }
  }
  return native ?? undefined;
}
