/**
 * Attack suite, end to end through what the gateway calls: viem signs, `recoverRequestSigner`
 * recovers, `admitSignedWrite` / `admitDelegationChange` authorise and consume the nonce.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admitDelegationChange, admitSignedWrite, type AuthState } from '../../src/auth/admission.ts';
import type { AuthResult } from '../../src/auth/codes.ts';
import { DelegationStore } from '../../src/auth/delegation.ts';
import { NonceStore } from '../../src/auth/nonces.ts';
import { CURVE_N } from '../../src/auth/signature.ts';
import { recoverRequestSigner } from '../../src/auth/signed-request.ts';
import { workerRecovery } from '../harness/worker-recovery.ts';
import { eip712Domain, type DelegationMessage, type OrderMessage, type TransferMessage } from '../../src/auth/typed-data.ts';
import {
  ALICE, ALICE_BUY_5_AT_10_LIMIT, ALICE_DELEGATES_TRADE_READ_TO_BOB, ALICE_TRANSFER_100_TO_BOB, ALICE_VIEM, BOB, BOB_VIEM,
  IN_ONE_HOUR, MAINNET, NOW, refusalReply, signWithViem, TESTNET_DOMAIN,
} from './fixtures.ts';

const recover = workerRecovery('noble');

function freshState(): AuthState {
  return { nonces: new NonceStore(), delegations: new DelegationStore() };
}

/** What the gateway does for POST /account/order. */
async function submitOrder(state: AuthState, order: OrderMessage, signature: string, now = NOW): Promise<AuthResult<void>> {
  const signer = await recoverRequestSigner(recover, TESTNET_DOMAIN, 'Order', order, [signature]);
  if (!signer.ok) return signer;
  return admitSignedWrite(state, { action: 'order', account: ALICE, subaccountIndex: order.subaccountIndex, signer: signer.value, nonce: Number(order.nonce), expiresAt: Number(order.expiresAt) }, now);
}

async function submitTransfer(state: AuthState, transfer: TransferMessage, signature: string): Promise<AuthResult<void>> {
  const signer = await recoverRequestSigner(recover, TESTNET_DOMAIN, 'Transfer', transfer, [signature]);
  if (!signer.ok) return signer;
  return admitSignedWrite(state, { action: 'transfer', accountFrom: ALICE, subaccountIndexFrom: 0, subaccountIndexTo: 0, target: ALICE, signer: signer.value, nonce: Number(transfer.nonce), expiresAt: Number(transfer.expiresAt) }, NOW);
}

async function submitDelegation(state: AuthState, change: DelegationMessage, signature: string): Promise<AuthResult<void>> {
  const signer = await recoverRequestSigner(recover, TESTNET_DOMAIN, 'Delegation', change, [signature]);
  if (!signer.ok) return signer;
  return admitDelegationChange(state, { ...change, nonce: Number(change.nonce), expiresAt: Number(change.expiresAt) }, signer.value, NOW);
}

function said(result: AuthResult<void>) {
  return result.ok ? 'accepted' : refusalReply(result);
}

const ACCEPTED = 'accepted';
const INVALID_SIGNATURE = { status: 400, text: 'Invalid signature' };
const NONCE_USED = { status: 409, text: 'Nonce already used' };

test('a replayed order (same signature, same nonce) is 409 Nonce already used', async () => {
  const state = freshState();
  const signature = await signWithViem(ALICE_VIEM, 'Order', ALICE_BUY_5_AT_10_LIMIT);
  assert.equal(said(await submitOrder(state, ALICE_BUY_5_AT_10_LIMIT, signature)), ACCEPTED);
  assert.deepEqual(said(await submitOrder(state, ALICE_BUY_5_AT_10_LIMIT, signature)), NONCE_USED);
});

test('an order with a nonce below a full window is refused', async () => {
  const state = freshState();
  for (let nonce = 1000; nonce < 1100; nonce++) {
    state.nonces.use({ account: ALICE, subaccountIndex: 0, signer: ALICE, nonce, expiresAt: IN_ONE_HOUR }, NOW);
  }
  const old = { ...ALICE_BUY_5_AT_10_LIMIT, nonce: 999 };
  assert.deepEqual(said(await submitOrder(state, old, await signWithViem(ALICE_VIEM, 'Order', old))), { status: 409, text: 'Nonce too low: must be greater than 1000' });
});

test('an expired order is refused', async () => {
  const state = freshState();
  const expired = { ...ALICE_BUY_5_AT_10_LIMIT, expiresAt: NOW - 1 };
  assert.deepEqual(said(await submitOrder(state, expired, await signWithViem(ALICE_VIEM, 'Order', expired))), { status: 400, text: 'Request expired' });
});

test('an order signature submitted as a transfer is Invalid signature', async () => {
  const state = freshState();
  const orderSignature = await signWithViem(ALICE_VIEM, 'Order', ALICE_BUY_5_AT_10_LIMIT);
  assert.deepEqual(said(await submitTransfer(state, ALICE_TRANSFER_100_TO_BOB, orderSignature)), INVALID_SIGNATURE);
  assert.equal(said(await submitTransfer(state, ALICE_TRANSFER_100_TO_BOB, await signWithViem(ALICE_VIEM, 'Transfer', ALICE_TRANSFER_100_TO_BOB))), ACCEPTED);
});

