/**
 * Dust accounts (issue 13, item 5): a transfer moves at least the minimum (1 USD by default) and
 * an address holds a bounded number of subaccounts, so one small account can no longer create
 * accounts by the hundred with 0.000001 USD transfers. Through HTTP, transfers signed with viem.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { assertError, ok, signedTransfer, sub } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const newTrader = async (funds: string) => (await fundedTraders(ex, [funds]))[0];
const BELOW_MINIMUM = 'Transfer amount below the minimum of 1 USD';
const TOO_MANY = 'Too many subaccounts: an account holds at most 32';

test('GET /config publishes the minimum transfer and the subaccounts an account may hold', async () => {
  const { limits } = ok(await ex.request('GET', '/config'));
  assert.equal(limits.minTransfer, '1');
  assert.equal(limits.subaccountsPerAccount, 32);
});

test('0.000001 USD transfers to fresh addresses and subaccounts are refused and create no account; 1 USD goes through', async () => {
  const alice = await newTrader('1');
  for (let i = 0; i < 20; i++) {
    const stranger = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
    assertError(await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: stranger, amount: '0.000001' })), 400, BELOW_MINIMUM);
    assertError(await alice.send('GET', `/account/balance?account=${stranger}&subaccountIndex=0`), 403, 'Not delegated for account and subaccount');
  }
  for (const amount of ['0.999999', '0.5']) {
    assertError(await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: alice.address, subaccountIndexTo: 7, amount })), 400, BELOW_MINIMUM);
  }
  assertError(await alice.get(`/account/balance?${sub(alice, 7)}`), 404, 'Account not found');
  assert.equal(ok(await alice.get(`/account/balance?${sub(alice)}`)).collateral, '1', 'nothing left her account');
  ok(await alice.send('POST', '/account/transfer', await signedTransfer(alice, { accountTo: alice.address, subaccountIndexTo: 7, amount: '1' })));
  assert.equal(ok(await alice.get(`/account/balance?${sub(alice, 7)}`)).collateral, '1');
});

test('an address holds at most 32 subaccounts: the 33rd is refused, whether a transfer or the faucet would create it; existing ones still receive', async () => {
  const bob = await newTrader('100');
  const bobs = async (amount: string, subaccountIndexTo: number) => bob.send('POST', '/account/transfer', await signedTransfer(bob, { accountTo: bob.address, subaccountIndexTo, amount }));
  // subaccount 0 holds the deposit; 1 … 31 make 32
  for (let index = 1; index < 32; index++) assert.equal((await bobs('1', index * 1000)).status, 200, `subaccount ${index * 1000}`);
  assertError(await bobs('1', 99_999), 400, TOO_MANY);
  assertError(await bob.get(`/account/balance?${sub(bob, 99_999)}`), 404, 'Account not found');
  assertError(await bob.send('POST', '/faucet', { account: bob.address, subaccountIndex: 99_998 }), 400, TOO_MANY);
  ok(await bobs('1', 5000));
  assert.equal(ok(await bob.get(`/account/balance?${sub(bob, 5000)}`)).collateral, '2');
  assert.equal((await bob.send('POST', '/faucet', { account: bob.address, subaccountIndex: 5000 })).status, 200, 'an existing subaccount still takes the faucet');

  // other users cannot push Bob's address past its bound either
  const carol = await newTrader('10');
  assertError(await carol.send('POST', '/account/transfer', await signedTransfer(carol, { accountTo: bob.address, subaccountIndexTo: 77_777, amount: '1' })), 400, TOO_MANY);
  ok(await carol.send('POST', '/account/transfer', await signedTransfer(carol, { accountTo: bob.address, subaccountIndexTo: 0, amount: '1' })));
});
