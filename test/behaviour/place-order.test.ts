import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { Trader, fundedTraders } from '../harness/traders.ts';

/** A fresh exchange with two logged-in traders funded with 100,000 each. */
async function aliceAndBob() {
  const ex = await startInProcessExchange();
  const [alice, bob] = await fundedTraders(ex, 2, '100000');
  return { ex, alice, bob };
}

test('a signed limit order rests, shows on the book, and a crossing order fills it', async () => {
  const { ex, alice, bob } = await aliceAndBob();

  const rest = await alice.place({ price: '95000', quantity: '0.5', clientId: 'alice-1' });
  assert.equal(rest.status, 200, rest.text);
  const [resting] = rest.json();
  assert.equal(resting.status, 'new');
  assert.equal(resting.price, '95000');
  assert.equal(resting.quantity, '0.5');
  assert.equal(resting.remaining, '0.5');
  assert.equal(resting.settled, '0');
  assert.equal(resting.account, alice.address);
  assert.match(resting.orderId, /^0x[0-9a-f]{16}$/);
  assert.equal(resting.clientId, 'alice-1');
  assert.deepEqual(resting.flags, { ioc: false, postOnly: false, reduceOnly: false, selfTradeExpire: 1 });

  const book = (await ex.request('GET', '/book/BTC-USD-PERP?depth=5')).json();
  assert.deepEqual(book.bids, [{ price: '95000', quantity: '0.5' }]);
  assert.deepEqual(book.asks, []);

  const take = await bob.place({ price: '94000', quantity: '-0.2' });
  assert.equal(take.status, 200, take.text);
  const [taker] = take.json();
  assert.equal(taker.status, 'filled');
  assert.equal(taker.settled, '0.2');
  assert.equal(taker.quantity, '-0.2');

  const after = (await alice.get(`/account/order?orderId=${resting.orderId}`)).json();
  assert.equal(after.status, 'partiallyFilled');
  assert.equal(after.remaining, '0.3');
  assert.equal(after.settled, '0.2');
  assert.ok(after.lastUpdateSequenceNumber > resting.lastUpdateSequenceNumber);

  const positions = (await alice.get(`/account/positions?account=${alice.address}&subaccountIndex=0`)).json();
  assert.equal(positions.positions.length, 1);
  assert.equal(positions.positions[0].quantity, '0.2');
  const bobPositions = (await bob.get(`/account/positions?account=${bob.address}&subaccountIndex=0`)).json();
  assert.equal(bobPositions.positions[0].quantity, '-0.2');

  const trades = (await ex.request('GET', '/trades/BTC-USD-PERP')).json();
  assert.equal(trades.length, 1);
  assert.equal(trades[0].price, '95000');
  assert.equal(trades[0].quantity, '0.2');
});

test('an order signed by someone else, or with a field changed after signing, is refused', async () => {
  const ex = await startInProcessExchange();
  const alice = await new Trader(ex).login();
  const mallory = await new Trader(ex).login();
  await alice.fund();

  const forged = await alice.signedOrder({ price: '95000', quantity: '0.1' }, mallory.wallet);
  const r1 = await ex.request('POST', '/account/order', forged, alice.auth());
  assert.equal(r1.status, 400);
  assert.equal(r1.text, 'Invalid signature');

  const body = await alice.signedOrder({ price: '95000', quantity: '0.1' });
  const r2 = await ex.request('POST', '/account/order', { ...body, price: '96000' }, alice.auth());
  assert.equal(r2.status, 400);
  assert.equal(r2.text, 'Invalid signature');

  const ok = await ex.request('POST', '/account/order', body, alice.auth());
  assert.equal(ok.status, 200, ok.text);
  const replay = await ex.request('POST', '/account/order', body, alice.auth());
  assert.equal(replay.status, 409);
  assert.equal(replay.text, 'Nonce already used');
});

test('order routes need the bearer token', async () => {
  const ex = await startInProcessExchange();
  const alice = await new Trader(ex).login();
  const r = await ex.request('POST', '/account/order', await alice.signedOrder({ price: '1', quantity: '1' }));
  assert.equal(r.status, 401);
  assert.equal(r.text, 'Please add the JWT token to the header');
});

