/** Wallet login: SIWE challenge signed with personal_sign (viem and ethers) → JWT; single use, expiry, domain. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthCode, authError } from '../../src/auth/codes.ts';
import { parseSiweMessage } from '../../src/auth/challenge.ts';
import { WalletLogin } from '../../src/auth/login.ts';
import { ALICE, ALICE_ETHERS, ALICE_VIEM, BOB_VIEM, NOW } from './fixtures.ts';

const SECRET = new Uint8Array(32).fill(9);

function counterBytes() {
  let counter = 0;
  return (length: number) => Uint8Array.from({ length }, () => counter++ % 256);
}

function newLogin(clock: { now: number }) {
  return new WalletLogin({
    challenge: { domain: 'testnet.perp.example', uri: 'https://testnet.perp.example', chainId: 421614, ttlMs: 60_000, now: () => clock.now, randomBytes: counterBytes() },
    token: { keys: [{ kid: 'k1', secret: SECRET }], issuer: 'https://testnet.perp.example', audience: 'perp-api', now: () => clock.now, randomBytes: counterBytes() },
  });
}

test('Alice signs the challenge with viem and gets a token whose subject is her lowercase address', async () => {
  const clock = { now: NOW };
  const login = newLogin(clock);
  const challenge = login.challenge(ALICE_VIEM.address);
  assert.ok(challenge.ok);
  const fields = parseSiweMessage(challenge.value.message);
  assert.equal(fields?.address, ALICE_VIEM.address, 'EIP-55 checksummed in the message');
  assert.match(challenge.value.nonce, /^[A-Za-z0-9]{8,}$/);
  assert.equal(fields?.chainId, 421614);
  assert.equal(fields?.expirationTime, new Date(NOW + 60_000).toISOString());
  const result = await login.login(challenge.value.message, await ALICE_VIEM.signMessage({ message: challenge.value.message }));
  assert.ok(result.ok);
  assert.equal(result.value.address, ALICE);
  assert.equal(result.value.expiresAt, NOW + 900_000);
  assert.deepEqual(await login.tokens.verify(result.value.token), { ok: true, value: ALICE });
});

test('ethers personal_sign works the same', async () => {
  const login = newLogin({ now: NOW });
  const challenge = login.challenge(ALICE);
  assert.ok(challenge.ok);
  const result = await login.login(challenge.value.message, await ALICE_ETHERS.signMessage(challenge.value.message));
  assert.ok(result.ok && result.value.address === ALICE);
});

test('a challenge works once: reusing it is 401 Login challenge not found or already used', async () => {
  const login = newLogin({ now: NOW });
  const challenge = login.challenge(ALICE);
  assert.ok(challenge.ok);
  const signature = await ALICE_VIEM.signMessage({ message: challenge.value.message });
  assert.ok((await login.login(challenge.value.message, signature)).ok);
  const again = await login.login(challenge.value.message, signature);
  assert.ok(!again.ok);
  assert.deepEqual(authError(again), { status: 401, text: 'Login challenge not found or already used' });
});

test('an expired challenge is refused, and so is a message never issued or edited', async () => {
  const clock = { now: NOW };
  const login = newLogin(clock);
  const challenge = login.challenge(ALICE);
  assert.ok(challenge.ok);
  const message = challenge.value.message;
  const signature = await ALICE_VIEM.signMessage({ message });
  const edited = message.replace('Sign in', 'Log in');
  assert.deepEqual(await login.login(edited, await ALICE_VIEM.signMessage({ message: edited })), { ok: false, code: AuthCode.ChallengeMismatch });
  const otherDomain = message.replace('testnet.perp.example wants', 'evil.example wants');
  assert.deepEqual(await login.login(otherDomain, signature), { ok: false, code: AuthCode.ChallengeMismatch });
  const otherChain = message.replace('Chain ID: 421614', 'Chain ID: 42161');
  assert.deepEqual(await login.login(otherChain, signature), { ok: false, code: AuthCode.ChallengeMismatch });
  const forgedNonce = message.replace(/Nonce: \w+/, 'Nonce: AAAAAAAAAAAA');
  assert.deepEqual(await login.login(forgedNonce, signature), { ok: false, code: AuthCode.ChallengeNotFound });
  clock.now = challenge.value.expiresAt;
  assert.deepEqual(await login.login(message, signature), { ok: false, code: AuthCode.ChallengeExpired });
});

test("Bob signing Alice's challenge is Invalid signature, and the challenge is spent", async () => {
  const login = newLogin({ now: NOW });
  const challenge = login.challenge(ALICE);
  assert.ok(challenge.ok);
  assert.deepEqual(await login.login(challenge.value.message, await BOB_VIEM.signMessage({ message: challenge.value.message })), { ok: false, code: AuthCode.InvalidSignature });
  const late = await login.login(challenge.value.message, await ALICE_VIEM.signMessage({ message: challenge.value.message }));
  assert.deepEqual(late, { ok: false, code: AuthCode.ChallengeNotFound });
});

test('challenges: bad address refused, expired ones dropped, pending ones capped', () => {
  const clock = { now: NOW };
  const login = new WalletLogin({
    challenge: { domain: 'd.example', uri: 'https://d.example', chainId: 1, ttlMs: 1000, maxPending: 2, now: () => clock.now },
    token: { keys: [{ kid: 'k1', secret: SECRET }], issuer: 'i', audience: 'a' },
  });
  assert.deepEqual(login.challenge('0x12'), { ok: false, code: AuthCode.InvalidAddress });
  assert.ok(login.challenge(ALICE).ok);
  assert.ok(login.challenge(ALICE).ok);
  assert.deepEqual(authError(login.challenge(ALICE) as never), { status: 503, text: 'Too many pending login challenges, retry later' });
  clock.now += 1000;
  assert.ok(login.challenge(ALICE).ok);
  assert.equal(login.challenges.size, 1);
});
