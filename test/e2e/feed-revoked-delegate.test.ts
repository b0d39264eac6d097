/**
 * A delegate's private subscription ends with its grant: once the account revokes it, the next
 * event of the account is not sent to the delegate's connection, which gets the error REST gives
 * a revoked delegate (`Not delegated for account and subaccount`, naming the channel) and is
 * left; the account's own subscription goes on. It went on streaming every order, fill and
 * balance of the account to the revoked delegate for as long as its connection stayed open.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange, fundedTraders, Trader } from './harness.ts';
import { delegate, revoke, sub } from '../harness/api-helpers.ts';
import { follow } from './feed-client.ts';

test('a revoked delegate stops receiving the account channel it subscribed to', { timeout: 30_000 }, async () => {
  const ex = await startTestExchange();
  const [owner] = await fundedTraders(ex, 1, '100000');
  const reader = await new Trader(ex).login();
  await delegate(owner, reader, 'read');
  const channel = `account.${owner.address}.0`;
  const theirs = await follow(ex.url, reader.token, channel);
  const own = await follow(ex.url, owner.token, channel);

  assert.equal((await owner.place({ price: '90000', quantity: '0.001' })).status, 200);
  await theirs.next((m) => m.channel === channel && m.type === 'order', 'the order while delegated');

  await revoke(owner, reader);
  assert.equal((await reader.get(`/account/balance?${sub(owner)}`)).status, 403, 'REST refuses the revoked delegate');
  const from = theirs.messages.length;
  const ownFrom = own.messages.length;
  const placed = (await owner.place({ price: '90010', quantity: '0.001' })).json()[0];
  await own.next((m) => m.type === 'order' && m.order.orderId === placed.orderId, 'the owner still sees its order', ownFrom);

  const refusal = await theirs.next((m) => m.type === 'error', 'the end of the subscription', from);
  assert.deepEqual({ channel: refusal.channel, message: refusal.message }, { channel, message: 'Not delegated for account and subaccount' });
  assert.deepEqual(
    theirs.messages.slice(from).filter((m) => m.channel === channel && m.type !== 'error'),
    [],
    'nothing of the account after the revocation',
  );
  await Promise.all([theirs.close(), own.close()]);
});
