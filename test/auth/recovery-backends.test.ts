/** noble and native libsecp256k1 agree on every input, valid or not, and with viem on valid ones. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { recoverAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { bytesToHex } from '../../src/auth/address.ts';
import { loadRecoveryBackend, nobleBackend } from '../../src/auth/recovery.ts';
import { CURVE_N } from '../../src/auth/signature.ts';

const native = loadRecoveryBackend('native');

function signature(r: bigint, s: bigint, v: number): Uint8Array {
  const out = new Uint8Array(65);
  out.set(Buffer.from(r.toString(16).padStart(64, '0'), 'hex'), 0);
  out.set(Buffer.from(s.toString(16).padStart(64, '0'), 'hex'), 32);
  out[64] = v;
  return out;
}

const secretKey = fc.bigInt({ min: 1n, max: CURVE_N - 1n }).map((k) => Buffer.from(k.toString(16).padStart(64, '0'), 'hex'));
const digest = fc.uint8Array({ minLength: 32, maxLength: 32 });

test('the native backend loads here (linux-x64 prebuild)', () => {
  assert.equal(native?.name, 'native');
});

test('valid signatures: noble, native and viem recover the same signer', { skip: native === undefined }, async () => {
  await fc.assert(
    fc.asyncProperty(secretKey, digest, fc.boolean(), async (key, hash, zeroOne) => {
      const sig = secp256k1.sign(hash, key, { prehash: false, format: 'recovered' });
      const bytes = new Uint8Array(65);
      bytes.set(sig.subarray(1), 0);
      bytes[64] = sig[0] + (zeroOne ? 0 : 27);
      const fromNoble = nobleBackend.recover(hash, bytes);
      assert.equal(fromNoble, privateKeyToAccount(`0x${bytesToHex(key)}`).address.toLowerCase());
      assert.equal(native!.recover(hash, bytes), fromNoble);
      const viaViem = await recoverAddress({ hash: `0x${bytesToHex(hash)}`, signature: `0x${bytesToHex(bytes.subarray(0, 64))}${(bytes[64] % 27 + 27).toString(16)}` });
      assert.equal(viaViem.toLowerCase(), fromNoble);
    }),
    { numRuns: 40 },
  );
});

test('arbitrary and adversarial inputs: both backends give the same answer (signer or null)', { skip: native === undefined }, () => {
  const scalar = fc.oneof(
    fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
    fc.constantFrom(0n, 1n, CURVE_N - 1n, CURVE_N, CURVE_N + 1n, CURVE_N >> 1n, (CURVE_N >> 1n) + 1n, (1n << 256n) - 1n),
  );
  const v = fc.oneof(fc.constantFrom(0, 1, 27, 28), fc.integer({ min: 0, max: 255 }));
  let recovered = 0;
  fc.assert(
    fc.property(digest, scalar, scalar, v, (hash, r, s, recovery) => {
      const bytes = signature(r, s, recovery);
      const fromNoble = nobleBackend.recover(hash, bytes);
      assert.equal(native!.recover(hash, bytes), fromNoble);
      if (fromNoble !== null) recovered++;
    }),
    { numRuns: 300 },
  );
  assert.ok(recovered > 0, 'some random (r, s) must recover, or the property only compared nulls');
});

test('wrong lengths are null in both backends', { skip: native === undefined }, () => {
  const good = signature(1n, 1n, 27);
  for (const backend of [nobleBackend, native!]) {
    assert.equal(backend.recover(new Uint8Array(31), good), null);
    assert.equal(backend.recover(new Uint8Array(32), good.subarray(0, 64)), null);
  }
});
