/**
 * The guard of every /account/* route, on the in-process exchange (test/harness/in-process-exchange)
 * with wallets logged in through /auth/*: missing, malformed, forged and expired tokens; a token
 * of A reading B; delegates with and without `read`; a revoked delegate; strict queries; the
 * per-account budget (429 + Retry-After).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { ALICE_KEY, ALICE_VIEM as ALICE_WALLET, ALICE, BOB_KEY, BOB, CAROL_KEY, TESTNET } from '../auth/fixtures.ts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader } from '../harness/traders.ts';
import { delegate, revoke } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const NOW = ex.now();
const [alice, bob, carol] = [new Trader(ex, ALICE_KEY), new Trader(ex, BOB_KEY), new Trader(ex, CAROL_KEY)];
for (const trader of [alice, bob, carol]) await trader.login();
await alice.fund('1000');
await alice.fund('50', 1);
await bob.fund('1000');
const aliceToken = alice.token;

const ALICE_STATS = `/account/stats?account=${ALICE}&subaccountIndex=0`;
const READS = ['/account/stats', '/account/positions', '/account/fills', '/account/balance', '/account/margin', '/account/transfer/history', '/account/delegates', '/account/signers', '/account/nonce'];

test('every /account/* read without a token is 401 Please add the JWT token to the header', async () => {
  for (const path of READS) {
    const res = await ex.request('GET', `${path}?account=${ALICE}&subaccountIndex=0`);
    assert.equal(res.status, 401, path);
    assert.equal(res.text, 'Please add the JWT token to the header', path);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  }
  for (const path of ['/account/margin', '/account/transfer', '/account/delegates']) {
    const res = await ex.request('POST', path, {});
    assert.equal(res.status, 401, path);
    assert.equal(res.text, 'Please add the JWT token to the header', path);
  }
  for (const authorization of ['', 'Basic abc', 'Bearer', aliceToken]) {
    const res = await ex.request('GET', ALICE_STATS, undefined, { authorization });
    assert.equal(res.status, 401, authorization);
    assert.equal(res.text, 'Please add the JWT token to the header');
  }
});

test('a malformed, tampered or foreign-key token is 401 Invalid JWT token', async () => {
  const [header, payload, signature] = aliceToken.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const asBob = Buffer.from(JSON.stringify({ ...claims, sub: BOB })).toString('base64url');
  const iat = Math.floor(NOW / 1000);
  const otherKey = await new SignJWT({ sub: ALICE, jti: 'x' })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: 'k1' })
    .setIssuer(TESTNET.baseUrl).setAudience(TESTNET.baseUrl).setIssuedAt(iat).setExpirationTime(iat + 60)
    .sign(new Uint8Array(32).fill(8));
  for (const token of ['abc', `${header}.${asBob}.${signature}`, `${header}.${payload}.${signature.slice(0, -2)}AA`, otherKey]) {
    const res = await ex.request('GET', ALICE_STATS, undefined, { authorization: `Bearer ${token}` });
    assert.equal(res.status, 401, token);
    assert.equal(res.text, 'Invalid JWT token');
  }
});

test('a token of A reading B is 403 Not delegated on every read (one rule, docs/auth.md), the spec\'s Delegation not allowed on stats, positions and fills', async () => {
  const specSays = ['/account/stats', '/account/positions', '/account/fills'];
  for (const path of [...specSays, '/account/balance', '/account/margin', '/account/transfer/history', '/account/delegates', '/account/signers', '/account/nonce']) {
    const res = await alice.get(`${path}?account=${BOB}&subaccountIndex=0`);
    assert.equal(res.status, 403, path);
    assert.equal(res.text, specSays.includes(path) ? 'Delegation not allowed for request' : 'Not delegated for account and subaccount', path);
  }
});

test('a delegate with read scope reads that subaccount only; trade includes read; revoked it is refused again', async () => {
  await delegate(alice, bob, 'read');
  await delegate(alice, carol, 'trade');
  try {
    for (const path of READS) {
      const res = await bob.get(`${path}?account=${ALICE}&subaccountIndex=0`);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
    assert.equal((await bob.get(ALICE_STATS)).json().accountValue, '1000');
    const other = await bob.get(`/account/balance?account=${ALICE}&subaccountIndex=1`);
    assert.equal(other.status, 403);
    assert.equal(other.text, 'Not delegated for account and subaccount');
    for (const path of READS) {
      const res = await carol.get(`${path}?account=${ALICE}&subaccountIndex=0`);
      assert.equal(res.status, 200, `trade includes read, ${path}: ${res.text}`);
    }
  } finally {
    await revoke(alice, bob);
    await revoke(alice, carol);
  }
  const revoked = await bob.get(ALICE_STATS);
  assert.equal(revoked.status, 403);
  assert.equal(revoked.text, 'Delegation not allowed for request');
  assert.equal((await bob.get(`/account/delegates?account=${ALICE}&subaccountIndex=0`)).text, 'Not delegated for account and subaccount');
});

test('queries are strict: account, subaccountIndex and the declared parameters only', async () => {
  const cases: Array<[string, string]> = [
    ['/account/stats?subaccountIndex=0', 'Missing query parameter account'],
    [`/account/stats?account=${ALICE}`, 'Missing query parameter subaccountIndex'],
    ['/account/stats?account=0x12&subaccountIndex=0', 'account must be a 0x-prefixed 20-byte hex address'],
    [`/account/stats?account=${ALICE}&subaccountIndex=-1`, 'Invalid subaccount index'],
    [`/account/stats?account=${ALICE}&subaccountIndex=2147483648`, 'Invalid subaccount index'],
    [`/account/stats?account=${ALICE}&subaccountIndex=1.5`, 'Invalid subaccount index'],
    [`/account/stats?account=${ALICE}&subaccountIndex=abc`, 'Invalid subaccount index'],
    [`/account/stats?account=${ALICE}&subaccountIndex=0&subaccountIndex=1`, 'Query parameter subaccountIndex given more than once'],
    [`/account/stats?account=${ALICE}&subAccountIndex=0`, 'Unknown query parameter subAccountIndex; allowed: account, subaccountIndex'],
    [`/account/stats?account=${ALICE}&subaccountIndex=0&symbol=BTC`, 'Unknown query parameter symbol; allowed: account, subaccountIndex'],
  ];
  for (const [path, text] of cases) {
    const res = await alice.get(path);
    assert.equal(res.status, 400, path);
    assert.equal(res.text, text, path);
  }
  assert.equal((await alice.get(`/account/stats?account=${ALICE_WALLET.address}&subaccountIndex=0`)).status, 200, 'checksummed address accepted');
});

test('every response carries the budget headers', async () => {
  const ok = await alice.get(ALICE_STATS);
  assert.equal(ok.headers.get('x-ratelimit-limit'), '200');
  assert.match(ok.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
  const denied = await alice.get(`/account/stats?account=${BOB}&subaccountIndex=0`);
  assert.equal(denied.headers.get('x-ratelimit-limit'), '200');
  const unauthenticated = await ex.request('GET', ALICE_STATS);
  assert.equal(unauthenticated.headers.get('x-ratelimit-limit'), '200');
});

test('an expired token is 401 JWT token expired, please log in again', async () => {
  await ex.advance(NOW + 15 * 60_000 + 6_000 - ex.now()); // past exp and the 5 s tolerance
  const res = await alice.get(ALICE_STATS);
  assert.equal(res.status, 401);
  assert.equal(res.text, 'JWT token expired, please log in again');
});

test('200 fast requests of one account pass, the 201st is 429 with Retry-After; another account is unaffected', async () => {
  await ex.advance(60_000);
  const again = await new Trader(ex, ALICE_KEY).login();
  const other = await new Trader(ex, BOB_KEY).login();
  // The clock stands still: all of these arrive in the same millisecond.
  const statuses: number[] = [];
  let last = 200;
  for (let i = 0; i < 200; i++) {
    const res = await again.get(ALICE_STATS);
    statuses.push(res.status);
    if (i === 199) last = Number(res.headers.get('x-ratelimit-remaining'));
  }
  assert.deepEqual(new Set(statuses), new Set([200]));
  assert.equal(last, 0);
  const refused = await again.get(ALICE_STATS);
  assert.equal(refused.status, 429);
  assert.equal(refused.text, 'Too many requests: at most 200 per second per account, retry after the cool-down');
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
  assert.equal((await other.get(`/account/stats?account=${BOB}&subaccountIndex=0`)).status, 200, "Bob's budget is his own");
  await ex.advance(3_000);
  assert.equal((await again.get(ALICE_STATS)).status, 200, 'served again after the cool-down');
});
