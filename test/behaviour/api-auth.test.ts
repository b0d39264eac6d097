/**
 * Black-box tests of login and authorization on the in-process exchange (test/harness/in-process-exchange): the wallet challenge → signed
 * → JWT flow and its refusals, the bearer token on every /account/* route, a token of A reading
 * B, a read delegate reading (and not trading), a trade delegate trading, a revoked delegate
 * refused, per-subaccount delegation, and the budget headers. (A challenge across a restart:
 * test/behaviour/api-auth-restart.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader } from '../harness/traders.ts';
import { ADDRESS, assertError, assertMillisNow, delegate, isInteger, ok, revoke, sub } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const login = () => new Trader(ex).login();

const ALICE_BUY_0_01_BTC_AT_80000 = { price: '80000', quantity: '0.01', clientId: 'alice-80000' };

test('login: challenge → personal_sign → {token, expiresAt, address}; the challenge is single-use', async () => {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const before = ex.now();
  const challenge = ok(await ex.request('POST', '/auth/challenge', { address: wallet.address }));
  assert.deepEqual(Object.keys(challenge).sort(), ['expiresAt', 'message', 'nonce']);
  assert.equal(typeof challenge.message, 'string');
  assert.ok(challenge.message.includes(wallet.address), 'the EIP-4361 message names the address');
  assert.ok(challenge.message.includes(challenge.nonce), 'and the nonce');
  assert.ok(isInteger(challenge.expiresAt) && challenge.expiresAt >= before + 4 * 60_000 && challenge.expiresAt <= ex.now() + 5 * 60_000 + 1000, 'valid 5 minutes (ms)');

  const signature = await wallet.signMessage({ message: challenge.message });
  const session = ok(await ex.request('POST', '/auth/login', { message: challenge.message, signature }));
  assert.deepEqual(Object.keys(session).sort(), ['address', 'expiresAt', 'token']);
  assert.match(session.token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a JWT');
  assert.equal(session.address, wallet.address.toLowerCase());
  assert.match(session.address, ADDRESS);
  assert.ok(session.expiresAt >= before + 14 * 60_000 && session.expiresAt <= ex.now() + 15 * 60_000 + 1000, 'valid 15 minutes (ms)');

  const nonce = ok(await ex.request('GET', `/account/nonce?account=${session.address}&subaccountIndex=0`, undefined, { authorization: `Bearer ${session.token}` }));
  assert.equal(nonce.nonce, 0, 'the token opens the account routes');
  assertError(await ex.request('POST', '/auth/login', { message: challenge.message, signature }), 401, 'Login challenge not found or already used');
});

test('login refusals: another key, an edited message, a bad address, a bad body', async () => {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const other = privateKeyToAccount(generatePrivateKey());
  const c1 = ok(await ex.request('POST', '/auth/challenge', { address: wallet.address }));
  assertError(await ex.request('POST', '/auth/login', { message: c1.message, signature: await other.signMessage({ message: c1.message }) }), 400, 'Invalid signature');

  const c2 = ok(await ex.request('POST', '/auth/challenge', { address: wallet.address.toLowerCase() }));
  const edited = c2.message.replace(/Expiration Time: .*/, 'Expiration Time: 2999-01-01T00:00:00.000Z');
  assert.notEqual(edited, c2.message);
  assertError(await ex.request('POST', '/auth/login', { message: edited, signature: await wallet.signMessage({ message: edited }) }), 401, 'Login message does not match the challenge');

  assertError(await ex.request('POST', '/auth/challenge', { address: '0x1234' }), 400, 'Invalid address');
  assertError(await ex.request('POST', '/auth/challenge', { address: 'alice' }), 400, 'Invalid address');
  assertError(await ex.request('POST', '/auth/challenge', '{not json'), 400, 'Request body must be valid JSON');
  assertError(await ex.request('POST', '/auth/login', { message: c2.message }), 400, 'Missing field signature');
});

