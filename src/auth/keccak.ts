/**
 * @module auth/keccak
 *
 * keccak-256, the hash of EIP-712 digests, addresses and SIWE messages. Every hash of the
 * auth part goes through here. It runs hash-wasm's WebAssembly keccak: an Order digest takes
 * up to eleven hashes (nine string fields, the struct, the digest; typed-data remembers the
 * strings orders repeat), about 70 µs with the pure-JS @noble/hashes and a few µs with
 * WebAssembly on this machine — on the signature workers' path for every order. The tests
 * compare digests with viem's and ethers' (pure JS).
 *
 * WebAssembly compiles asynchronously, so until `keccakReady` resolves (once per thread, at
 * load) the same hash is computed by @noble/hashes. No top-level await: this module must also
 * load through `require` (piscina's workers load their file that way first).
 *
 * hash-wasm's keccak alone (its `dist/keccak.umd.min.js`), not the package's index: the index
 * decodes the WebAssembly of its thirty algorithms as it loads, about 65 ms of CPU in every
 * thread that imports this (the main thread, the signature threads, the snapshot thread), at
 * every start. The file is CommonJS without types of its own: required, typed as the index.
 * May import: hash-wasm, @noble/hashes, node:module.
 */
import { createRequire } from 'node:module';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { IHasher } from 'hash-wasm';

const { createKeccak } = createRequire(import.meta.url)('hash-wasm/dist/keccak.umd.min.js') as typeof import('hash-wasm');

let hasher: IHasher | undefined;

/** Resolves when the WebAssembly hasher is in use. */
export const keccakReady: Promise<void> = createKeccak(256).then((h) => {
  hasher = h;
});

/** keccak-256 of `bytes`, as a new 32-byte array. */
export function keccak256(bytes: Uint8Array): Uint8Array {
  if (hasher === undefined) return keccak_256(bytes);
  hasher.init();
  hasher.update(bytes);
  return hasher.digest('binary');
}