test('the reply reports the order as its own command left it, not fills of later commands still unflushed', async () => {
  const { ex, alice, bob } = await aliceAndBob();
  // Hold the journal's flushes: alice's order is decided, matched and journaled, not durable.
  const sequencer = ex.exchange.sequencer;
  const storage = (sequencer as unknown as { journal: { storage: { sync(): Promise<void> } } }).journal.storage;
  const sync = storage.sync.bind(storage);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  storage.sync = () => gate.then(sync);
  const registry = sequencer.exchange.orders;
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 2));
  };

  const resting = alice.place({ price: '95000', quantity: '0.5', clientId: 'alice-rests' });
  await until(() => registry.byClient(alice.address, 'alice-rests') !== undefined);
  const orderId = registry.byClient(alice.address, 'alice-rests')!.orderId;
  // Bob's order fills it in memory while alice's reply still waits for the flush.
  const taking = bob.place({ price: '95000', quantity: '-0.5' });
  await until(() => registry.get(orderId) === undefined);
  release();

  const [rested] = (await resting).json();
  assert.equal(rested.status, 'new', 'alice was told what her command did, all of it durable with it');
  assert.equal(rested.settled, '0');
  const [took] = (await taking).json();
  assert.equal(took.status, 'filled');
  assert.equal((await alice.get(`/account/order?orderId=${rested.orderId}`)).json().status, 'filled');
});

test('the optional strings of an order sent as "" (as the signed message writes them) mean absent, as null does: a limit order and a TP/SL pair are placed', async () => {
  const { ex, alice, bob } = await aliceAndBob();
  const { domain, types } = (await ex.request('GET', '/config')).json().eip712;
  // A client that builds one object for the body and the EIP-712 message: absent strings as "", period 0.
  const send = async (path: string, fields: Record<string, unknown>[]) => {
    const bodies = await Promise.all(
      fields.map(async (f) => {
        const body = {
          account: alice.wallet.address, subaccountIndex: 0, symbol: 'BTC-USD-PERP', orderType: 'limit', price: '95000', quantity: '0.5',
          nonce: alice.nextNonce(), expiresAt: 0, flags: { ioc: false, postOnly: false, reduceOnly: false },
          originator: '0x0000000000000000000000000000000000000000', originatorFee: 0,
          clientId: '', triggerPrice: '', parentOrderId: '', period: 0, trailingPercent: '', ...f,
        };
        const message = { ...body, ...body.flags };
        const signature = await alice.wallet.signTypedData({ domain, types: { Order: types.Order }, primaryType: 'Order', message });
        return { ...body, signatures: [signature] };
      }),
    );
    return ex.request('POST', path, path === '/account/order' ? bodies[0] : { orders: bodies }, alice.auth());
  };

  const placed = await send('/account/order', [{}]);
  assert.equal(placed.status, 200, placed.text);
  const [order] = placed.json();
  assert.equal(order.status, 'new');
  assert.deepEqual([order.clientId, order.triggerPrice, order.parentOrderId, order.trailingPercent], [null, null, null, null]);

  // a position to protect, then the pair with "" for what it does not use
  assert.equal((await bob.place({ price: '95000', quantity: '-0.5' })).status, 200);
  const exit = { price: '0.1', quantity: '-0.5', flags: { ioc: true, postOnly: false, reduceOnly: true } };
  const pair = await send('/account/orders', [
    { ...exit, orderType: 'TakeProfit', triggerPrice: '200000' },
    { ...exit, orderType: 'StopLoss', triggerPrice: '50000' },
  ]);
  assert.equal(pair.status, 200, pair.text);
  assert.deepEqual(pair.json().orders.map((o: { orderType: string; trailingPercent: unknown; clientId: unknown }) => [o.orderType, o.trailingPercent, o.clientId]), [
    ['takeProfit', null, null],
    ['stopLoss', null, null],
  ]);
});
