/**
 * Login across a restart: a challenge needs no server memory, so one issued before a restart
 * logs in after it, once. The rest of login and authorization: test/behaviour/api-auth.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { assertError, ok } from '../harness/api-helpers.ts';

test('a challenge needs no server memory: one issued before a restart logs in after it, once', async () => {
  const first = await startInProcessExchange();
  const wallet = privateKeyToAccount(generatePrivateKey());
  const challenge = ok(await first.request('POST', '/auth/challenge', { address: wallet.address }));
  const second = await first.restart();
  const signature = await wallet.signMessage({ message: challenge.message });
  const session = ok(await second.request('POST', '/auth/login', { message: challenge.message, signature }));
  assert.equal(session.address, wallet.address.toLowerCase());
  assertError(await second.request('POST', '/auth/login', { message: challenge.message, signature }), 401, 'Login challenge not found or already used');
});