test('the bearer token: missing, malformed, tampered', async () => {
  const alice = await login();
  const path = `/account/stats?${sub(alice)}`;
  assertError(await ex.request('GET', path), 401, 'Please add the JWT token to the header');
  assertError(await ex.request('GET', path, undefined, { authorization: alice.token }), 401, 'Please add the JWT token to the header');
  assertError(await ex.request('GET', path, undefined, { authorization: 'Bearer not-a-jwt' }), 401, 'Invalid JWT token');
  // A Bearer credential that is not one token was sent, just not a valid one: not "add the token".
  assertError(await ex.request('GET', path, undefined, { authorization: `Bearer ${alice.token} extra` }), 401, 'Invalid JWT token');
  assertError(await ex.request('GET', path, undefined, { authorization: 'Bearer ' }), 401, 'Please add the JWT token to the header');
  const [header, payload, signature] = alice.token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const forged = Buffer.from(JSON.stringify({ ...claims, sub: '0x' + '1'.repeat(40) })).toString('base64url');
  assertError(await ex.request('GET', path, undefined, { authorization: `Bearer ${header}.${forged}.${signature}` }), 401, 'Invalid JWT token');
  // every account route, reads and writes alike
  for (const [method, route] of [
    ['GET', '/account/orders'], ['GET', '/account/order'], ['POST', '/account/order'], ['POST', '/account/orders'], ['DELETE', '/account/order'], ['DELETE', '/account/orders'],
    ['POST', '/account/orders/cancel'], ['GET', '/account/positions'], ['GET', '/account/fills'], ['GET', '/account/balance'], ['GET', '/account/margin'], ['POST', '/account/margin'],
    ['POST', '/account/transfer'], ['GET', '/account/transfer/history'], ['GET', '/account/delegates'], ['POST', '/account/delegates'], ['GET', '/account/signers'], ['GET', '/account/nonce'],
  ]) {
    assertError(await ex.request(method, route, method === 'GET' || method === 'DELETE' ? undefined : {}), 401, 'Please add the JWT token to the header');
  }
});

test("a token of A reading B's subaccount is refused on every read", async () => {
  const alice = await login();
  const bob = await login();
  await alice.fund('10000');
  const [order] = ok(await alice.place(ALICE_BUY_0_01_BTC_AT_80000));
  const q = sub(alice);
  // one rule on every read (docs/auth.md): Bob holds no grant, so he is not delegated; the spec names its own text for stats, positions and fills
  for (const route of ['orders', 'balance', 'margin', 'transfer/history', 'delegates', 'signers', 'nonce']) assertError(await bob.get(`/account/${route}?${q}`), 403, 'Not delegated for account and subaccount');
  for (const route of ['stats', 'positions', 'fills']) assertError(await bob.get(`/account/${route}?${q}`), 403, 'Delegation not allowed for request');
  // an order of another account is not found, so ids cannot be probed
  assertError(await bob.get(`/account/order?orderId=${order.orderId}`), 404, 'Order not found');
  assertError(await bob.get(`/account/order?clientId=alice-80000&account=${alice.address}`), 404, 'Order not found');
  // and Bob cannot trade for her with his own signature: he is not delegated (issue 14, item 1)
  assertError(await bob.send('POST', '/account/order', await alice.signedOrder({ price: '80000', quantity: '0.01' }, bob.wallet)), 403, 'Not delegated for account and subaccount');
  assertError(await bob.send('DELETE', `/account/orders?${q}`), 403, 'Not delegated for account and subaccount');
  assert.equal(ok(await alice.get(`/account/order?orderId=${order.orderId}`)).status, 'new');
});

