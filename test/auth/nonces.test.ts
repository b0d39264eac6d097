/** Nonce windows: reuse, window floor, expiry, per-signer keys, batches; property test against a naive history. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { AuthCode } from '../../src/auth/codes.ts';
import { NONCE_WINDOW, NonceStore, type NonceKey } from '../../src/auth/nonces.ts';
import { ALICE, BOB, IN_ONE_HOUR, NOW } from './fixtures.ts';

const ALICE_SELF: NonceKey = { account: ALICE, subaccountIndex: 0, signer: ALICE };
const ALICE_VIA_BOB: NonceKey = { account: ALICE, subaccountIndex: 0, signer: BOB };

function use(store: NonceStore, key: NonceKey, nonce: number, expiresAt = IN_ONE_HOUR) {
  return store.use({ ...key, nonce, expiresAt }, NOW);
}

test('a nonce is accepted once; the second use is 409 Nonce already used', () => {
  const store = new NonceStore();
  assert.deepEqual(use(store, ALICE_SELF, 5), { ok: true, value: undefined });
  assert.deepEqual(use(store, ALICE_SELF, 5), { ok: false, code: AuthCode.NonceUsed });
});

test('nonces may arrive out of order inside the window; below a full window they are too low', () => {
  const store = new NonceStore();
  for (let n = 1000; n < 1000 + NONCE_WINDOW; n += 1) assert.ok(use(store, ALICE_SELF, n * 2).ok);
  assert.equal(store.window(ALICE_SELF)[0], 2000);
  assert.ok(use(store, ALICE_SELF, 2001).ok, 'unused and above the smallest of the last 100');
  assert.equal(store.window(ALICE_SELF)[0], 2001);
  assert.deepEqual(use(store, ALICE_SELF, 2000), { ok: false, code: AuthCode.NonceTooLow, params: { min: '2001' } });
  assert.deepEqual(use(store, ALICE_SELF, 7), { ok: false, code: AuthCode.NonceTooLow, params: { min: '2001' } });
  assert.equal(store.nextNonce(ALICE_SELF), 2 * (1000 + NONCE_WINDOW - 1) + 1);
});

test('expiresAt at or before now is refused; malformed nonce and expiresAt are refused', () => {
  const store = new NonceStore();
  assert.deepEqual(use(store, ALICE_SELF, 1, NOW), { ok: false, code: AuthCode.RequestExpired });
  assert.deepEqual(use(store, ALICE_SELF, 1, NOW - 1), { ok: false, code: AuthCode.RequestExpired });
  assert.deepEqual(use(store, ALICE_SELF, -1), { ok: false, code: AuthCode.InvalidNonce });
  assert.deepEqual(use(store, ALICE_SELF, 1.5), { ok: false, code: AuthCode.InvalidNonce });
  assert.deepEqual(use(store, ALICE_SELF, 2 ** 53), { ok: false, code: AuthCode.InvalidNonce });
  assert.deepEqual(use(store, ALICE_SELF, 1, 2 ** 53), { ok: false, code: AuthCode.InvalidExpiresAt });
  assert.deepEqual(store.window(ALICE_SELF), [], 'refusals record nothing');
});

test('each signer has its own window within an account and subaccount', () => {
  const store = new NonceStore();
  assert.ok(use(store, ALICE_SELF, 1).ok);
  assert.ok(use(store, ALICE_VIA_BOB, 1).ok);
  assert.ok(use(store, { ...ALICE_SELF, subaccountIndex: 1 }, 1).ok);
  assert.deepEqual(use(store, ALICE_VIA_BOB, 1), { ok: false, code: AuthCode.NonceUsed });
});

test('a batch is all or nothing, refuses a nonce repeated inside it, and accepts descending nonces', () => {
  const store = new NonceStore();
  for (let n = 100; n < 100 + NONCE_WINDOW; n++) assert.ok(use(store, ALICE_SELF, n).ok);
  const refusedBatch = store.useMany([300, 301, 301].map((nonce) => ({ ...ALICE_SELF, nonce, expiresAt: IN_ONE_HOUR })), NOW);
  assert.deepEqual(refusedBatch, { ok: false, code: AuthCode.NonceUsed, index: 2 });
  assert.equal(store.window(ALICE_SELF).includes(300), false);
  const fresh = new NonceStore();
  for (const n of [5, ...Array.from({ length: NONCE_WINDOW - 1 }, (_, i) => 8 + i)]) assert.ok(use(fresh, ALICE_SELF, n).ok);
  // Both are above the minimum 5; recorded one by one as given, 7 would evict 5 and push 6 below the floor.
  const descending = fresh.useMany([7, 6].map((nonce) => ({ ...ALICE_SELF, nonce, expiresAt: IN_ONE_HOUR })), NOW);
  assert.deepEqual(descending, { ok: true, value: undefined });
  assert.deepEqual(fresh.window(ALICE_SELF).slice(0, 3), [7, 8, 9]);
});

test('property: the store accepts exactly what a naive full history with the top-100 rule accepts', () => {
  const op = fc.record({ signer: fc.constantFrom(ALICE, BOB), nonce: fc.integer({ min: 0, max: 400 }), batch: fc.integer({ min: 1, max: 3 }) });
  fc.assert(
    fc.property(fc.array(op, { maxLength: 500 }), (ops) => {
      const store = new NonceStore();
      const history = new Map<string, number[]>();
      for (const { signer, nonce, batch } of ops) {
        const key = { account: ALICE, subaccountIndex: 0, signer };
        const nonces = Array.from({ length: batch }, (_, i) => nonce + i * 7).reverse();
        const used = history.get(signer) ?? [];
        const naiveOk = (n: number, all: number[]) => {
          const top = [...all].sort((a, b) => b - a).slice(0, NONCE_WINDOW);
          return !all.includes(n) && (top.length < NONCE_WINDOW || n > top[top.length - 1]);
        };
        const expected = nonces.every((n) => naiveOk(n, used)) && new Set(nonces).size === nonces.length;
        const result = store.useMany(nonces.map((n) => ({ ...key, nonce: n, expiresAt: IN_ONE_HOUR })), NOW);
        assert.equal(result.ok, expected, `signer ${signer} nonces ${nonces.join(',')}`);
        if (expected) history.set(signer, [...used, ...nonces]);
      }
      store.validateInternalState();
    }),
    { numRuns: 60 },
  );
});

test('snapshot and restore give an equal state and hash; different states hash differently', () => {
  const store = new NonceStore();
  for (const n of [3, 1, 2]) use(store, ALICE_SELF, n);
  use(store, ALICE_VIA_BOB, 9);
  const restored = NonceStore.restore(JSON.parse(JSON.stringify(store.snapshot())));
  assert.equal(restored.stateHash(), store.stateHash());
  assert.deepEqual(restored.window(ALICE_SELF), [1, 2, 3]);
  assert.deepEqual(use(restored, ALICE_VIA_BOB, 9), { ok: false, code: AuthCode.NonceUsed });
  assert.ok(use(restored, ALICE_VIA_BOB, 10).ok);
  assert.notEqual(restored.stateHash(), store.stateHash());
  assert.throws(() => NonceStore.restore({ version: 1, windows: [[ALICE, 0, ALICE, [2, 1]]] }), /strictly increasing/);
});
