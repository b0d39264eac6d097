/**
 * POST/GET /account/delegates, GET /account/signers and GET /account/nonce on the in-process
 * exchange (test/harness/in-process-exchange) with signed `Delegation` changes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE_KEY, ALICE, BOB_KEY, BOB, BOB_VIEM as BOB_WALLET } from '../auth/fixtures.ts';
import type { DelegationMessage } from '../../src/auth/typed-data.ts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader } from '../harness/traders.ts';
import { signTyped } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const IN_ONE_HOUR = ex.now() + 3_600_000;
const [alice, bob] = [new Trader(ex, ALICE_KEY), new Trader(ex, BOB_KEY)];
for (const trader of [alice, bob]) await trader.login();
await alice.fund('1000');

let nonce = 0;
function change(fields: Partial<DelegationMessage> = {}): DelegationMessage {
  return { account: ALICE, subaccountIndex: 0, delegate: BOB, scopes: 'read', action: 'add', nonce: ++nonce, expiresAt: IN_ONE_HOUR, ...fields };
}
async function signed(message: DelegationMessage, wallet = alice.wallet) {
  return { ...message, signatures: [await signTyped(ex, wallet, 'Delegation', { ...message })] };
}
const q = `account=${ALICE}&subaccountIndex=0`;

test('Alice grants Bob read: he can read her stats, appears in delegates but not in signers', async () => {
  assert.equal((await bob.get(`/account/stats?${q}`)).status, 403);
  const res = await alice.send('POST', '/account/delegates', await signed(change()));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.text, 'null');
  assert.equal((await bob.get(`/account/stats?${q}`)).status, 200);
  assert.deepEqual((await alice.get(`/account/delegates?${q}`)).json(), { account: ALICE, subaccountIndex: 0, delegates: [{ subaccountIndex: 0, delegate: BOB, scopes: ['read'] }] });
  assert.deepEqual((await bob.get(`/account/signers?${q}`)).json(), { account: ALICE, subaccountIndex: 0, signers: [ALICE] });
});

test('trade,read puts Bob among the signers; remove revokes his reads', async () => {
  assert.equal((await alice.send('POST', '/account/delegates', await signed(change({ scopes: 'trade,read' })))).status, 200);
  assert.deepEqual((await alice.get(`/account/signers?${q}`)).json().signers, [ALICE, BOB]);
  assert.equal((await alice.send('POST', '/account/delegates', await signed(change({ action: 'remove', scopes: '' })))).status, 200);
  assert.deepEqual((await alice.get(`/account/delegates?${q}`)).json().delegates, []);
  const revoked = await bob.get(`/account/balance?${q}`);
  assert.equal(revoked.status, 403);
  assert.equal(revoked.text, 'Not delegated for account and subaccount');
});

test('only the account changes its delegates: a delegate token or signature is 403 Delegation not allowed for request', async () => {
  assert.equal((await alice.send('POST', '/account/delegates', await signed(change({ scopes: 'trade' })))).status, 200);
  const byToken = await bob.send('POST', '/account/delegates', await signed(change({ delegate: '0x' + '1'.repeat(40) }), BOB_WALLET));
  assert.equal(byToken.status, 403);
  assert.equal(byToken.text, 'Delegation not allowed for request');
  const bySignature = await alice.send('POST', '/account/delegates', await signed(change({ delegate: '0x' + '1'.repeat(40) }), BOB_WALLET));
  assert.equal(bySignature.status, 403);
  assert.equal(bySignature.text, 'Delegation not allowed for request');
});

test('bad changes are refused with the auth texts', async () => {
  const scopes = await alice.send('POST', '/account/delegates', await signed(change({ scopes: 'admin' })));
  assert.equal(scopes.status, 400);
  assert.equal(scopes.text, 'Invalid delegation scopes: use trade, read or trade,read');
  const self = await alice.send('POST', '/account/delegates', await signed(change({ delegate: ALICE })));
  assert.equal(self.status, 400);
  assert.equal(self.text, 'An account cannot delegate to itself');
  const unknown = await alice.send('POST', '/account/delegates', await signed(change({ action: 'remove', scopes: '', delegate: '0x' + '2'.repeat(40) })));
  assert.equal(unknown.status, 404);
  assert.equal(unknown.text, 'Delegate not found');
  const action = await alice.send('POST', '/account/delegates', { ...change(), action: 'grant', signatures: ['0x'] });
  assert.equal(action.status, 400);
  assert.equal(action.text, 'action must be add or remove');
});

test('GET /account/nonce gives the next nonce per signer, 0 before any', async () => {
  const own = await alice.get(`/account/nonce?${q}`);
  assert.equal(own.status, 200, own.text);
  // Four changes were accepted (nonces 1–4); refused ones consumed nothing.
  assert.deepEqual(own.json(), { account: ALICE, subaccountIndex: 0, signer: ALICE, nonce: 5 });
  assert.deepEqual((await alice.get(`/account/nonce?${q}&signer=${BOB_WALLET.address}`)).json(), { account: ALICE, subaccountIndex: 0, signer: BOB, nonce: 0 });
  assert.deepEqual((await alice.get(`/account/nonce?account=${ALICE}&subaccountIndex=4`)).json().nonce, 0);
  const bad = await alice.get(`/account/nonce?${q}&signer=bob`);
  assert.equal(bad.status, 400);
  assert.equal(bad.text, 'signer must be a 0x-prefixed 20-byte hex address');
});

test('a remove that names scopes is refused, not taken for a revocation of every scope', async () => {
  assert.equal((await alice.send('POST', '/account/delegates', await signed(change({ scopes: 'trade,read' })))).status, 200);
  // A trader dropping Bob's trade scope and keeping his reads: the remove would have revoked both.
  const partial = await alice.send('POST', '/account/delegates', await signed(change({ action: 'remove', scopes: 'trade' })));
  assert.equal(partial.status, 400);
  assert.equal(partial.text, 'scopes must be "" for remove: a remove revokes every scope of the delegate (to keep some, add them instead)');
  assert.deepEqual((await alice.get(`/account/delegates?${q}`)).json().delegates, [{ subaccountIndex: 0, delegate: BOB, scopes: ['trade', 'read'] }]);
  assert.equal((await bob.get(`/account/stats?${q}`)).status, 200);
});