test('a read delegate reads every subaccount route, but neither trades nor reads another subaccount; a trade delegate trades and reads', async () => {
  const alice = await login();
  const reader = await login();
  const trader = await login();
  await alice.fund('10000');
  await alice.fund('10', 1);
  const [order] = ok(await alice.place({ price: '80000', quantity: '0.01', clientId: 'alice-read-me' }));
  await delegate(alice, reader, 'read');
  await delegate(alice, trader, 'trade');
  const q = sub(alice);

  for (const route of ['stats', 'positions', 'fills', 'orders', 'balance', 'margin', 'transfer/history', 'delegates', 'signers', 'nonce']) {
    const r = await reader.get(`/account/${route}?${q}`);
    assert.equal(r.status, 200, `${route}: ${r.status} ${r.text}`);
  }
  assert.deepEqual(ok(await reader.get(`/account/orders?${q}`)).bids.map((o: any) => o.orderId), [order.orderId]);
  assert.equal(ok(await reader.get(`/account/order?orderId=${order.orderId}`)).orderId, order.orderId);
  assert.equal(ok(await reader.get(`/account/order?clientId=alice-read-me&account=${alice.address}`)).orderId, order.orderId);

  // reading is not trading: a delegate without `trade`, on every trading route alike
  assertError(await reader.send('DELETE', `/account/order?orderId=${order.orderId}`), 403, 'Delegation not allowed for request');
  assertError(await reader.send('DELETE', `/account/orders?${q}`), 403, 'Delegation not allowed for request');
  const failed = ok(await reader.send('POST', '/account/orders/cancel', { orderIds: [order.orderId] }));
  assert.deepEqual(failed, { cancelled: [], failed: [{ clientId: '', orderId: order.orderId, reason: 'Delegation not allowed for request' }] });
  assertError(await reader.send('POST', '/account/order', await alice.signedOrder({ price: '80000', quantity: '0.01' }, reader.wallet)), 403, 'Delegation not allowed for request');
  assert.equal(ok(await alice.get(`/account/order?orderId=${order.orderId}`)).status, 'new', 'still resting');

  // delegation is per subaccount
  assertError(await reader.get(`/account/stats?${sub(alice, 1)}`), 403, 'Delegation not allowed for request');
  assertError(await reader.get(`/account/balance?${sub(alice, 1)}`), 403, 'Not delegated for account and subaccount');

  // the trade delegate places and cancels in Alice's name, and sees what it trades (`trade` includes `read`)
  const [placed] = ok(await trader.send('POST', '/account/order', await alice.signedOrder({ price: '79000', quantity: '0.01' }, trader.wallet)));
  assert.equal(placed.account, alice.address);
  assert.ok(ok(await trader.get(`/account/orders?${q}`)).bids.some((o: any) => o.orderId === placed.orderId));
  assert.equal(ok(await trader.send('DELETE', `/account/order?orderId=${placed.orderId}`)).status, 'cancelled');
  assert.equal((await trader.get(`/account/stats?${q}`)).status, 200);
  assert.equal((await trader.get(`/account/balance?${q}`)).status, 200);
});

test('a revoked delegate is refused', async () => {
  const alice = await login();
  const reader = await login();
  await alice.fund('10000');
  const [order] = ok(await alice.place({ price: '80000', quantity: '0.01' }));
  await delegate(alice, reader, 'trade,read');
  assert.equal((await reader.get(`/account/stats?${sub(alice)}`)).status, 200);
  assert.deepEqual(ok(await alice.get(`/account/signers?${sub(alice)}`)).signers, [alice.address, reader.address]);

  await revoke(alice, reader);
  assert.deepEqual(ok(await alice.get(`/account/delegates?${sub(alice)}`)).delegates, []);
  assert.deepEqual(ok(await alice.get(`/account/signers?${sub(alice)}`)).signers, [alice.address]);
  assertError(await reader.get(`/account/stats?${sub(alice)}`), 403, 'Delegation not allowed for request');
  assertError(await reader.get(`/account/balance?${sub(alice)}`), 403, 'Not delegated for account and subaccount');
  assertError(await reader.get(`/account/orders?${sub(alice)}`), 403, 'Not delegated for account and subaccount');
  assertError(await reader.get(`/account/order?orderId=${order.orderId}`), 404, 'Order not found');
  assertError(await reader.send('DELETE', `/account/order?orderId=${order.orderId}`), 403, 'Not delegated for account and subaccount');
  // a former delegate no longer places orders for her: not delegated, not "invalid"
  assertError(await reader.send('POST', '/account/order', await alice.signedOrder({ price: '80000', quantity: '0.01' }, reader.wallet)), 403, 'Not delegated for account and subaccount');
});

test('every response carries the request budget: X-RateLimit-Limit and X-RateLimit-Remaining', async () => {
  const alice = await login();
  const account = await alice.get(`/account/nonce?${sub(alice)}`);
  assert.equal(account.headers.get('x-ratelimit-limit'), '200');
  assert.match(account.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
  const open = await ex.request('GET', '/time');
  assert.equal(open.headers.get('x-ratelimit-limit'), '200');
  assert.match(open.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
  assertMillisNow(open.json().serverTime, 'serverTime');
});

test('over the budget of 200 requests a second per account: 429 with Retry-After; other accounts unaffected', async () => {
  const [greedy, calm] = await Promise.all([login(), login()]);
  const replies = await Promise.all(Array.from({ length: 400 }, () => greedy.get(`/account/nonce?${sub(greedy)}`)));
  const refused = replies.filter((r) => r.status === 429);
  assert.ok(refused.length > 0, 'some requests are over budget');
  assert.ok(replies.filter((r) => r.status === 200).length >= 200, 'the burst of one second of budget passes');
  assertError(refused[0], 429, 'Too many requests: at most 200 per second per account, retry after the cool-down');
  assert.match(refused[0].headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  assert.equal(refused[0].headers.get('x-ratelimit-remaining'), '0');
  assert.equal((await calm.get(`/account/nonce?${sub(calm)}`)).status, 200);
});
