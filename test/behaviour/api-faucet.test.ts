/**
 * The testnet faucet (issue 14, item 9): it funds the logged-in account only, at most 5 credits
 * of 10,000 USD per account per UTC day, and the allowance is counted from the exchange's
 * journaled state (a restart neither forgets it nor grants it again: test/behaviour/api-faucet-restart).
 * Its terms are published in GET /config and the API document.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader } from '../harness/traders.ts';
import { assertError, ok } from '../harness/api-helpers.ts';
import { assertAllowanceUsed, balance, clearOfMidnight, faucet, takeAllowance } from '../harness/faucet-helpers.ts';

/** One exchange for the tests that do not restart: each credits accounts of its own. */
const ex = await startInProcessExchange();

test('the faucet needs the login of the account it credits', async () => {
  const alice = await new Trader(ex).login();
  const bob = await new Trader(ex).login();
  assertError(await ex.request('POST', '/faucet', { account: alice.address }), 401, 'Please add the JWT token to the header');
  assertError(await bob.send('POST', '/faucet', { account: alice.address }), 403, `The faucet credits only the logged-in account: the token is for ${bob.address}`);
  ok(await faucet(alice));
  assert.equal(await balance(alice), '10000');
});

test('at most 5 credits (50,000 USD) per account per UTC day, over all its subaccounts; another account is not affected', async () => {
  await clearOfMidnight(ex);
  const alice = await new Trader(ex).login();
  await takeAllowance(alice);
  assert.deepEqual([await balance(alice, 0), await balance(alice, 1)], ['30000', '20000']);
  await assertAllowanceUsed(ex, alice, 0);
  await assertAllowanceUsed(ex, alice, 7);
  assert.equal(await balance(alice, 0), '30000', 'a refused credit moves nothing');
  const bob = await new Trader(ex).login();
  ok(await faucet(bob));
});

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
