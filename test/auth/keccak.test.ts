import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { keccak256, keccakReady } from '../../src/auth/keccak.ts';

test('property: the WebAssembly keccak-256 equals @noble/hashes on any input, before and after it is ready', async () => {
  // Before the WebAssembly module is ready the function falls back to @noble/hashes itself.
  assert.deepEqual(keccak256(new Uint8Array(0)), keccak_256(new Uint8Array(0)));
  await keccakReady;
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
      assert.deepEqual(keccak256(bytes), keccak_256(bytes));
    }),
    { numRuns: 2000 },
  );
  // The well-known digest of the empty input.
  assert.equal(Buffer.from(keccak256(new Uint8Array(0))).toString('hex'), 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
});
