/**
 * The guard of every /account/* route, over HTTP with wallets logged in through /auth/*:
 * missing, malformed, forged and expired tokens; a token of A reading B; delegates with and
 * without `read`; a revoked delegate; strict queries; the per-account budget (429 + Retry-After).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { ALICE_VIEM as ALICE_WALLET, ALICE, BOB_VIEM as BOB_WALLET, BOB, CAROL_VIEM as CAROL_WALLET, CAROL } from '../auth/fixtures.ts';
import { startAccountServer, NOW, USD } from './account-server.ts';


const server = await startAccountServer();
server.ledger.deposit(ALICE, 0, 1000n * USD, NOW);
server.ledger.deposit(ALICE, 1, 50n * USD, NOW);
server.ledger.deposit(BOB, 0, 1000n * USD, NOW);
const aliceToken = await server.login(ALICE_WALLET);
const bobToken = await server.login(BOB_WALLET);
const carolToken = await server.login(CAROL_WALLET);

const ALICE_STATS = `/account/stats?account=${ALICE}&subaccountIndex=0`;
const READS = ['/account/stats', '/account/positions', '/account/fills', '/account/balance', '/account/margin', '/account/transfer/history', '/account/delegates', '/account/signers', '/account/nonce'];

test('every /account/* read without a token is 401 Please add the JWT token to the header', async () => {
  for (const path of READS) {
    const res = await server.get(`${path}?account=${ALICE}&subaccountIndex=0`);
    assert.equal(res.status, 401, path);
    assert.equal(res.text, 'Please add the JWT token to the header', path);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  }
  for (const path of ['/account/margin', '/account/transfer', '/account/delegates']) {
    const res = await server.post(path, {});
    assert.equal(res.status, 401, path);
    assert.equal(res.text, 'Please add the JWT token to the header', path);
  }
  for (const authorization of ['', 'Basic abc', 'Bearer', aliceToken]) {
    const res = await server.request('GET', ALICE_STATS, { authorization });
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
    .setIssuer('https://testnet.perp.example').setAudience('perp-api').setIssuedAt(iat).setExpirationTime(iat + 60)
    .sign(new Uint8Array(32).fill(8));
  for (const token of ['abc', `${header}.${asBob}.${signature}`, `${header}.${payload}.${signature.slice(0, -2)}AA`, otherKey]) {
    const res = await server.get(ALICE_STATS, token);
    assert.equal(res.status, 401, token);
    assert.equal(res.text, 'Invalid JWT token');
  }
});

test('a token of A reading B is 403 Not delegated on every read (one rule, docs/auth.md)', async () => {
  for (const path of ['/account/stats', '/account/positions', '/account/fills', '/account/balance', '/account/margin', '/account/transfer/history', '/account/delegates', '/account/signers', '/account/nonce']) {
    const res = await server.get(`${path}?account=${BOB}&subaccountIndex=0`, aliceToken);
    assert.equal(res.status, 403, path);
    assert.equal(res.text, 'Not delegated for account and subaccount', path);
  }
});

test('a delegate with read scope reads that subaccount only; trade includes read; revoked it is refused again', async () => {
  server.delegate(ALICE, 0, BOB, 'read');
  server.delegate(ALICE, 0, CAROL, 'trade');
  try {
    for (const path of READS) {
      const res = await server.get(`${path}?account=${ALICE}&subaccountIndex=0`, bobToken);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
    assert.equal((await server.get(ALICE_STATS, bobToken)).json().accountValue, '1000');
    const other = await server.get(`/account/balance?account=${ALICE}&subaccountIndex=1`, bobToken);
    assert.equal(other.status, 403);
    assert.equal(other.text, 'Not delegated for account and subaccount');
    for (const path of READS) {
      const res = await server.get(`${path}?account=${ALICE}&subaccountIndex=0`, carolToken);
      assert.equal(res.status, 200, `trade includes read, ${path}: ${res.text}`);
    }
  } finally {
    server.revoke(ALICE, 0, BOB);
    server.revoke(ALICE, 0, CAROL);
  }
  const revoked = await server.get(ALICE_STATS, bobToken);
  assert.equal(revoked.status, 403);
  assert.equal(revoked.text, 'Not delegated for account and subaccount');
  assert.equal((await server.get(`/account/delegates?account=${ALICE}&subaccountIndex=0`, bobToken)).text, 'Not delegated for account and subaccount');
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
    const res = await server.get(path, aliceToken);
    assert.equal(res.status, 400, path);
    assert.equal(res.text, text, path);
  }
  assert.equal((await server.get(`/account/stats?account=${ALICE_WALLET.address}&subaccountIndex=0`, aliceToken)).status, 200, 'checksummed address accepted');
});

test('every response carries the budget headers', async () => {
  const ok = await server.get(ALICE_STATS, aliceToken);
  assert.equal(ok.headers.get('x-ratelimit-limit'), '200');
  assert.match(ok.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
  const denied = await server.get(`/account/stats?account=${BOB}&subaccountIndex=0`, aliceToken);
  assert.equal(denied.headers.get('x-ratelimit-limit'), '200');
  const unauthenticated = await server.get(ALICE_STATS);
  assert.equal(unauthenticated.headers.get('x-ratelimit-limit'), '200');
});

test('an expired token is 401 JWT token expired, please log in again', async () => {
  server.clock.now = NOW + 15 * 60_000 + 6_000; // past exp and the 5 s tolerance; time only moves forward
  const res = await server.get(ALICE_STATS, aliceToken);
  assert.equal(res.status, 401);
  assert.equal(res.text, 'JWT token expired, please log in again');
});

test('200 fast requests of one account pass, the 201st is 429 with Retry-After; another account is unaffected', async () => {
  server.clock.now += 60_000;
  const token = await server.login(ALICE_WALLET);
  const other = await server.login(BOB_WALLET);
  // The clock stands still: all of these arrive in the same millisecond.
  const statuses: number[] = [];
  let last = 200;
  for (let i = 0; i < 200; i++) {
    const res = await server.get(ALICE_STATS, token);
    statuses.push(res.status);
    if (i === 199) last = Number(res.headers.get('x-ratelimit-remaining'));
  }
  assert.deepEqual(new Set(statuses), new Set([200]));
  assert.equal(last, 0);
  const refused = await server.get(ALICE_STATS, token);
  assert.equal(refused.status, 429);
  assert.equal(refused.text, 'Too many requests: at most 200 per second per account, retry after the cool-down');
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
  assert.equal((await server.get(`/account/stats?account=${BOB}&subaccountIndex=0`, other)).status, 200, "Bob's budget is his own");
  server.clock.now += 3_000;
  assert.equal((await server.get(ALICE_STATS, token)).status, 200, 'served again after the cool-down');
});
