/**
 * The testnet faucet (issue 14, item 9): it funds the logged-in account only, at most 5 credits
 * of 10,000 USD per account per UTC day, and the allowance is counted from the exchange's
 * journaled state — a restart, from the journal or from a snapshot, neither forgets it nor
 * grants it again. Its terms are published in GET /config and the API document.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange, tempDataDir, Trader } from './harness.ts';
import { assertError, ok, sleep, sub } from '../harness/api-helpers.ts';

const DAY_MS = 86_400_000;
const ALLOWANCE_USED = /^Faucet allowance used: at most 50000 USD \(5 credits of 10000\) per account per UTC day; it resets at (\S+) \(00:00 UTC\)$/;

/** A credit a minute before midnight UTC and the next one after it fall in different days: start clear of it. */
async function clearOfMidnight(): Promise<void> {
  const left = DAY_MS - (Date.now() % DAY_MS);
  if (left < 60_000) await sleep(left + 100);
}

const faucet = (t: Trader, subaccountIndex = 0, account = t.address) => t.send('POST', '/faucet', { account, subaccountIndex });

/** Five credits to `t`, each 200 `null`. */
async function takeAllowance(t: Trader): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const r = await faucet(t, i % 2);
    assert.equal(r.status, 200, `credit ${i + 1}: ${r.text}`);
    assert.equal(r.text, 'null');
  }
}

/** The sixth credit of the day: 429 naming the allowance and the next 00:00 UTC, with Retry-After until then. */
async function assertAllowanceUsed(t: Trader, subaccountIndex = 0): Promise<void> {
  const r = await faucet(t, subaccountIndex);
  assert.equal(r.status, 429, r.text);
  const reset = ALLOWANCE_USED.exec(r.text)?.[1];
  assert.ok(reset !== undefined, `the text names the allowance and its reset: ${r.text}`);
  const nextMidnight = (Math.floor(Date.now() / DAY_MS) + 1) * DAY_MS;
  assert.equal(Date.parse(reset), nextMidnight);
  const retryAfter = Number(r.headers.get('retry-after'));
  assert.ok(Math.abs(retryAfter - (nextMidnight - Date.now()) / 1000) < 5, `Retry-After ${retryAfter} s is the time to 00:00 UTC`);
}

/** One exchange for the tests that do not restart: each credits accounts of its own. */
const ex = await startTestExchange();

const balance = async (t: Trader, subaccountIndex = 0) => ok(await t.get(`/account/balance?${sub(t, subaccountIndex)}`)).collateral;

test('the faucet needs the login of the account it credits', async () => {
  const alice = await new Trader(ex).login();
  const bob = await new Trader(ex).login();
  assertError(await ex.request('POST', '/faucet', { account: alice.address }), 401, 'Please add the JWT token to the header');
  assertError(await bob.send('POST', '/faucet', { account: alice.address }), 403, `The faucet credits only the logged-in account: the token is for ${bob.address}`);
  ok(await faucet(alice));
  assert.equal(await balance(alice), '10000');
});

test('at most 5 credits (50,000 USD) per account per UTC day, over all its subaccounts; another account is not affected', async () => {
  await clearOfMidnight();
  const alice = await new Trader(ex).login();
  await takeAllowance(alice);
  assert.deepEqual([await balance(alice, 0), await balance(alice, 1)], ['30000', '20000']);
  await assertAllowanceUsed(alice, 0);
  await assertAllowanceUsed(alice, 7);
  assert.equal(await balance(alice, 0), '30000', 'a refused credit moves nothing');
  const bob = await new Trader(ex).login();
  ok(await faucet(bob));
});

for (const snapshot of [false, true]) {
  test(`the allowance survives a restart ${snapshot ? 'from a snapshot' : 'replaying the journal'}`, async (t) => {
    await clearOfMidnight();
    const dataDir = tempDataDir(t, 'perp-faucet-');
    const first = await startTestExchange({ dataDir });
    const alice = await new Trader(first).login();
    const bob = await new Trader(first).login();
    await takeAllowance(alice);
    ok(await faucet(bob));
    await first.stop({ snapshot });
    const second = await startTestExchange({ dataDir });
    for (const trader of [alice, bob]) {
      trader.ex = second;
      await trader.login();
    }
    await assertAllowanceUsed(alice);
    assert.equal(await balance(alice, 0), '30000');
    // Bob's one credit before the restart counts too: four more, then refused.
    for (let i = 0; i < 4; i++) ok(await faucet(bob));
    await assertAllowanceUsed(bob);
  });
}

test('GET /config publishes the terms; the API document has the faucet and the operator API, and names this server first', async () => {
  const config = ok(await ex.request('GET', '/config'));
  assert.deepEqual(config.limits.faucet, { credit: '10000', creditsPerDay: 5, allowancePerDay: '50000', per: 'account (address, all its subaccounts together), logged in', resets: 'at 00:00 UTC' });
  const doc = ok(await ex.request('GET', '/openapi.json'));
  assert.equal(doc.servers[0].url, ex.url, 'the address this server answers at');
  const post = doc.paths['/faucet'].post;
  assert.deepEqual(post.security, [{ bearer: [] }]);
  assert.match(post.responses['429'].description, /Faucet allowance used: at most 50000 USD/);
  assert.match(post.responses['403'].description, /The faucet credits only the logged-in account/);
  for (const [method, path] of [['post', '/operator/deposit'], ['post', '/operator/withdraw'], ['post', '/operator/index-price'], ['post', '/operator/index-price/release'], ['post', '/operator/snapshot'], ['get', '/operator/state-hash']]) {
    const op = doc.paths[path]?.[method];
    assert.ok(op, `${method} ${path} is documented`);
    assert.deepEqual(op.security, [{ operatorKey: [] }], `${method} ${path} takes X-Operator-Key`);
    assert.match(op.responses['401'].description, /Operator key missing or wrong/);
  }
  assert.ok(doc.paths['/operator/deposit'].post.requestBody, 'the operator routes carry their bodies');
  assert.deepEqual(doc.components.securitySchemes.operatorKey, { ...doc.components.securitySchemes.operatorKey, type: 'apiKey', in: 'header', name: 'X-Operator-Key' });
  const page = (await ex.request('GET', '/docs')).text;
  for (const path of ['/faucet', '/operator/deposit', '/operator/state-hash']) assert.ok(page.includes(`${path} <small>`), `/docs shows ${path}`);
});
