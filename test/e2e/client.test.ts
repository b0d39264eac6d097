/**
 * The client (src/client) against a real exchange, as a user's program uses it: log in, take
 * faucet funds, place, list and cancel; refusals come back as `ExchangeError` with the status,
 * the exchange's text and its headers; orders signed concurrently get distinct nonces and are
 * all accepted; a token near its expiry is renewed before it is used; a JSON-RPC wallet (viem
 * wallet client over a transport) signs as a private key does; a feed that loses its connection
 * reconnects and resumes its private channel with every numbered event exactly once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { createWalletClient, custom, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ExchangeClient, ExchangeError, accountChannel, type FeedMessage, type WebSocketLike } from '../../src/client/index.ts';
import { startTestExchange } from './harness.ts';
import { BTC, ORDER_ID } from '../harness/api-helpers.ts';

const ex = await startTestExchange();

async function newTrader(key: Hex = generatePrivateKey()): Promise<ExchangeClient> {
  const client = new ExchangeClient({ url: ex.url, wallet: privateKeyToAccount(key) });
  await client.login();
  await client.faucet();
  return client;
}

test('log in, faucet, place, list and cancel through the client', async () => {
  const me = await newTrader();
  assert.equal((await me.balance()).collateral, '10000');
  const placed = await me.placeOrder({ symbol: BTC, price: '90000', quantity: '0.001', postOnly: true });
  assert.match(placed.orderId, ORDER_ID);
  assert.equal(placed.status, 'new');
  const { bids } = await me.orders({ status: 'open' });
  assert.deepEqual(bids.map((o) => o.orderId), [placed.orderId]);
  assert.equal((await me.cancelOrder({ orderId: placed.orderId })).status, 'cancelled');
});

test('refusals are ExchangeError with the status, the exchange’s text and its headers', async () => {
  const me = await newTrader();
  await assert.rejects(me.book('NOPE-USD-PERP'), (e: unknown) => e instanceof ExchangeError && e.status === 404 && e.message === 'Symbol not found');
  const signed = await me.signOrder({ symbol: BTC, price: '90000', quantity: '0.001' });
  await assert.rejects(me.placeOrder({ ...signed, price: '90001' }), (e: unknown) => {
    assert.ok(e instanceof ExchangeError);
    assert.equal(e.status, 400);
    assert.equal(e.message, 'Invalid signature');
    assert.match(e.headers.get('x-signed-message') ?? '', /"price":"90001"/, 'the message the server hashed');
    return true;
  });
});

test('an orderType in any letter case (LIMIT, Limit, limit) is signed as the exchange hashes it and accepted', async () => {
  // The exchange accepts orderType case-insensitively and hashes it in lowerCamel (GET /config
  // `signing`); a client that only lowered the first letter signed "lIMIT" and was refused.
  const me = await newTrader();
  for (const orderType of ['LIMIT', 'Limit', 'limit']) {
    const placed = await me.placeOrder({ symbol: BTC, orderType, price: '90000', quantity: '0.001', postOnly: true });
    assert.equal(placed.orderType, 'limit', orderType);
  }
});

test('orders signed concurrently get distinct, increasing nonces and are all accepted', async () => {
  const me = await newTrader();
  const placed = await Promise.all(Array.from({ length: 30 }, (_, i) => me.placeOrder({ symbol: BTC, price: String(80000 + i), quantity: '0.0001', postOnly: true })));
  assert.equal(new Set(placed.map((o) => o.nonce)).size, 30);
  assert.equal((await me.orders({ status: 'open', limit: 500 })).total, 30);
});

test('a token within a minute of its expiry is renewed before it is used', async () => {
  const key = generatePrivateKey();
  const old = (await newTrader(key)).session!;
  const reused = new ExchangeClient({ url: ex.url, wallet: privateKeyToAccount(key), session: { ...old } });
  await reused.stats();
  assert.equal(reused.session!.token, old.token, 'a token with time left is used as it is');
  const expiring = new ExchangeClient({ url: ex.url, wallet: privateKeyToAccount(key), session: { token: old.token, expiresAt: Date.now() + 30_000 } });
  await expiring.stats();
  assert.notEqual(expiring.session!.token, old.token, 'logged in again first');
  assert.ok(expiring.session!.expiresAt > Date.now() + 14 * 60_000);
});

test('a JSON-RPC wallet (viem wallet client) logs in and signs orders', async () => {
  // The "wallet" behind the transport: answers personal_sign and eth_signTypedData_v4 as a browser wallet does.
  const key = privateKeyToAccount(generatePrivateKey());
  const transport = custom({
    async request({ method, params }: { method: string; params: unknown[] }) {
      if (method === 'personal_sign') return key.signMessage({ message: { raw: params[0] as Hex } });
      if (method === 'eth_signTypedData_v4') {
        const { domain, types, primaryType, message } = JSON.parse(params[1] as string);
        delete types.EIP712Domain;
        return key.signTypedData({ domain, types, primaryType, message });
      }
      throw new Error(`unexpected ${method}`);
    },
  });
  const me = new ExchangeClient({ url: ex.url, wallet: createWalletClient({ account: key.address, transport }) });
  await me.login();
  await me.faucet();
  const placed = await me.placeOrder({ symbol: BTC, price: '90000', quantity: '0.001', postOnly: true });
  assert.equal(placed.account, key.address.toLowerCase());
});

test('a feed that loses its connection reconnects and resumes: every numbered event once', async () => {
  const me = await newTrader();
  const sockets: WebSocket[] = [];
  // The same session, with a WebSocket factory that keeps the sockets so the test can cut one.
  const webSocket = (url: string) => {
    const socket = new WebSocket(url);
    sockets.push(socket);
    return socket as unknown as WebSocketLike;
  };
  const client = new ExchangeClient({ url: ex.url, session: me.session, webSocket });
  const events: FeedMessage[] = [];
  const live = client.feed();
  const channel = accountChannel(me.address);
  live.onMessage((m) => {
    if (m.channel === channel && (m.type === 'order' || m.type === 'fill' || m.type === 'position' || m.type === 'balance')) events.push(m);
  });
  const waitFor = async (what: string, done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(done(), what);
  };
  live.subscribe([channel], 0);
  await waitFor('the faucet credit, from history', () => events.some((e) => e.type === 'balance'));
  await me.placeOrder({ symbol: BTC, price: '90000', quantity: '0.001', postOnly: true });
  await waitFor('the first order', () => events.filter((e) => e.type === 'order').length === 1);
  sockets[0].terminate(); // the connection drops
  await me.placeOrder({ symbol: BTC, price: '90001', quantity: '0.001', postOnly: true }); // while it is down
  await waitFor('a second connection', () => sockets.length === 2);
  await me.placeOrder({ symbol: BTC, price: '90002', quantity: '0.001', postOnly: true });
  await waitFor('three orders', () => events.filter((e) => e.type === 'order').length === 3);
  live.close();
  const numbers = events.map((e) => e.sequence);
  assert.deepEqual(numbers, numbers.map((_, i) => i + 1), 'numbered 1, 2, 3… with no gap and no repeat');
  assert.equal(live.lastSequence(channel), numbers.at(-1));
});

test('a feed whose reconnects fail says closed once, then open once it is back', async () => {
  const me = await newTrader();
  const sockets: WebSocket[] = [];
  let refused = 0;
  // After the drop, two attempts reach nothing (a port no server listens on), then the exchange again.
  const webSocket = (url: string) => {
    const target = sockets.length === 1 && refused < 2 ? (refused++, 'ws://127.0.0.1:1/ws') : url;
    const socket = new WebSocket(target);
    if (target === url) sockets.push(socket);
    return socket as unknown as WebSocketLike;
  };
  const live = new ExchangeClient({ url: ex.url, session: me.session, webSocket }).feed();
  const states: string[] = [];
  live.onState((state) => states.push(state));
  await live.ready;
  sockets[0].terminate();
  for (let i = 0; i < 400 && sockets.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
  for (let i = 0; i < 200 && states.length < 3; i++) await new Promise((r) => setTimeout(r, 25));
  live.close();
  assert.equal(refused, 2, 'two reconnects failed');
  assert.deepEqual(states.slice(0, 3), ['open', 'closed', 'open']);
});

test('a feed whose first connections fail says closed once (the CLI exits on it), then open', async () => {
  const me = await newTrader();
  let refused = 0;
  const webSocket = (url: string) => new WebSocket(refused < 2 ? (refused++, 'ws://127.0.0.1:1/ws') : url) as unknown as WebSocketLike;
  const live = new ExchangeClient({ url: ex.url, session: me.session, webSocket }).feed();
  const states: string[] = [];
  live.onState((state) => states.push(state));
  await live.ready;
  live.close();
  assert.equal(refused, 2);
  assert.deepEqual(states.slice(0, 2), ['closed', 'open']);
});
