/**
 * DELETE /account/orders on the in-process exchange: the reply lists every order the cancel
 * ended, as its command left them (the sequencer's `Outcome.orders`), and nothing else.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { assertOrderShape, BTC, ETH, ok, sub } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();

const ALICE_BUY_0_4_BTC_AT_80000 = { price: '80000', quantity: '0.4', clientId: 'alice-btc-80000' };
const ALICE_BUY_0_2_BTC_AT_79000 = { price: '79000', quantity: '0.2' };
const ALICE_BUY_1_ETH_AT_3000 = { symbol: ETH, price: '3000', quantity: '1' };
const BOB_SELL_0_1_BTC_AT_80000 = { price: '80000', quantity: '-0.1' };

const byId = (orders: any[]) => [...orders].sort((a, b) => (a.orderId < b.orderId ? -1 : 1));

test('DELETE /account/orders: every open order of the subaccount is listed cancelled, a partly filled one with what it filled', async () => {
  const [alice, bob] = await fundedTraders(ex, ['1000000', '1000000']);
  const [partly] = ok(await alice.place(ALICE_BUY_0_4_BTC_AT_80000));
  const [resting] = ok(await alice.place(ALICE_BUY_0_2_BTC_AT_79000));
  const [eth] = ok(await alice.place(ALICE_BUY_1_ETH_AT_3000));
  ok(await bob.place(BOB_SELL_0_1_BTC_AT_80000));

  const reply = ok(await alice.send('DELETE', `/account/orders?${sub(alice)}`));
  assert.deepEqual(reply.failed, []);
  const cancelled = byId(reply.cancelled);
  assert.deepEqual(cancelled.map((o: any) => o.orderId), byId([partly, resting, eth]).map((o: any) => o.orderId));
  for (const order of cancelled) {
    assertOrderShape(order);
    assert.equal(order.status, 'cancelled');
  }
  const btc = cancelled.find((o: any) => o.orderId === partly.orderId);
  assert.equal(btc.settled, '0.1', 'the fill before the cancel is reported');
  assert.equal(btc.remaining, '0.3');
  // What the reply said is what the exchange holds.
  for (const order of cancelled) assert.deepEqual(ok(await alice.get(`/account/order?orderId=${order.orderId}`)), order);
  assert.deepEqual(ok(await ex.request('GET', `/book/${BTC}?depth=5`)).bids.filter((l: any) => ['80000', '79000'].includes(l.price)), []);
});

test('DELETE /account/orders?symbol=: only that market\'s orders are cancelled and listed', async () => {
  const [alice] = await fundedTraders(ex, ['1000000']);
  const [btc] = ok(await alice.place({ ...ALICE_BUY_0_2_BTC_AT_79000, price: '78000' }));
  const [eth] = ok(await alice.place({ ...ALICE_BUY_1_ETH_AT_3000, price: '2900' }));
  const reply = ok(await alice.send('DELETE', `/account/orders?${sub(alice)}&symbol=${ETH}`));
  assert.deepEqual(reply.cancelled.map((o: any) => [o.orderId, o.status]), [[eth.orderId, 'cancelled']]);
  assert.equal(ok(await alice.get(`/account/order?orderId=${btc.orderId}`)).status, 'new', 'the BTC order still rests');
  ok(await alice.send('DELETE', `/account/orders?${sub(alice)}`));
});

test('DELETE /account/orders with nothing open answers an empty list', async () => {
  const [alice] = await fundedTraders(ex, ['1000000']);
  assert.deepEqual(ok(await alice.send('DELETE', `/account/orders?${sub(alice)}`)), { cancelled: [], failed: [] });
});

test('DELETE /account/orders after the orders filled: nothing left to cancel, nothing listed', async () => {
  const [alice, bob] = await fundedTraders(ex, ['1000000', '1000000']);
  ok(await alice.place({ price: '77000', quantity: '0.1' }));
  ok(await bob.place({ price: '77000', quantity: '-0.1' }));
  assert.deepEqual(ok(await alice.send('DELETE', `/account/orders?${sub(alice)}`)), { cancelled: [], failed: [] });
});
