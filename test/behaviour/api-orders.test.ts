/**
 * Black-box tests of the order routes on the in-process exchange (test/harness/in-process-exchange: the real
 * state machine, sequencer and gateway), orders signed with viem: POST /account/order, POST /account/orders,
 * GET / DELETE /account/order, POST /account/orders/cancel, DELETE /account/orders,
 * GET /account/orders with every filter. Each test trades in its own price band so that the
 * shared books never cross between tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { assertError, assertOrderShape, BTC, delegate, ETH, ok, SOL, sub } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange();
const newTrader = async (funds = '1000000') => (await fundedTraders(ex, [funds]))[0];

const ALICE_BUY_0_5_BTC_AT_90000 = { price: '90000', quantity: '0.5', clientId: 'alice-bid-90000' };
const ALICE_BUY_0_1_BTC_AT_89000_ID = { price: '89000', quantity: '0.1', clientId: 'alice-idem-89000' };
const MIA_SELL_1_ETH_AT_3600 = { symbol: ETH, price: '3600', quantity: '-1' };
const TOM_POST_ONLY_BUY_ETH_AT_3600 = { symbol: ETH, price: '3600', quantity: '0.5', postOnly: true };
const TOM_IOC_BUY_1_5_ETH_AT_3600 = { symbol: ETH, price: '3600', quantity: '1.5', ioc: true };
const TOM_REDUCE_ONLY_BUY_ETH_AT_3000 = { symbol: ETH, price: '3000', quantity: '0.2', reduceOnly: true };
const TOM_REDUCE_ONLY_SELL_2_ETH_AT_4000 = { symbol: ETH, price: '4000', quantity: '-2', reduceOnly: true };

test('POST /account/order: a signed limit order rests and comes back as an array of one Order with every spec field typed', async () => {
  const alice = await newTrader();
  const before = ex.now();
  const [order, ...rest] = ok(await alice.place(ALICE_BUY_0_5_BTC_AT_90000));
  assert.equal(rest.length, 0);
  assertOrderShape(order);
  assert.equal(order.account, alice.address);
  assert.equal(order.clientId, 'alice-bid-90000');
  assert.equal(order.symbol, BTC);
  assert.equal(order.orderType, 'limit');
  assert.equal(order.status, 'new');
  assert.equal(order.price, '90000');
  assert.equal(order.quantity, '0.5');
  assert.equal(order.remaining, '0.5');
  assert.equal(order.settled, '0');
  assert.equal(order.expiresAt, 0);
  assert.equal(order.subaccountIndex, 0);
  assert.equal(order.period, null);
  assert.equal(order.parentOrderId, null);
  assert.equal(order.triggerPrice, null);
  assert.equal(order.trailingPercent, null);
  assert.deepEqual(order.flags, { ioc: false, postOnly: false, reduceOnly: false, selfTradeExpire: 1 });
  assert.ok(order.createdAt >= before - 5 && order.createdAt <= ex.now() + 5, 'createdAt is in milliseconds');
  const book = ok(await ex.request('GET', `/book/${BTC}?depth=1`));
  assert.deepEqual(book.bids, [{ price: '90000', quantity: '0.5' }]);
});

test('POST /account/order: the orderType is accepted in any letter case and answered in lowerCamel', async () => {
  const alice = await newTrader();
  const [order] = ok(await alice.place({ orderType: 'Limit', price: '85000', quantity: '0.01' }));
  assert.equal(order.orderType, 'limit');
});

test('POST /account/order: resubmitting a clientId of an open order returns the original order, placing nothing new', async () => {
  const alice = await newTrader();
  const body = await alice.signedOrder(ALICE_BUY_0_1_BTC_AT_89000_ID);
  const [original] = ok(await ex.request('POST', '/account/order', body, alice.auth()));
  const [again] = ok(await ex.request('POST', '/account/order', body, alice.auth()));
  assert.deepEqual(again, original);
  // a fresh nonce (a client retrying after a timeout re-signs): still the original
  const [retried] = ok(await alice.place(ALICE_BUY_0_1_BTC_AT_89000_ID));
  assert.equal(retried.orderId, original.orderId);
  assert.equal(retried.nonce, original.nonce);
  const list = ok(await alice.get(`/account/orders?${sub(alice)}`));
  assert.equal(list.total, 1);
  const level = ok(await ex.request('GET', `/book/${BTC}`)).bids.find((l: { price: string }) => l.price === '89000');
  assert.deepEqual(level, { price: '89000', quantity: '0.1' });
  // in a batch the clientId of an open order is refused, not answered
  const batch = await alice.send('POST', '/account/orders', { orders: [await alice.signedOrder(ALICE_BUY_0_1_BTC_AT_89000_ID)] });
  assertError(batch, 409, `clientId alice-idem-89000 is already used by open order ${original.orderId}: resend the same order to get it back, or use a new clientId`);
  // once the order is closed, its clientId names a new order
  ok(await alice.send('DELETE', `/account/order?orderId=${original.orderId}`));
  const [reused] = ok(await alice.place(ALICE_BUY_0_1_BTC_AT_89000_ID));
  assert.notEqual(reused.orderId, original.orderId);
  assert.equal(reused.status, 'new');
  assert.equal(ok(await alice.get(`/account/order?clientId=${ALICE_BUY_0_1_BTC_AT_89000_ID.clientId}&account=${alice.address}`)).orderId, reused.orderId);
});

test('POST /account/order: a clientId of an open order with other terms is 409 naming the clientId and what differs; nothing placed, no nonce spent', async () => {
  const alice = await newTrader();
  const terms = { price: '87000', quantity: '0.1', clientId: 'alice-terms' };
  const [original] = ok(await alice.place(terms));
  const inUse = (differs: string) => `clientId alice-terms is already used by open order ${original.orderId} with a different ${differs}: resend the same order to get it back, or use a new clientId`;
  assertError(await alice.place({ ...terms, price: '86999' }), 409, inUse('price'));
  assertError(await alice.place({ ...terms, quantity: '0.2' }), 409, inUse('quantity'));
  assertError(await alice.place({ ...terms, quantity: '-0.1' }), 409, inUse('quantity'));
  assertError(await alice.place({ ...terms, postOnly: true }), 409, inUse('flags'));
  assertError(await alice.place({ ...terms, expiresAt: Date.now() + 60_000 }), 409, inUse('expiresAt'));
  assertError(await alice.place({ ...terms, orderType: 'takeProfit', triggerPrice: '88000' }), 409, inUse('orderType, triggerPrice'));
  assertError(await alice.place({ ...terms, symbol: ETH, price: '3000' }), 409, inUse('symbol'));
  // the same terms spelt differently ("87000.0", "0.10", "Limit") are the same order
  const [same] = ok(await alice.place({ ...terms, price: '87000.0', quantity: '0.10', orderType: 'Limit' }));
  assert.deepEqual(same, original);
  assert.equal(ok(await alice.get(`/account/orders?${sub(alice)}`)).total, 1, 'nothing else was placed');
  // a refused body spent no nonce: once the clientId is free, the very same signed request is placed
  const refused = await alice.signedOrder({ ...terms, price: '86000' });
  assertError(await alice.send('POST', '/account/order', refused), 409, inUse('price'));
  ok(await alice.send('DELETE', `/account/order?orderId=${original.orderId}`));
  const [placed] = ok(await alice.send('POST', '/account/order', refused));
  assert.equal(placed.price, '86000');
  assert.equal(placed.nonce, refused.nonce);
  ok(await alice.send('DELETE', `/account/orders?${sub(alice)}`));
});

test('self-trade prevention: a taker meeting its own account\'s resting order expires the maker (reason selfTrade) and goes on', async () => {
  const sam = await newTrader();
  const [maker] = ok(await sam.place({ symbol: SOL, price: '30', quantity: '1' }));
  const [taker] = ok(await sam.place({ symbol: SOL, price: '29', quantity: '-1' }));
  assert.equal(taker.status, 'new');
  assert.equal(taker.settled, '0');
  const expired = ok(await sam.get(`/account/order?orderId=${maker.orderId}`));
  assertOrderShape(expired);
  assert.equal(expired.status, 'expired');
  assert.equal(expired.reason, 'selfTrade');
  assert.deepEqual(ok(await ex.request('GET', `/trades/${SOL}`)).filter((t: any) => t.price === '30'), []);
  ok(await sam.send('DELETE', `/account/orders?${sub(sam)}`));
});

test('POST /account/order: another account cannot read an order through its clientId (idempotency answers only the owner)', async () => {
  const alice = await newTrader();
  const mallory = await newTrader();
  ok(await alice.place({ price: '88000', quantity: '0.01', clientId: 'alice-secret' }));
  // Mallory signs with her own key an order in Alice's name carrying Alice's clientId,
  // or sends it with no valid signature at all.
  const forged = await alice.signedOrder({ price: '1', quantity: '1', clientId: 'alice-secret' }, mallory.wallet);
  const byMallory = await ex.request('POST', '/account/order', forged, mallory.auth());
  const unsigned = await ex.request('POST', '/account/order', { ...forged, signatures: ['0x00'] }, mallory.auth());
  assertError(byMallory, 403, 'Not delegated for account and subaccount');
  assertError(unsigned, 403, 'Not delegated for account and subaccount');
  // Alice's own token with Mallory's signature: a signature that is not hers
  assertError(await ex.request('POST', '/account/order', forged, alice.auth()), 400, 'Invalid signature');
});

test('POST /account/order: refusals — period on a limit order, a bad signature, an unknown symbol, a bad subaccount index, no token, an attached stopLoss', async () => {
  const alice = await newTrader();
  assertError(await alice.place({ price: '80000', quantity: '0.01', period: 1000 }), 400, 'May not specify period on Limit order');
  const body = await alice.signedOrder({ price: '80000', quantity: '0.01' });
  assertError(await ex.request('POST', '/account/order', { ...body, quantity: '0.02' }, alice.auth()), 400, 'Invalid signature');
  assertError(await alice.place({ symbol: 'DOGE-USD-PERP', price: '1', quantity: '1' }), 404, 'Symbol not found');
  assertError(await ex.request('POST', '/account/order', { ...body, subaccountIndex: -1 }, alice.auth()), 400, 'Invalid subaccount index');
  assertError(await ex.request('POST', '/account/order', body), 401, 'Please add the JWT token to the header');
  assertError(await alice.send('POST', '/account/order', '{"account":'), 400, 'Request body must be valid JSON');
  assertError(await alice.place({ price: '80000', quantity: '0.01', expiresAt: ex.now() - 1000 }), 400, 'Request expired');
  assertError(await alice.place({ price: '80000.05', quantity: '0.01' }), 400, 'price 80000.05 is not a multiple of the tick size 0.1');
  assertError(await alice.place({ price: '80000', quantity: '0.00005' }), 400, 'quantity 0.00005 is not a multiple of the lot size 0.0001');
  assertError(await alice.place({ price: '80000', quantity: '0' }), 400, 'quantity must not be zero: positive buys, negative sells');
  assertError(await alice.place({ price: '80000', quantity: '1e-2' }), 400, 'quantity must be a signed decimal string: positive buys, negative sells');
  assertError(await alice.place({ price: '80000', quantity: '1000' }), 400, 'Insufficient margin');
  const unsignedStop = { ...(await alice.signedOrder({ price: '80000', quantity: '0.01' })), stopLoss: { triggerPrice: '70000' } };
  assertError(await ex.request('POST', '/account/order', unsignedStop, alice.auth()), 400, 'stopLoss objects on an order are not supported: submit a takeProfit and stopLoss pair on POST /account/orders');
  const nullObjects = { ...(await alice.signedOrder({ price: '80000', quantity: '0.01' })), stopLoss: null, takeProfit: null };
  assert.equal((await ex.request('POST', '/account/order', nullObjects, alice.auth())).status, 200, 'null objects are the same as none');
  // a future expiresAt (ms) is kept as sent
  const expiresAt = Date.now() + 3_600_000;
  const [expiring] = ok(await alice.place({ price: '80000', quantity: '0.01', expiresAt }));
  assert.equal(expiring.expiresAt, expiresAt);
  assert.equal(expiring.status, 'new');
});

test('POST /account/order: post-only that would cross is rejected, IOC cancels its remainder, reduce-only never increases', async () => {
  const mia = await newTrader();
  const tom = await newTrader();
  const [ask] = ok(await mia.place(MIA_SELL_1_ETH_AT_3600));
  assert.equal(ask.quantity, '-1');

  const [postOnly] = ok(await tom.place(TOM_POST_ONLY_BUY_ETH_AT_3600));
  assertOrderShape(postOnly);
  assert.equal(postOnly.status, 'rejected');
  assert.equal(postOnly.reason, 'postOnlyWouldTake');
  assert.equal(postOnly.settled, '0');
  assert.deepEqual(ok(await ex.request('GET', `/book/${ETH}`)).asks, [{ price: '3600', quantity: '1' }], 'the post-only order took nothing');

  assertError(await tom.place({ ...TOM_POST_ONLY_BUY_ETH_AT_3600, ioc: true }), 400, 'flags ioc and postOnly cannot both be set');

  const [ioc] = ok(await tom.place(TOM_IOC_BUY_1_5_ETH_AT_3600));
  assertOrderShape(ioc);
  assert.equal(ioc.status, 'cancelled');
  assert.equal(ioc.reason, 'immediateOrCancel');
  assert.equal(ioc.settled, '1');
  assert.equal(ioc.remaining, '0.5');
  assert.deepEqual(ok(await ex.request('GET', `/book/${ETH}`)).bids, [], 'the IOC remainder does not rest');

  // Tom is long 1 ETH: a reduce-only buy would increase it
  const [increase] = ok(await tom.place(TOM_REDUCE_ONLY_BUY_ETH_AT_3000));
  assert.equal(increase.status, 'rejected');
  assert.equal(increase.reason, 'reduceOnlyWouldIncrease');
  // a reduce-only sell of 2 is capped at the position's 1
  const [reduce] = ok(await tom.place(TOM_REDUCE_ONLY_SELL_2_ETH_AT_4000));
  assert.equal(reduce.status, 'new');
  assert.equal(reduce.quantity, '-1');
  assert.equal(reduce.remaining, '1');
  assert.deepEqual(reduce.flags, { ioc: false, postOnly: false, reduceOnly: true, selfTradeExpire: 1 });
  // and a flat account's reduce-only order is rejected
  const [flat] = ok(await mia.place({ symbol: SOL, price: '100', quantity: '1', reduceOnly: true }));
  assert.equal(flat.status, 'rejected');
  assert.equal(flat.reason, 'reduceOnlyWouldIncrease');
  ok(await tom.send('DELETE', `/account/orders?${sub(tom)}`));
});

test('POST /account/orders: a limit batch, each order with its own nonce and signature, answers {orders}', async () => {
  const bea = await newTrader();
  const bodies = [
    await bea.signedOrder({ price: '80000', quantity: '0.01', clientId: 'bea-1' }),
    await bea.signedOrder({ price: '80000.5', quantity: '0.02', clientId: 'bea-2' }),
    await bea.signedOrder({ price: '80001', quantity: '0.03' }),
  ];
  const { orders, ...rest } = ok(await bea.send('POST', '/account/orders', { orders: bodies }));
  assert.deepEqual(Object.keys(rest), []);
  assert.equal(orders.length, 3);
  orders.forEach(assertOrderShape);
  assert.deepEqual(
    orders.map((o: any) => [o.price, o.quantity, o.clientId, o.status]),
    [
      ['80000', '0.01', 'bea-1', 'new'],
      ['80000.5', '0.02', 'bea-2', 'new'],
      ['80001', '0.03', null, 'new'],
    ],
  );
  assert.deepEqual(orders.map((o: any) => o.nonce), bodies.map((b) => b.nonce));
  assert.equal(new Set(orders.map((o: any) => o.orderId)).size, 3);
  // nonces sequential but not contiguous
  const gapped = [await bea.signedOrder({ price: '79000', quantity: '0.01', nonce: bea.nextNonce() + 10 }), await bea.signedOrder({ price: '79000', quantity: '0.01', nonce: bea.nextNonce() + 50 })];
  assert.equal(ok(await bea.send('POST', '/account/orders', { orders: gapped })).orders.length, 2);
});

test('POST /account/orders: the batch rules and their refusals', async () => {
  const bea = await newTrader();
  const dan = await newTrader();
  const order = (fields: Record<string, unknown> = {}) => bea.signedOrder({ price: '78000', quantity: '0.01', ...fields });
  const same = 'account, subaccountIndex, symbol, orderType and period must be the same for every order of a batch';
  assertError(await bea.send('POST', '/account/orders', { orders: [await order(), await order({ symbol: ETH, price: '2000' })] }), 400, same);
  assertError(await bea.send('POST', '/account/orders', { orders: [await order(), await order({ subaccountIndex: 1 })] }), 400, same);
  assertError(await bea.send('POST', '/account/orders', { orders: [await order(), await dan.signedOrder({ price: '78000', quantity: '0.01' })] }), 400, same);
  const nonce = bea.nextNonce();
  assertError(await bea.send('POST', '/account/orders', { orders: [await order({ nonce }), await order({ nonce })] }), 400, 'each order of a batch needs its own nonce');
  // A clientId names one open order: two in one batch would place the first and reject the second.
  assertError(await bea.send('POST', '/account/orders', { orders: [await order({ clientId: 'bea-twice' }), await order({ clientId: 'bea-twice' })] }), 400, 'each order of a batch needs its own clientId');
  assertError(await bea.send('POST', '/account/orders', { orders: [await order(), await order({ period: 5 })] }), 400, 'May not specify period on Limit order');
  assertError(await bea.send('POST', '/account/orders', { orders: [{ ...(await order()), subaccountIndex: 2 ** 31 }] }), 400, 'Invalid subaccount index');
  // Array bounds in words a user reads (ajv's own were `must NOT have fewer than 1 items`).
  assertError(await bea.send('POST', '/account/orders', { orders: [] }), 400, 'orders must have at least 1 item');
  const tooMany = await order();
  assertError(await bea.send('POST', '/account/orders', { orders: Array.from({ length: 101 }, () => tooMany) }), 400, 'orders must have at most 100 items');
  assertError(await bea.send('POST', '/account/order', { ...(await order()), signatures: [] }), 400, 'signatures must have at least 1 item');
  // Dan holds `trade` on Bea's subaccount 1 only: a batch he signs for her subaccount 0 is not delegated
  await delegate(bea, dan, 'trade', 1);
  const byDan = [await bea.signedOrder({ price: '78000', quantity: '0.01' }, dan.wallet), await bea.signedOrder({ price: '78000', quantity: '0.02' }, dan.wallet)];
  assertError(await dan.send('POST', '/account/orders', { orders: byDan }), 403, 'Not delegated for account and subaccount');
  // and on subaccount 1 he may (the orders are Bea's)
  await bea.fund('10000', 1);
  const onSub1 = [await bea.signedOrder({ price: '78000', quantity: '0.01', subaccountIndex: 1 }, dan.wallet)];
  const [placed] = ok(await dan.send('POST', '/account/orders', { orders: onSub1 })).orders;
  assert.equal(placed.account, bea.address);
  assert.equal(placed.subaccountIndex, 1);
  // no order of a refused batch rests
  const list = ok(await bea.get(`/account/orders?${sub(bea)}`));
  assert.equal(list.total, 0);
});

test('GET /account/order by orderId and by clientId+account; Order not found; another account sees nothing', async () => {
  const cleo = await newTrader();
  const mallory = await newTrader();
  const [placed] = ok(await cleo.place({ price: '70000', quantity: '0.02', clientId: 'cleo-70000' }));
  const byId = ok(await cleo.get(`/account/order?orderId=${placed.orderId}`));
  assertOrderShape(byId);
  assert.deepEqual(byId, placed);
  const byClient = ok(await cleo.get(`/account/order?clientId=cleo-70000&account=${cleo.address}`));
  assert.deepEqual(byClient, placed);
  assertError(await cleo.get('/account/order?orderId=0x00000000000fffff'), 404, 'Order not found');
  assertError(await cleo.get('/account/order?orderId=not-an-id'), 404, 'Order not found');
  assertError(await cleo.get(`/account/order?clientId=nobody&account=${cleo.address}`), 404, 'Order not found');
  // An orderId with a clientId or an account names the order only when they agree.
  assert.deepEqual(ok(await cleo.get(`/account/order?orderId=${placed.orderId}&clientId=cleo-70000&account=${cleo.address}`)), placed);
  assertError(await cleo.get(`/account/order?orderId=${placed.orderId}&clientId=another`), 404, 'Order not found');
  assertError(await cleo.get(`/account/order?orderId=${placed.orderId}&account=${mallory.address}`), 404, 'Order not found');
  assertError(await cleo.get(`/account/order?orderId=${placed.orderId}&account=0x12`), 400, 'account must be a 0x-prefixed 20-byte hex address');
  assertError(await cleo.get('/account/order?clientId=cleo-70000'), 400, 'Missing query parameter account');
  assertError(await cleo.get('/account/order'), 400, 'Missing query parameter orderId (or clientId with account)');
  assertError(await mallory.get(`/account/order?orderId=${placed.orderId}`), 404, 'Order not found');
  assertError(await mallory.get(`/account/order?clientId=cleo-70000&account=${cleo.address}`), 404, 'Order not found');
  assertError(await ex.request('GET', `/account/order?orderId=${placed.orderId}`), 401, 'Please add the JWT token to the header');
});

test('GET /account/order of a filled order: from history, every field still typed', async () => {
  const maker = await newTrader();
  const taker = await newTrader();
  const [ask] = ok(await maker.place({ symbol: SOL, price: '250', quantity: '-2' }));
  const [bid] = ok(await taker.place({ symbol: SOL, price: '250', quantity: '2' }));
  assert.equal(bid.status, 'filled');
  const filled = ok(await maker.get(`/account/order?orderId=${ask.orderId}`));
  assertOrderShape(filled);
  assert.equal(filled.status, 'filled');
  assert.equal(filled.settled, '2');
  assert.equal(filled.remaining, '0');
  assert.equal(filled.quantity, '-2');
  assert.ok(filled.updatedAt >= ask.createdAt);
  assert.ok(filled.lastUpdateSequenceNumber > ask.lastUpdateSequenceNumber);
});

test('DELETE /account/order by orderId and by clientId+account; twice is Order not found; a stranger is not delegated', async () => {
  const cleo = await newTrader();
  const mallory = await newTrader();
  const [a] = ok(await cleo.place({ price: '69000', quantity: '0.01' }));
  const [b] = ok(await cleo.place({ price: '69000.5', quantity: '0.01', clientId: 'cleo-b' }));
  assertError(await mallory.send('DELETE', `/account/order?orderId=${a.orderId}`), 403, 'Not delegated for account and subaccount');
  assertError(await mallory.send('DELETE', `/account/order?clientId=cleo-b&account=${cleo.address}`), 403, 'Not delegated for account and subaccount');

  // An orderId with another order's clientId cancels neither: the caller named two orders.
  assertError(await cleo.send('DELETE', `/account/order?orderId=${a.orderId}&clientId=cleo-b&account=${cleo.address}`), 404, 'Order not found');
  assert.equal(ok(await cleo.get(`/account/order?orderId=${a.orderId}`)).status, 'new');
  const cancelled = ok(await cleo.send('DELETE', `/account/order?orderId=${a.orderId}`));
  assertOrderShape(cancelled);
  assert.equal(cancelled.orderId, a.orderId);
  assert.equal(cancelled.status, 'cancelled');
  assert.equal(cancelled.reason, 'cancelled');
  assert.equal(cancelled.remaining, '0.01');
  assert.ok(cancelled.updatedAt >= a.updatedAt);
  const byClient = ok(await cleo.send('DELETE', `/account/order?clientId=cleo-b&account=${cleo.address}`));
  assert.equal(byClient.orderId, b.orderId);
  assert.equal(byClient.status, 'cancelled');
  const book = ok(await ex.request('GET', `/book/${BTC}?depth=5000`));
  assert.ok(!book.bids.some((l: { price: string }) => l.price === '69000' || l.price === '69000.5'), 'both left the book');

  assertError(await cleo.send('DELETE', `/account/order?orderId=${a.orderId}`), 404, 'Order not found');
  assertError(await cleo.send('DELETE', `/account/order?clientId=cleo-b&account=${cleo.address}`), 404, 'Order not found');
  assertError(await cleo.send('DELETE', '/account/order?orderId=0x00000000000fffff'), 404, 'Order not found');
  assert.equal(ok(await cleo.get(`/account/order?orderId=${a.orderId}`)).status, 'cancelled');
});

test('POST /account/orders/cancel with orderIds, with clientIds (of the caller when account is absent), and with an empty body', async () => {
  const dora = await newTrader();
  const mallory = await newTrader();
  const [a] = ok(await dora.place({ price: '60000', quantity: '0.01' }));
  const [b] = ok(await dora.place({ price: '60001', quantity: '0.01' }));
  const [c] = ok(await dora.place({ price: '60002', quantity: '0.01', clientId: 'dora-c' }));
  const [d] = ok(await dora.place({ price: '60003', quantity: '0.01', clientId: 'dora-d' }));
  const [m] = ok(await mallory.place({ price: '60004', quantity: '0.01' }));

  const empty = ok(await dora.send('POST', '/account/orders/cancel', {}));
  assert.deepEqual(empty, { cancelled: [], failed: [] });

  const byIds = ok(await dora.send('POST', '/account/orders/cancel', { orderIds: [a.orderId, b.orderId, '0x00000000000fffff', m.orderId] }));
  byIds.cancelled.forEach(assertOrderShape);
  assert.deepEqual(byIds.cancelled.map((o: any) => [o.orderId, o.status]), [
    [a.orderId, 'cancelled'],
    [b.orderId, 'cancelled'],
  ]);
  assert.deepEqual(byIds.failed, [
    { clientId: '', orderId: '0x00000000000fffff', reason: 'Order not found' },
    { clientId: '', orderId: m.orderId, reason: 'Not delegated for account and subaccount' },
  ]);
  const again = ok(await dora.send('POST', '/account/orders/cancel', { orderIds: [a.orderId] }));
  assert.deepEqual(again, { cancelled: [], failed: [{ clientId: '', orderId: a.orderId, reason: 'Order is cancelled' }] });

  // account is optional (the spec): clientIds without it name the caller's own orders.
  const noAccount = ok(await dora.send('POST', '/account/orders/cancel', { clientIds: ['dora-c'] }));
  assert.deepEqual(noAccount.cancelled.map((o: any) => [o.orderId, o.clientId, o.status]), [[c.orderId, 'dora-c', 'cancelled']]);
  assert.deepEqual(noAccount.failed, []);
  const byClient = ok(await dora.send('POST', '/account/orders/cancel', { account: dora.address, clientIds: ['dora-c', 'dora-d', 'dora-none'] }));
  assert.deepEqual(byClient.cancelled.map((o: any) => [o.orderId, o.clientId, o.status]), [[d.orderId, 'dora-d', 'cancelled']]);
  assert.deepEqual(byClient.failed, [
    { clientId: 'dora-c', orderId: '', reason: 'Order not found' },
    { clientId: 'dora-none', orderId: '', reason: 'Order not found' },
  ]);
  assert.deepEqual(ok(await dora.get(`/account/orders?${sub(dora)}&status=open`)).bids, []);
  assert.equal(ok(await mallory.get(`/account/order?orderId=${m.orderId}`)).status, 'new', "Mallory's order survived Dora's batch");
  assertError(await ex.request('POST', '/account/orders/cancel', {}), 401, 'Please add the JWT token to the header');
});

test('DELETE /account/orders with a symbol cancels that market only; without, every market', async () => {
  const eve = await newTrader();
  const mallory = await newTrader();
  const [btc1] = ok(await eve.place({ price: '50000', quantity: '0.01' }));
  const [btc2] = ok(await eve.place({ price: '50001', quantity: '0.01' }));
  const [sol] = ok(await eve.place({ symbol: SOL, price: '100', quantity: '1' }));

  const bySymbol = ok(await eve.send('DELETE', `/account/orders?${sub(eve)}&symbol=${SOL}`));
  assert.deepEqual(bySymbol.cancelled.map((o: any) => [o.orderId, o.status, o.symbol]), [[sol.orderId, 'cancelled', SOL]]);
  assert.deepEqual(bySymbol.failed, []);
  assert.equal(ok(await eve.get(`/account/order?orderId=${btc1.orderId}`)).status, 'new');

  assertError(await mallory.send('DELETE', `/account/orders?${sub(eve)}`), 403, 'Not delegated for account and subaccount');
  assertError(await eve.send('DELETE', `/account/orders?${sub(eve)}&symbol=NOPE-USD-PERP`), 404, 'Symbol not found');
  assertError(await eve.send('DELETE', `/account/orders?subaccountIndex=0`), 400, 'Missing query parameter account');

  const all = ok(await eve.send('DELETE', `/account/orders?${sub(eve)}`));
  all.cancelled.forEach(assertOrderShape);
  assert.deepEqual(all.cancelled.map((o: any) => o.orderId).sort(), [btc1.orderId, btc2.orderId].sort());
  assert.deepEqual(ok(await eve.send('DELETE', `/account/orders?${sub(eve)}`)), { cancelled: [], failed: [] });
  assert.equal(ok(await eve.get(`/account/orders?${sub(eve)}&status=open`)).total, 0);
});

test('GET /account/orders: every filter — orderType, status, symbol, created and updated windows, limit', async () => {
  const fay = await newTrader();
  const seller = await newTrader();
  const gus = await newTrader();
  const q = (extra = '') => fay.get(`/account/orders?${sub(fay)}${extra}`);
  const ids = (list: any) => [...list.asks, ...list.bids].map((o: any) => o.orderId).sort();

  const [open1] = ok(await fay.place({ price: '40000', quantity: '0.01', clientId: 'fay-open-btc' }));
  await ex.advance(15);
  const [open2] = ok(await fay.place({ symbol: SOL, price: '120', quantity: '-0.5' })); // an ask: far above the SOL bids
  await ex.advance(15);
  ok(await seller.place({ symbol: SOL, price: '90', quantity: '-1' }));
  const [filled] = ok(await fay.place({ symbol: SOL, price: '90', quantity: '1' }));
  assert.equal(filled.status, 'filled');
  await ex.advance(15);
  const [cancelled] = ok(await fay.place({ price: '40001', quantity: '0.01' }));
  await ex.advance(15);
  ok(await fay.send('DELETE', `/account/order?orderId=${cancelled.orderId}`));
  const cancelledAt = ok(await fay.get(`/account/order?orderId=${cancelled.orderId}`)).updatedAt;
  ok(await gus.place({ price: '40000', quantity: '0.01' })); // another account: never listed for Fay

  const all = ok(await q());
  assert.deepEqual(Object.keys(all).sort(), ['asks', 'bids', 'total']);
  assert.equal(all.total, 4);
  [...all.asks, ...all.bids].forEach(assertOrderShape);
  assert.deepEqual(all.asks.map((o: any) => o.orderId), [open2.orderId], 'asks are the sell orders');
  assert.ok(all.bids.every((o: any) => !o.quantity.startsWith('-')), 'bids are the buy orders');

  assert.deepEqual(ids(ok(await q('&status=open'))), [open1.orderId, open2.orderId].sort());
  assert.deepEqual(ids(ok(await q('&status=active'))), [open1.orderId, open2.orderId].sort());
  assert.deepEqual(ids(ok(await q('&status=filled'))), [filled.orderId]);
  assert.deepEqual(ids(ok(await q('&status=closed'))), [filled.orderId, cancelled.orderId].sort());
  assert.deepEqual(ids(ok(await q(`&symbol=${SOL}`))), [open2.orderId, filled.orderId].sort());
  assert.deepEqual(ids(ok(await q(`&symbol=${SOL}&status=open`))), [open2.orderId]);
  assert.equal(ok(await q('&orderType=limit')).total, 4);
  assert.equal(ok(await q('&orderType=twap')).total, 0);
  assert.equal(ok(await q('&orderType=Limit,twap')).total, 4);
  // Repeated, as OpenAPI's form style and the project's client send an array.
  assert.equal(ok(await q('&orderType=limit&orderType=twap')).total, 4);

  assert.deepEqual(ids(ok(await q(`&createdFrom=${open2.createdAt}`))), [open2.orderId, filled.orderId, cancelled.orderId].sort());
  assert.deepEqual(ids(ok(await q(`&createdTo=${open2.createdAt}`))), [open1.orderId]);
  assert.deepEqual(ids(ok(await q(`&createdFrom=${open2.createdAt}&createdTo=${cancelled.createdAt}`))), [open2.orderId, filled.orderId].sort());
  assert.deepEqual(ids(ok(await q(`&updatedFrom=${cancelledAt}`))), [cancelled.orderId]);
  assert.deepEqual(ids(ok(await q(`&updatedTo=${cancelledAt}`))), [open1.orderId, open2.orderId, filled.orderId].sort());

  const one = ok(await q('&limit=1'));
  assert.equal(one.asks.length + one.bids.length, 1);
  assert.equal(one.total, 1);
  assert.equal(ok(await q('&limit=500')).total, 4);
  assertError(await q('&limit=0'), 400, 'Limit must be between 1 and 500, got 0');
  assertError(await q('&limit=501'), 400, 'Limit must be between 1 and 500, got 501');
  assertError(await q(`&createdFrom=1&updatedTo=${Date.now()}`), 400, 'The created filters and the updated filters cannot be combined');
  assertError(await q('&status=pending'), 400, 'status must be one of open, active, filled, closed');
  assertError(await q('&orderType=market'), 400, 'orderType market is not an order type');
  assertError(await q('&symbol=NOPE-USD-PERP'), 404, 'Symbol not found');
  assertError(await q('&createdFrom=-1'), 400, 'createdFrom must be an integer >= 0 (milliseconds), got -1');
  assertError(await fay.get('/account/orders?subaccountIndex=0'), 400, 'Missing query parameter account');
  assertError(await fay.get(`/account/orders?account=${fay.address}&subaccountIndex=-1`), 400, 'Invalid subaccount index');
  assertError(await gus.get(`/account/orders?${sub(fay)}`), 403, 'Not delegated for account and subaccount');
  assert.deepEqual(ok(await fay.get(`/account/orders?${sub(fay, 3)}`)), { asks: [], bids: [], total: 0 });
});

const LEE_TAKE_PROFIT_0_5_ETH_AT_4000 = { symbol: ETH, orderType: 'takeProfit', price: '0.01', quantity: '-0.5', triggerPrice: '4000', ioc: true, reduceOnly: true };
const LEE_STOP_LOSS_0_5_ETH_AT_3000 = { symbol: ETH, orderType: 'stopLoss', price: '0.01', quantity: '-0.5', triggerPrice: '3000', ioc: true, reduceOnly: true };
const LEE_TRAILING_STOP_0_5_ETH_5_PERCENT = { symbol: ETH, orderType: 'trailingStop', price: '0.01', quantity: '-0.5', trailingPercent: '0.05', ioc: true, reduceOnly: true };

test('GET /account/orders: status=active also lists untriggered conditional orders, typed like every Order; orderType filters them', async () => {
  const kim = await newTrader();
  const lee = await newTrader();
  const mark = await ex.operator('POST', '/operator/index-price', { symbol: ETH, price: '3500' });
  assert.equal(mark.status, 200, mark.text);
  ok(await kim.place({ symbol: ETH, price: '3500', quantity: '-0.5' }));
  assert.equal(ok(await lee.place({ symbol: ETH, price: '3500', quantity: '0.5' }))[0].status, 'filled');

  const pair = ok(await lee.send('POST', '/account/orders', { orders: [await lee.signedOrder(LEE_TAKE_PROFIT_0_5_ETH_AT_4000), await lee.signedOrder(LEE_STOP_LOSS_0_5_ETH_AT_3000)] }));
  const [takeProfit, stopLoss] = pair.orders;
  const [trailing] = ok(await lee.send('POST', '/account/order', await lee.signedOrder(LEE_TRAILING_STOP_0_5_ETH_5_PERCENT)));
  for (const o of [takeProfit, stopLoss, trailing]) {
    assertOrderShape(o);
    assert.equal(o.status, 'untriggered');
  }
  assert.deepEqual([takeProfit.orderType, takeProfit.triggerPrice, takeProfit.trailingPercent], ['takeProfit', '4000', null]);
  assert.deepEqual([stopLoss.orderType, stopLoss.triggerPrice], ['stopLoss', '3000']);
  assert.deepEqual([trailing.orderType, trailing.triggerPrice, trailing.trailingPercent], ['trailingStop', '3325', '0.05'], 'a trailing stop shows where it would fire now: 5 % under the mark of 3500');

  const ids = (list: any) => [...list.asks, ...list.bids].map((o: any) => o.orderId).sort();
  const conditional = [takeProfit.orderId, stopLoss.orderId, trailing.orderId].sort();
  const active = ok(await lee.get(`/account/orders?${sub(lee)}&status=active`));
  [...active.asks, ...active.bids].forEach(assertOrderShape);
  assert.deepEqual(ids(active), conditional);
  assert.deepEqual(ids(ok(await lee.get(`/account/orders?${sub(lee)}&status=open`))), []);
  assert.deepEqual(ids(ok(await lee.get(`/account/orders?${sub(lee)}&orderType=takeProfit,stopLoss`))), [takeProfit.orderId, stopLoss.orderId].sort());
  assert.deepEqual(ids(ok(await lee.get(`/account/orders?${sub(lee)}&orderType=trailingStop`))), [trailing.orderId]);
  assertOrderShape(ok(await lee.get(`/account/order?orderId=${trailing.orderId}`)));

  const cancelled = ok(await lee.send('DELETE', `/account/order?orderId=${trailing.orderId}`));
  assertOrderShape(cancelled);
  assert.equal(cancelled.status, 'cancelled');
  const closed = ok(await lee.get(`/account/orders?${sub(lee)}&status=closed`));
  [...closed.asks, ...closed.bids].forEach(assertOrderShape);
  assert.ok(ids(closed).includes(trailing.orderId));
  assert.equal(ok(await lee.get(`/account/orders?${sub(lee)}&status=closed&orderType=trailingStop`)).asks[0].trailingPercent, '0.05');
});
