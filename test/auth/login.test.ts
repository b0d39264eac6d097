/** Wallet login: SIWE challenge signed with personal_sign (viem and ethers) → JWT; single use, expiry, domain. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthCode } from '../../src/auth/codes.ts';
import { parseSiweMessage } from '../../src/auth/challenge.ts';
import { WalletLogin } from '../../src/auth/login.ts';
import { ALICE, ALICE_ETHERS, ALICE_VIEM, BOB_VIEM, NOW, refusalReply } from './fixtures.ts';

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
  assert.deepEqual(refusalReply(again), { status: 401, text: 'Login challenge not found or already used' });
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

test("Bob signing Alice's challenge is Invalid signature and spends nothing: only Alice's signature completes it, once", async () => {
  const login = newLogin({ now: NOW });
  const challenge = login.challenge(ALICE);
  assert.ok(challenge.ok);
  assert.deepEqual(await login.login(challenge.value.message, await BOB_VIEM.signMessage({ message: challenge.value.message })), { ok: false, code: AuthCode.InvalidSignature });
  assert.equal(login.challenges.redeemedCount, 0, 'a failed attempt is not remembered');
  const signature = await ALICE_VIEM.signMessage({ message: challenge.value.message });
  assert.ok((await login.login(challenge.value.message, signature)).ok);
  assert.deepEqual(await login.login(challenge.value.message, signature), { ok: false, code: AuthCode.ChallengeNotFound });
});

test('two logins racing with one signed challenge: one token', async () => {
  const login = newLogin({ now: NOW });
  const challenge = login.challenge(ALICE);
  assert.ok(challenge.ok);
  const signature = await ALICE_VIEM.signMessage({ message: challenge.value.message });
  const results = await Promise.all([login.login(challenge.value.message, signature), login.login(challenge.value.message, signature)]);
  assert.deepEqual(results.map((r) => r.ok).sort(), [false, true]);
});

/**
 * Challenges issued in a row by the stateless test: 120,000 in `npm run test:scale` (more than
 * the 100,000 pending challenges that used to fill the old table and lock everybody out), 10,000
 * in `npm test` (each costs about 45 µs: an HMAC, a checksummed address, random bytes).
 */
const CHALLENGES = Number(process.env.LOGIN_CHALLENGES ?? 10_000);

test(`challenges are stateless: ${CHALLENGES} of them store nothing; a redeemed nonce is remembered until its challenge expires, then forgotten`, async () => {
  const clock = { now: NOW };
  const login = new WalletLogin({
    challenge: { domain: 'd.example', uri: 'https://d.example', chainId: 1, ttlMs: 1000, now: () => clock.now },
    token: { keys: [{ kid: 'k1', secret: SECRET }], issuer: 'i', audience: 'a' },
  });
  assert.deepEqual(login.challenge('0x12'), { ok: false, code: AuthCode.InvalidAddress });
  for (let i = 0; i < CHALLENGES; i++) assert.ok(login.challenge(ALICE).ok);
  assert.equal(login.challenges.redeemedCount, 0, 'issuing remembers nothing');
  const nonces = new Set<string>();
  for (let i = 0; i < 1000; i++) nonces.add((login.challenge(ALICE) as { value: { nonce: string } }).value.nonce);
  assert.equal(nonces.size, 1000, 'every challenge of one address in one millisecond is its own');

  for (let round = 0; round < 5; round++) {
    const c = login.challenge(ALICE);
    assert.ok(c.ok);
    const signature = await ALICE_VIEM.signMessage({ message: c.value.message });
    assert.ok((await login.login(c.value.message, signature)).ok);
    clock.now += 999;
    assert.deepEqual(await login.login(c.value.message, signature), { ok: false, code: AuthCode.ChallengeNotFound }, 'used, up to its last millisecond');
    clock.now += 1;
    assert.deepEqual(await login.login(c.value.message, signature), { ok: false, code: AuthCode.ChallengeExpired });
    clock.now += 1500;
  }
  assert.ok(login.challenges.redeemedCount <= 2, `the remembered nonces are only the recent ones: ${login.challenges.redeemedCount}`);
});

test('a challenge issued under another key (another exchange, a rotated secret) does not match', async () => {
  const other = new WalletLogin({
    challenge: { domain: 'testnet.perp.example', uri: 'https://testnet.perp.example', chainId: 421614, ttlMs: 60_000, now: () => NOW },
    token: { keys: [{ kid: 'k1', secret: new Uint8Array(32).fill(3) }], issuer: 'i', audience: 'a' },
  });
  const c = other.challenge(ALICE);
  assert.ok(c.ok);
  const result = await newLogin({ now: NOW }).login(c.value.message, await ALICE_VIEM.signMessage({ message: c.value.message }));
  assert.deepEqual(result, { ok: false, code: AuthCode.ChallengeMismatch });
});
