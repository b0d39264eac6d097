/**
 * GET /account/order?clientId&account after a lost reply (docs/api.md "Pipelining"): a client
 * that does not know whether its order was placed asks for it by clientId and sends it again
 * only when it is not found. An IOC order that filled at once, or one cancelled since, was
 * answered 404 `Order not found` — the client sent it again and doubled its position.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { assertError, assertOrderShape, ok } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const newTrader = async () => {
  const [t] = await fundedTraders(ex, 1, '100000');
  return t;
};

test('GET /account/order by clientId finds the order after it filled, was cancelled, or on another subaccount; the newest of a reused clientId', async () => {
  const maker = await newTrader();
  const taker = await newTrader();
  ok(await maker.place({ price: '97000', quantity: '-0.01' }));
  const [filled] = ok(await taker.place({ price: '97000', quantity: '0.002', ioc: true, clientId: 'lost-reply' }));
  assert.equal(filled.status, 'filled');
  const found = ok(await taker.get(`/account/order?clientId=lost-reply&account=${taker.address}`));
  assertOrderShape(found);
  assert.deepEqual([found.orderId, found.status], [filled.orderId, 'filled']);

  await taker.fund('1000', 3);
  const [resting] = ok(await taker.place({ price: '80000', quantity: '0.001', clientId: 'then-cancelled', subaccountIndex: 3 }));
  ok(await taker.send('DELETE', `/account/order?orderId=${resting.orderId}`));
  const cancelled = ok(await taker.get(`/account/order?clientId=then-cancelled&account=${taker.address}`));
  assert.deepEqual([cancelled.orderId, cancelled.status, cancelled.subaccountIndex], [resting.orderId, 'cancelled', 3]);

  // A closed order's clientId names a new order (docs/api.md): the lookup answers the newest.
  const [second] = ok(await taker.place({ price: '80000', quantity: '0.001', clientId: 'lost-reply' }));
  assert.equal(ok(await taker.get(`/account/order?clientId=lost-reply&account=${taker.address}`)).orderId, second.orderId);
});

test('GET /account/order by clientId: never used is Order not found; another account’s is not shown', async () => {
  const owner = await newTrader();
  const stranger = await newTrader();
  ok(await owner.place({ price: '80000', quantity: '0.001', ioc: true, clientId: 'mine' }));
  assertError(await owner.get(`/account/order?clientId=never-used&account=${owner.address}`), 404, 'Order not found');
  assertError(await stranger.get(`/account/order?clientId=mine&account=${owner.address}`), 404, 'Order not found');
});