test('a signature for another chainId, verifyingContract or version is Invalid signature on testnet', async () => {
  const domains = [eip712Domain(MAINNET), { ...TESTNET_DOMAIN, chainId: 1 }, { ...TESTNET_DOMAIN, verifyingContract: MAINNET.verifyingContract }, { ...TESTNET_DOMAIN, version: '2' }];
  for (const domain of domains) {
    const state = freshState();
    const signature = await signWithViem(ALICE_VIEM, 'Order', ALICE_BUY_5_AT_10_LIMIT, domain);
    assert.deepEqual(said(await submitOrder(state, ALICE_BUY_5_AT_10_LIMIT, signature)), INVALID_SIGNATURE, JSON.stringify(domain));
  }
});

test('the high-s twin of a valid signature is Invalid signature, before or after the original', async () => {
  const signature = await signWithViem(ALICE_VIEM, 'Order', ALICE_BUY_5_AT_10_LIMIT);
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = parseInt(signature.slice(130), 16);
  const twin = `${signature.slice(0, 66)}${(CURVE_N - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
  const state = freshState();
  assert.deepEqual(said(await submitOrder(state, ALICE_BUY_5_AT_10_LIMIT, twin)), INVALID_SIGNATURE);
  assert.equal(said(await submitOrder(state, ALICE_BUY_5_AT_10_LIMIT, signature)), ACCEPTED);
  assert.deepEqual(said(await submitOrder(state, ALICE_BUY_5_AT_10_LIMIT, twin)), INVALID_SIGNATURE);
});

test('v as 0/1 and as 27/28 are one signature: the second form is a replay (409)', async () => {
  const signature = await signWithViem(ALICE_VIEM, 'Order', ALICE_BUY_5_AT_10_LIMIT);
  const v = parseInt(signature.slice(130), 16);
  const zeroOne = `${signature.slice(0, 130)}0${v - 27}`;
  const state = freshState();
  assert.equal(said(await submitOrder(state, ALICE_BUY_5_AT_10_LIMIT, zeroOne)), ACCEPTED);
  assert.deepEqual(said(await submitOrder(state, ALICE_BUY_5_AT_10_LIMIT, signature)), NONCE_USED);
});

test("a revoked delegate's old signature cannot be replayed, and its nonces survive revocation", async () => {
  const state = freshState();
  assert.equal(said(await submitDelegation(state, ALICE_DELEGATES_TRADE_READ_TO_BOB, await signWithViem(ALICE_VIEM, 'Delegation', ALICE_DELEGATES_TRADE_READ_TO_BOB))), ACCEPTED);
  const bobsOrder = { ...ALICE_BUY_5_AT_10_LIMIT, nonce: 7 };
  const bobsSignature = await signWithViem(BOB_VIEM, 'Order', bobsOrder);
  assert.equal(said(await submitOrder(state, bobsOrder, bobsSignature)), ACCEPTED, 'Bob trades for Alice');
  const revoke: DelegationMessage = { ...ALICE_DELEGATES_TRADE_READ_TO_BOB, action: 'remove', scopes: '', nonce: 2 };
  assert.equal(said(await submitDelegation(state, revoke, await signWithViem(ALICE_VIEM, 'Delegation', revoke))), ACCEPTED);
  assert.deepEqual(said(await submitOrder(state, bobsOrder, bobsSignature)), INVALID_SIGNATURE, 'Bob is no longer related to Alice');
  assert.deepEqual(state.nonces.window({ account: ALICE, subaccountIndex: 0, signer: BOB }), [7]);
  // Re-granting does not revive the used nonce.
  const regrant = { ...ALICE_DELEGATES_TRADE_READ_TO_BOB, nonce: 3 };
  assert.equal(said(await submitDelegation(state, regrant, await signWithViem(ALICE_VIEM, 'Delegation', regrant))), ACCEPTED);
  assert.deepEqual(said(await submitOrder(state, bobsOrder, bobsSignature)), NONCE_USED);
});

test('a delegate cannot transfer out, nor add delegates; a replayed delegation change is 409', async () => {
  const state = freshState();
  const grantSignature = await signWithViem(ALICE_VIEM, 'Delegation', ALICE_DELEGATES_TRADE_READ_TO_BOB);
  assert.equal(said(await submitDelegation(state, ALICE_DELEGATES_TRADE_READ_TO_BOB, grantSignature)), ACCEPTED);
  assert.deepEqual(said(await submitDelegation(state, ALICE_DELEGATES_TRADE_READ_TO_BOB, grantSignature)), NONCE_USED);
  const bobsTransfer = { ...ALICE_TRANSFER_100_TO_BOB, nonce: 5 };
  assert.deepEqual(said(await submitTransfer(state, bobsTransfer, await signWithViem(BOB_VIEM, 'Transfer', bobsTransfer))), { status: 403, text: 'Delegation not allowed for request' });
  const bobAddsHimself = { ...ALICE_DELEGATES_TRADE_READ_TO_BOB, delegate: BOB, nonce: 6 };
  assert.deepEqual(said(await submitDelegation(state, bobAddsHimself, await signWithViem(BOB_VIEM, 'Delegation', bobAddsHimself))), { status: 403, text: 'Delegation not allowed for request' });
  assert.equal(state.delegations.signers(ALICE, 0).length, 2);
});
