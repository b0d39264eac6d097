/** Signature parsing: every non-canonical encoding is refused before recovery; v 0/1 and 27/28 name one signer. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthCode } from '../../src/auth/codes.ts';
import { recoverRequestSigner } from '../../src/auth/signed-request.ts';
import { workerRecovery } from '../harness/worker-recovery.ts';
import { nobleBackend } from '../../src/auth/recovery.ts';
import { CURVE_N } from '../../src/auth/signature.ts';
import { ALICE, ALICE_BUY_5_AT_10_LIMIT, ALICE_VIEM, signWithViem, TESTNET_DOMAIN } from './fixtures.ts';

const recover = workerRecovery('noble');
const VALID = await signWithViem(ALICE_VIEM, 'Order', ALICE_BUY_5_AT_10_LIMIT);

function withParts(r: bigint, s: bigint, v: number): string {
  return `0x${r.toString(16).padStart(64, '0')}${s.toString(16).padStart(64, '0')}${v.toString(16).padStart(2, '0')}`;
}
const R = BigInt(VALID.slice(0, 66));
const S = BigInt(`0x${VALID.slice(66, 130)}`);
const V = parseInt(VALID.slice(130), 16);

function signerOf(signature: unknown) {
  return recoverRequestSigner(recover, TESTNET_DOMAIN, 'Order', ALICE_BUY_5_AT_10_LIMIT, [signature]);
}

test('a viem signature of the order recovers to its account', async () => {
  assert.deepEqual(await signerOf(VALID), { ok: true, value: ALICE });
});

test('v written as 0/1 instead of 27/28 recovers the same signer (replay is keyed on signer and nonce)', async () => {
  assert.ok(V === 27 || V === 28);
  assert.deepEqual(await signerOf(withParts(R, S, V - 27)), { ok: true, value: ALICE });
  assert.deepEqual(await signerOf(VALID.toUpperCase().replace('0X', '0x')), { ok: true, value: ALICE });
});

test('malformed and non-canonical signatures are all "Invalid signature"', async () => {
  const bad: Array<[string, unknown]> = [
    ['high-s twin', withParts(R, CURVE_N - S, V === 27 ? 28 : 27)],
    ['high s, v as signed', withParts(R, CURVE_N - S, V)],
    ['v = 29', withParts(R, S, 29)],
    ['v = 2', withParts(R, S, 2)],
    ['r = 0', withParts(0n, S, V)],
    ['s = 0', withParts(R, 0n, V)],
    ['r = n', withParts(CURVE_N, S, V)],
    ['r > n', withParts(CURVE_N + 5n, S, V)],
    ['64-byte compact', VALID.slice(0, 130)],
    ['66 bytes', `${VALID}00`],
    ['no 0x', VALID.slice(2)],
    ['non-hex digit', `${VALID.slice(0, 20)}zz${VALID.slice(22)}`],
    ['empty', ''],
    ['number', 42],
  ];
  for (const [name, signature] of bad) {
    assert.deepEqual(await signerOf(signature), { ok: false, code: AuthCode.InvalidSignature }, name);
  }
});

test('signatures must be an array of exactly one string', async () => {
  for (const signatures of [[], [VALID, VALID], VALID, null, [1]]) {
    assert.deepEqual(await recoverRequestSigner(recover, TESTNET_DOMAIN, 'Order', ALICE_BUY_5_AT_10_LIMIT, signatures), { ok: false, code: AuthCode.InvalidSignature });
  }
});

test('an r that is no curve point x-coordinate is invalid, not an exception', async () => {
  // x = 5 has no square root of x³ + 7 on secp256k1.
  const r = withParts(5n, S, V);
  assert.equal(nobleBackend.recover(new Uint8Array(32), Uint8Array.from(Buffer.from(r.slice(2), 'hex'))), null);
});
