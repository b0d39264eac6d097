/** The worker pool (its TypeScript worker started on its esbuild bundle, transport/source-bundle) recovers many signers concurrently. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { privateKeyToAccount } from 'viem/accounts';
import { bytesToHex } from '../../src/auth/address.ts';
import { loadRecoveryBackend } from '../../src/auth/recovery.ts';
import { SignaturePool } from '../../src/auth/signature-pool.ts';

interface Case {
  digest: Uint8Array;
  signature: string;
  signer: string | null;
}

/** 40 keys × a digest each; every 5th signature is broken (flipped v to 29, or a garbled hex). */
function cases(count: number): Case[] {
  const out: Case[] = [];
  for (let i = 0; i < count; i++) {
    const key = new Uint8Array(32).fill(0);
    key[31] = (i % 40) + 1;
    key[0] = 7;
    const digest = new Uint8Array(32).fill(i & 255);
    digest[0] = i >> 8;
    const sig = secp256k1.sign(digest, key, { prehash: false, format: 'recovered' });
    let signature = `0x${bytesToHex(sig.subarray(1))}${(sig[0] + 27).toString(16)}`;
    let signer: string | null = privateKeyToAccount(`0x${bytesToHex(key)}`).address.toLowerCase();
    if (i % 10 === 4) [signature, signer] = [`${signature.slice(0, 130)}1d`, null];
    if (i % 10 === 9) [signature, signer] = [`${signature.slice(0, 40)}xx${signature.slice(42)}`, null];
    out.push({ digest, signature, signer });
  }
  return out;
}

for (const backend of ['noble', 'native'] as const) {
  test(`${backend}: hundreds of concurrent recoveries through a 2-thread pool give the right signers`, { skip: loadRecoveryBackend(backend) === undefined }, async () => {
    const pool = new SignaturePool({ backend, threads: 2, batchSize: 16 });
    try {
      const all = cases(backend === 'noble' ? 120 : 300);
      const results = await Promise.all(all.map((c) => pool.recover(c.digest, c.signature)));
      assert.deepEqual(results, all.map((c) => c.signer));
    } finally {
      await pool.close();
    }
  });
}

test('a closed pool refuses new work', async () => {
  const pool = new SignaturePool({ threads: 1 });
  await pool.close();
  await assert.rejects(pool.recover(new Uint8Array(32), `0x${'11'.repeat(65)}`), /closed/);
});

test('typed recovery in the pool: the worker digests and recovers, tampered messages and bad fields are refused', async () => {
  const { ALICE, ALICE_BUY_5_AT_10_LIMIT, ALICE_VIEM, signWithViem, TESTNET_DOMAIN } = await import('./fixtures.ts');
  const { AuthCode } = await import('../../src/auth/codes.ts');
  const pool = new SignaturePool({ backend: 'noble', threads: 2, batchSize: 8 });
  try {
    const signature = await signWithViem(ALICE_VIEM, 'Order', ALICE_BUY_5_AT_10_LIMIT);
    const good = await Promise.all(Array.from({ length: 20 }, () => pool.recoverTyped(TESTNET_DOMAIN, 'Order', ALICE_BUY_5_AT_10_LIMIT, signature)));
    for (const r of good) assert.deepEqual(r, { ok: true, value: ALICE });
    // A library caller may give uints as bigint: they reach the worker (as JSON text) unchanged.
    const asBigint = await pool.recoverTyped(TESTNET_DOMAIN, 'Order', { ...ALICE_BUY_5_AT_10_LIMIT, nonce: BigInt(ALICE_BUY_5_AT_10_LIMIT.nonce) }, signature);
    assert.deepEqual(asBigint, { ok: true, value: ALICE });
    const bigger = await pool.recoverTyped(TESTNET_DOMAIN, 'Order', { ...ALICE_BUY_5_AT_10_LIMIT, nonce: BigInt(ALICE_BUY_5_AT_10_LIMIT.nonce) + 2n ** 60n }, signature);
    assert.ok(bigger.ok && bigger.value !== ALICE);
    const tampered = await pool.recoverTyped(TESTNET_DOMAIN, 'Order', { ...ALICE_BUY_5_AT_10_LIMIT, price: '11' }, signature);
    assert.ok(tampered.ok ? tampered.value !== ALICE : tampered.code === AuthCode.InvalidSignature);
    const badField = await pool.recoverTyped(TESTNET_DOMAIN, 'Order', { ...ALICE_BUY_5_AT_10_LIMIT, nonce: -1 }, signature);
    assert.equal(badField.ok, false);
    const garbled = await pool.recoverTyped(TESTNET_DOMAIN, 'Order', ALICE_BUY_5_AT_10_LIMIT, 'zz');
    assert.deepEqual(garbled, { ok: false, code: AuthCode.InvalidSignature });
  } finally {
    await pool.close();
  }
});

test('while its thread is busy, what arrives over many turns waits and leaves as one task', async () => {
  const pool = new SignaturePool({ backend: 'noble', threads: 1, tasksPerThread: 2, batchSize: 100 });
  try {
    const all = cases(60);
    const pending: Promise<string | null>[] = [];
    // Six turns of ten signatures each; noble takes milliseconds a recovery, so the first
    // task is still running when the later turns end.
    for (let turn = 0; turn < 6; turn++) {
      for (const c of all.slice(turn * 10, turn * 10 + 10)) pending.push(pool.recover(c.digest, c.signature));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(await Promise.all(pending), all.map((c) => c.signer));
    assert.equal(pool.tasks, 3, 'the first turn, the second (queued behind it), then everything that waited');
  } finally {
    await pool.close();
  }
});

test('a task carries at most batchSize signatures', async () => {
  const pool = new SignaturePool({ backend: 'noble', threads: 1, batchSize: 8 });
  try {
    const all = cases(30);
    assert.deepEqual(await Promise.all(all.map((c) => pool.recover(c.digest, c.signature))), all.map((c) => c.signer));
    assert.equal(pool.tasks, 4, '8 + 8 + 8 + 6');
  } finally {
    await pool.close();
  }
});

test('a pool too far behind refuses typed messages with 503 VerifierBehind instead of queueing them', async () => {
  const { ALICE, ALICE_BUY_5_AT_10_LIMIT, ALICE_VIEM, signWithViem, TESTNET_DOMAIN } = await import('./fixtures.ts');
  const { AuthCode, AUTH_CODES } = await import('../../src/auth/codes.ts');
  const pool = new SignaturePool({ backend: 'noble', threads: 1, maxWaiting: 5 });
  try {
    const signature = await signWithViem(ALICE_VIEM, 'Order', ALICE_BUY_5_AT_10_LIMIT);
    // Twenty in one turn: five wait for the thread, the other fifteen are refused at once.
    const results = await Promise.all(Array.from({ length: 20 }, () => pool.recoverTyped(TESTNET_DOMAIN, 'Order', ALICE_BUY_5_AT_10_LIMIT, signature)));
    assert.deepEqual(results.slice(0, 5), Array(5).fill({ ok: true, value: ALICE }));
    assert.deepEqual(results.slice(5), Array(15).fill({ ok: false, code: AuthCode.VerifierBehind }));
    assert.deepEqual(AUTH_CODES[AuthCode.VerifierBehind], { status: 503, text: 'Service overloaded: signature verification is behind' });
    // Once they are through, new ones are taken again.
    assert.deepEqual(await pool.recoverTyped(TESTNET_DOMAIN, 'Order', ALICE_BUY_5_AT_10_LIMIT, signature), { ok: true, value: ALICE });
  } finally {
    await pool.close();
  }
});
