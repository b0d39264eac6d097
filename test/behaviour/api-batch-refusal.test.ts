/**
 * A limit batch (POST /account/orders) is submitted order by order and the first refusal stops
 * it (docs/decisions.md "batches"). What a client must be able to tell from the answer: which
 * orders were placed, which one was refused and why, and which were never submitted. Before,
 * the reply listed only the placed orders — a 200 with fewer orders than sent and no reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { assertError, assertOrderShape, ok } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();

test('a limit batch stopped by a refusal answers the placed orders, then the refused one as rejected with its reason; the rest are not submitted', async () => {
  // 100 USD holds the initial margin (2 %) of a 0.001 BTC bid at 80,000, not of a 0.1 one (160 USD).
  const [kim] = await fundedTraders(ex, 1, '100');
  const fits = await kim.signedOrder({ price: '80000', quantity: '0.001', clientId: 'kim-fits' });
  const tooBig = await kim.signedOrder({ price: '80000', quantity: '0.1', clientId: 'kim-too-big' });
  const after = await kim.signedOrder({ price: '80000', quantity: '0.0001', clientId: 'kim-after' });
  const { orders } = ok(await kim.send('POST', '/account/orders', { orders: [fits, tooBig, after] }));
  orders.forEach(assertOrderShape);
  assert.deepEqual(
    orders.map((o: any) => [o.clientId, o.status, o.reason]),
    [
      ['kim-fits', 'new', ''],
      ['kim-too-big', 'rejected', 'insufficientMargin'],
    ],
  );
  // The refused order spent its nonce (it is journaled, rejected); the one after it did not.
  assertError(await kim.send('POST', '/account/order', tooBig), 409, 'Nonce already used');
  assert.equal(ok(await kim.send('POST', '/account/order', after))[0].status, 'new');
});

test('a limit batch whose first order is refused is that refusal, as a single order would be', async () => {
  const [lee] = await fundedTraders(ex, 1, '100');
  const tooBig = await lee.signedOrder({ price: '80000', quantity: '0.1' });
  const fits = await lee.signedOrder({ price: '80000', quantity: '0.001' });
  assertError(await lee.send('POST', '/account/orders', { orders: [tooBig, fits] }), 400, 'Insufficient margin');
});

test('a batch with a bad signature on any order is refused whole, Invalid signature, and places nothing', async () => {
  const [ned, eve] = await fundedTraders(ex, 2, '10000');
  const good = await ned.signedOrder({ price: '80000', quantity: '0.001', clientId: 'ned-good' });
  const altered = { ...(await ned.signedOrder({ price: '80000', quantity: '0.001', clientId: 'ned-altered' })), price: '80100' };
  const forged = await ned.signedOrder({ price: '80000', quantity: '0.001', clientId: 'ned-forged' }, eve.wallet);
  for (const bad of [altered, forged]) {
    const refused = await ned.send('POST', '/account/orders', { orders: [good, bad] });
    assertError(refused, 400, 'Invalid signature');
    assert.ok(refused.headers.get('x-signed-message'), 'the refusal shows the message the server hashed');
  }
  // Nothing was placed: the good order's nonce is unspent, so it is accepted alone now.
  assert.deepEqual(ok(await ned.get(`/account/orders?account=${ned.address}&subaccountIndex=0`)).total, 0);
  assert.equal(ok(await ned.send('POST', '/account/order', good))[0].status, 'new');
});
