/**
 * POST /auth/challenge and POST /auth/login on the in-process exchange
 * (test/harness/in-process-exchange) with real wallets (viem and ethers personal_sign).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE_ETHERS, ALICE_VIEM as ALICE, BOB_VIEM as BOB, NOW } from '../auth/fixtures.ts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';

// A whole second: a token's expiry is one (JWT `exp`).
const ex = await startInProcessExchange({ startAt: NOW });
const post = (path: string, body: unknown) => ex.request('POST', path, body);

async function challenge(address: string) {
  const res = await post('/auth/challenge', { address });
  assert.equal(res.status, 200, res.text);
  return res.json() as { message: string; nonce: string; expiresAt: number };
}

test('Alice gets a SIWE challenge naming her checksummed address, then a token for her lowercase address', async () => {
  const c = await challenge(ALICE.address.toLowerCase());
  assert.equal(typeof c.message, 'string');
  assert.match(c.nonce, /^[0-9a-f]{48}$/, "a salt and an HMAC, hex");
  assert.equal(c.expiresAt, NOW + 5 * 60_000);
  assert.ok(c.message.includes(ALICE.address), 'EIP-55 address in the message');
  assert.ok(c.message.includes(`Nonce: ${c.nonce}`));
  const res = await post('/auth/login', { message: c.message, signature: await ALICE.signMessage({ message: c.message }) });
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['address', 'expiresAt', 'token']);
  assert.equal(body.address, ALICE.address.toLowerCase());
  assert.equal(body.expiresAt, NOW + 900_000);
  assert.match(body.token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  const stats = await ex.request('GET', `/account/nonce?account=${ALICE.address}&subaccountIndex=0`, undefined, { authorization: `Bearer ${body.token}` });
  assert.equal(stats.status, 200, 'the token opens /account/* routes');
});

test('an ethers wallet logs in the same way', async () => {
  const c = await challenge(ALICE_ETHERS.address);
  const res = await post('/auth/login', { message: c.message, signature: await ALICE_ETHERS.signMessage(c.message) });
  assert.equal(res.status, 200, res.text);
});

test('a challenge is single use: the second login with it is 401', async () => {
  const c = await challenge(ALICE.address);
  const signature = await ALICE.signMessage({ message: c.message });
  assert.equal((await post('/auth/login', { message: c.message, signature })).status, 200);
  const again = await post('/auth/login', { message: c.message, signature });
  assert.equal(again.status, 401);
  assert.equal(again.text, 'Login challenge not found or already used');
});

test("Bob signing Alice's challenge is 400 Invalid signature and spends nothing: Alice still completes it", async () => {
  const c = await challenge(ALICE.address);
  const res = await post('/auth/login', { message: c.message, signature: await BOB.signMessage({ message: c.message }) });
  assert.equal(res.status, 400);
  assert.equal(res.text, 'Invalid signature');
  const retry = await post('/auth/login', { message: c.message, signature: await ALICE.signMessage({ message: c.message }) });
  assert.equal(retry.status, 200, retry.text);
});

test('an edited message is 401 Login message does not match the challenge; an expired one 401 Login challenge expired', async () => {
  const c = await challenge(ALICE.address);
  const edited = c.message.replace('Sign in', 'Log in');
  const res = await post('/auth/login', { message: edited, signature: await ALICE.signMessage({ message: edited }) });
  assert.equal(res.status, 401);
  assert.equal(res.text, 'Login message does not match the challenge');
  const late = await challenge(ALICE.address);
  await ex.advance(late.expiresAt - ex.now());
  const expired = await post('/auth/login', { message: late.message, signature: await ALICE.signMessage({ message: late.message }) });
  assert.equal(expired.status, 401);
  assert.equal(expired.text, 'Login challenge expired');
});

test('bad bodies are 400 with a sentence', async () => {
  for (const [body, text] of [
    [{ address: '0x1234' }, 'Invalid address'],
    [{}, 'Missing field address'],
    [{ address: ALICE.address, extra: 1 }, 'Unknown field extra'],
    ['{not json', 'Request body must be valid JSON'],
  ] as const) {
    const res = await post('/auth/challenge', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.text, text);
  }
  const login = await post('/auth/login', { message: 'hello' });
  assert.equal(login.status, 400);
  assert.equal(login.text, 'Missing field signature');
});

test('login routes carry the per-source-address budget headers', async () => {
  const res = await post('/auth/challenge', { address: ALICE.address });
  assert.equal(res.headers.get('x-ratelimit-limit'), '200');
  assert.match(res.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
});
