/** POST/GET /account/delegates, GET /account/signers and GET /account/nonce over HTTP with signed `Delegation` changes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE_VIEM as ALICE_WALLET, ALICE, BOB_VIEM as BOB_WALLET, BOB } from '../auth/fixtures.ts';
import type { DelegationMessage } from '../../src/auth/typed-data.ts';
import { startAccountServer, sign, NOW, IN_ONE_HOUR, USD } from './account-server.ts';


const server = await startAccountServer();
server.ledger.deposit(ALICE, 0, 1000n * USD, NOW);
const aliceToken = await server.login(ALICE_WALLET);
const bobToken = await server.login(BOB_WALLET);

let nonce = 0;
function change(fields: Partial<DelegationMessage> = {}): DelegationMessage {
  return { account: ALICE, subaccountIndex: 0, delegate: BOB, scopes: 'read', action: 'add', nonce: ++nonce, expiresAt: IN_ONE_HOUR, ...fields };
}
async function signed(message: DelegationMessage, wallet = ALICE_WALLET) {
  return { ...message, signatures: [await sign(wallet, 'Delegation', message)] };
}
const q = `account=${ALICE}&subaccountIndex=0`;

test('Alice grants Bob read: he can read her stats, appears in delegates but not in signers', async () => {
  assert.equal((await server.get(`/account/stats?${q}`, bobToken)).status, 403);
  const res = await server.post('/account/delegates', await signed(change()), aliceToken);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.text, 'null');
  assert.equal((await server.get(`/account/stats?${q}`, bobToken)).status, 200);
  assert.deepEqual((await server.get(`/account/delegates?${q}`, aliceToken)).json(), { account: ALICE, subaccountIndex: 0, delegates: [{ subaccountIndex: 0, delegate: BOB, scopes: ['read'] }] });
  assert.deepEqual((await server.get(`/account/signers?${q}`, bobToken)).json(), { account: ALICE, subaccountIndex: 0, signers: [ALICE] });
});

test('trade,read puts Bob among the signers; remove revokes his reads', async () => {
  assert.equal((await server.post('/account/delegates', await signed(change({ scopes: 'trade,read' })), aliceToken)).status, 200);
  assert.deepEqual((await server.get(`/account/signers?${q}`, aliceToken)).json().signers, [ALICE, BOB]);
  assert.equal((await server.post('/account/delegates', await signed(change({ action: 'remove', scopes: '' })), aliceToken)).status, 200);
  assert.deepEqual((await server.get(`/account/delegates?${q}`, aliceToken)).json().delegates, []);
  const revoked = await server.get(`/account/stats?${q}`, bobToken);
  assert.equal(revoked.status, 403);
  assert.equal(revoked.text, 'Not delegated for account and subaccount');
});

test('only the account changes its delegates: a delegate token or signature is 403 Delegation not allowed for request', async () => {
  assert.equal((await server.post('/account/delegates', await signed(change({ scopes: 'trade' })), aliceToken)).status, 200);
  const byToken = await server.post('/account/delegates', await signed(change({ delegate: '0x' + '1'.repeat(40) }), BOB_WALLET), bobToken);
  assert.equal(byToken.status, 403);
  assert.equal(byToken.text, 'Delegation not allowed for request');
  const bySignature = await server.post('/account/delegates', await signed(change({ delegate: '0x' + '1'.repeat(40) }), BOB_WALLET), aliceToken);
  assert.equal(bySignature.status, 403);
  assert.equal(bySignature.text, 'Delegation not allowed for request');
});

test('bad changes are refused with the auth texts', async () => {
  const scopes = await server.post('/account/delegates', await signed(change({ scopes: 'admin' })), aliceToken);
  assert.equal(scopes.status, 400);
  assert.equal(scopes.text, 'Invalid delegation scopes: use trade, read or trade,read');
  const self = await server.post('/account/delegates', await signed(change({ delegate: ALICE })), aliceToken);
  assert.equal(self.status, 400);
  assert.equal(self.text, 'An account cannot delegate to itself');
  const unknown = await server.post('/account/delegates', await signed(change({ action: 'remove', scopes: '', delegate: '0x' + '2'.repeat(40) })), aliceToken);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.text, 'Delegate not found');
  const action = await server.post('/account/delegates', { ...change(), action: 'grant', signatures: ['0x'] }, aliceToken);
  assert.equal(action.status, 400);
  assert.equal(action.text, 'action must be add or remove');
});

test('GET /account/nonce gives the next nonce per signer, 0 before any', async () => {
  const own = await server.get(`/account/nonce?${q}`, aliceToken);
  assert.equal(own.status, 200, own.text);
  // Four changes were accepted (nonces 1–4); refused ones consumed nothing.
  assert.deepEqual(own.json(), { account: ALICE, subaccountIndex: 0, signer: ALICE, nonce: 5 });
  assert.deepEqual((await server.get(`/account/nonce?${q}&signer=${BOB_WALLET.address}`, aliceToken)).json(), { account: ALICE, subaccountIndex: 0, signer: BOB, nonce: 0 });
  assert.deepEqual((await server.get(`/account/nonce?account=${ALICE}&subaccountIndex=4`, aliceToken)).json().nonce, 0);
  const bad = await server.get(`/account/nonce?${q}&signer=bob`, aliceToken);
  assert.equal(bad.status, 400);
  assert.equal(bad.text, 'signer must be a 0x-prefixed 20-byte hex address');
});
