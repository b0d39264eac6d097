/**
 * Relayed requests (issue 13, item 6; issue 14, item 1): the request budget belongs to the
 * account a request acts for, whoever's token carries it. Other wallets' tokens cannot carry an
 * account's signed orders at all (403 `Not delegated for account and subaccount`), and what a
 * delegate carries is charged to the account it acts for, so the account and its delegates
 * together get 200 requests a second, not 200 each. In process: every request of a test comes at
 * the same instant of the exchange's clock, so a burst of 400 is over the budget however slowly
 * this machine sends it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader } from '../harness/traders.ts';
import { assertError, delegate, ok, revoke, sub } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const newTrader = async (funds?: string) => {
  const t = await new Trader(ex).login();
  if (funds !== undefined) await t.fund(funds);
  return t;
};

test("six other wallets' tokens carrying Alice's signed orders are refused: they are not her delegates", async () => {
  const alice = await newTrader('100000');
  const relays = await Promise.all(Array.from({ length: 6 }, () => newTrader()));
  for (const relay of relays) {
    const body = await alice.signedOrder({ price: '41000', quantity: '0.001' });
    assertError(await relay.send('POST', '/account/order', body), 403, 'Not delegated for account and subaccount');
    assertError(await relay.send('POST', '/account/orders', { orders: [await alice.signedOrder({ price: '41000', quantity: '0.001' })] }), 403, 'Not delegated for account and subaccount');
  }
  assert.equal(ok(await alice.get(`/account/orders?${sub(alice)}`)).total, 0, 'none of them was placed');
  // the same orders with her own token are placed
  ok(await alice.send('POST', '/account/order', await alice.signedOrder({ price: '41000', quantity: '0.001' })));
});

test('a wallet that signs with its own key for an account that never delegated to it: 403 Not delegated, not Invalid signature; a revoked delegate likewise', async () => {
  const alice = await newTrader('100000');
  const mallory = await newTrader();
  assertError(await mallory.send('POST', '/account/order', await alice.signedOrder({ price: '41000', quantity: '0.001' }, mallory.wallet)), 403, 'Not delegated for account and subaccount');
  const bot = await newTrader();
  await delegate(alice, bot, 'trade');
  ok(await bot.send('POST', '/account/order', await alice.signedOrder({ price: '41000', quantity: '0.001' }, bot.wallet)));
  await revoke(alice, bot);
  assertError(await bot.send('POST', '/account/order', await alice.signedOrder({ price: '41000', quantity: '0.001' }, bot.wallet)), 403, 'Not delegated for account and subaccount');
  // a read-only delegate carrying her own signed order: a delegate without `trade`
  await delegate(alice, bot, 'read');
  assertError(await bot.send('POST', '/account/order', await alice.signedOrder({ price: '41000', quantity: '0.001' })), 403, 'Delegation not allowed for request');
});

/**
 * Alice spends her whole budget: bursts of 400 reads until her next single request is refused,
 * which holds her budget for the cool-down (a second) from now.
 */
async function exhaust(alice: Trader): Promise<void> {
  for (let round = 0; round < 5; round++) {
    await Promise.all(Array.from({ length: 400 }, () => alice.get(`/account/nonce?${sub(alice)}`)));
    if ((await alice.get(`/account/nonce?${sub(alice)}`)).status === 429) return;
  }
  assert.fail('Alice never went over her budget');
}

const OVER_BUDGET = 'Too many requests: at most 200 per second per account, retry after the cool-down';

test("a trade delegate's orders spend the account's budget: once Alice is over it, her bot's order for her is 429, its own orders are not", async () => {
  const alice = await newTrader('100000');
  const bot = await newTrader('100000');
  await delegate(alice, bot, 'trade');
  const forAlice = await alice.signedOrder({ price: '40000', quantity: '0.001' }, bot.wallet);
  const forAliceBatch = { orders: [await alice.signedOrder({ price: '40000', quantity: '0.001' }, bot.wallet)] };
  const forItself = await bot.signedOrder({ price: '40000', quantity: '0.001' });
  await exhaust(alice);
  const relayed = await bot.send('POST', '/account/order', forAlice);
  assertError(relayed, 429, OVER_BUDGET);
  assert.match(relayed.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  assertError(await bot.send('POST', '/account/orders', forAliceBatch), 429, OVER_BUDGET);
  ok(await bot.send('POST', '/account/order', forItself));
  assert.equal(ok(await bot.get(`/account/orders?${sub(bot)}`)).total, 1);
});

test("a delegate's reads and cancels spend the account's budget too", async () => {
  const alice = await newTrader('100000');
  const helper = await newTrader();
  await delegate(alice, helper, 'trade,read');
  const [order] = ok(await alice.place({ price: '40000', quantity: '0.001' }));
  await exhaust(alice);
  assertError(await helper.get(`/account/balance?${sub(alice)}`), 429, OVER_BUDGET);
  assertError(await helper.send('DELETE', `/account/order?orderId=${order.orderId}`), 429, OVER_BUDGET);
  const batch = ok(await helper.send('POST', '/account/orders/cancel', { orderIds: [order.orderId] }));
  assert.deepEqual(batch.failed.map((f: { reason: string }) => f.reason), [OVER_BUDGET]);
  assert.equal((await helper.get(`/account/balance?${sub(helper)}`)).status, 404, "the helper's own reads are its own budget's (an account never funded)");
});
