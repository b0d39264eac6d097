/**
 * Walking a long history page by page: GET /account/fills, /account/orders, /trades/{symbol}
 * and /account/transfer/history answer `X-Next-Cursor` on a full page, and sending it back as `cursor` gives the entries that
 * follow — over 1,100 fills, trades and orders, the pages joined are exactly the whole listing
 * read at once, newest first, with no gap and no repeat.
 *
 * Why it matters: each taker order here fills against a hundred makers in one millisecond, so
 * paging by `to` = the oldest time received cannot say where a page ended inside that
 * millisecond (a page of 50 never got past it).
 *
 * The 1,111 orders are signed natively over the exchange's own EIP-712 digest
 * (bench/http/traders.ts), checked to be viem's very signature on a sample first: signing them
 * with viem took 4 of this file's 12 seconds, and signing is not what is tested here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders, type OrderFields, type Trader } from '../harness/traders.ts';
import { assertError, BTC, signedTransfer, sub } from '../harness/api-helpers.ts';
import { caughtUp } from '../harness/conditional-helpers.ts';
import { checkSignerAgainstViem, openAccounts, signOrder, type BenchTrader } from '../../bench/http/traders.ts';
import { eip712Domain } from '../../src/auth/typed-data.ts';
import { PROFILES } from '../../src/config/profile.ts';

const DOMAIN = eip712Domain(PROFILES.testnet);

/** POST /account/orders with `orders` signed natively (see the header). */
function submitBatch(bt: BenchTrader, orders: OrderFields[]) {
  const bodies = orders.map((o) => signOrder(DOMAIN, bt, o).body);
  return bt.trader.send('POST', '/account/orders', `{"orders":[${bodies.join(',')}]}`);
}

const ROUNDS = 11;
const MAKERS_PER_ROUND = 100;

/** Every page of `path` (its query without `cursor`), following `X-Next-Cursor` until a page comes without one. */
async function walk(read: (path: string) => Promise<{ status: number; text: string; headers: Headers; json(): any }>, path: string, entries: (body: any) => unknown[]): Promise<unknown[]> {
  const all: unknown[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const r = await read(cursor === null ? path : `${path}&cursor=${cursor}`);
    assert.equal(r.status, 200, r.text);
    all.push(...entries(r.json()));
    cursor = r.headers.get('x-next-cursor');
    if (cursor === null) return all;
  }
  throw new Error('the walk never ended');
}

test('fills, orders and trades walked 50 to 70 at a time by X-Next-Cursor are the whole listing, without gaps or repeats', async () => {
  const ex = await startInProcessExchange();
  const [makerKeys, takerKeys] = await openAccounts(ex, 2, '100000000', 1);
  await checkSignerAgainstViem(DOMAIN, makerKeys!, { price: '95000', quantity: '-0.001' });
  const [maker, taker] = [makerKeys!.trader, takerKeys!.trader];
  for (let round = 0; round < ROUNDS; round++) {
    const asks = await submitBatch(makerKeys!, Array.from({ length: MAKERS_PER_ROUND }, (_, i) => ({ orderType: 'limit', price: String(95000 + i / 10), quantity: '-0.001' })));
    assert.equal(asks.status, 200, asks.text);
    const take = await taker.send('POST', '/account/order', signOrder(DOMAIN, takerKeys!, { orderType: 'limit', price: '96000', quantity: String(MAKERS_PER_ROUND / 1000), ioc: true }).body);
    assert.equal(take.json()[0].status, 'filled');
  }
  await caughtUp(ex);
  const total = ROUNDS * MAKERS_PER_ROUND;

  const fills = (await taker.get(`/account/fills?${sub(taker)}&limit=5000`)).json();
  assert.equal(fills.length, total);
  assert.deepEqual(await walk((p) => taker.get(p), `/account/fills?${sub(taker)}&limit=50`, (b) => b), fills);

  const trades = (await ex.request('GET', `/trades/${BTC}?limit=5000`)).json();
  assert.equal(trades.length, total);
  assert.deepEqual(await walk((p) => ex.request('GET', p), `/trades/${BTC}?limit=70`, (b) => b), trades);

  const ids = (list: any) => [...list.bids, ...list.asks].map((o: any) => o.orderId);
  const orders = await walk((p) => maker.get(p), `/account/orders?${sub(maker)}&limit=50`, ids);
  assert.equal(new Set(orders).size, total, 'every order of the maker once');
  assert.equal(orders.length, total);
  const created = await walk((p) => maker.get(p), `/account/orders?${sub(maker)}&limit=60&createdFrom=0`, ids);
  assert.deepEqual([...created].sort(), [...orders].sort());
});

test('the last page has no X-Next-Cursor; a cursor that is not one is refused', async () => {
  const ex = await startInProcessExchange();
  const [trader]: Trader[] = await fundedTraders(ex, 1, '1000');
  const r = await trader.get(`/account/fills?${sub(trader)}&limit=5`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('x-next-cursor'), null);
  assertError(await trader.get(`/account/fills?${sub(trader)}&cursor=abc`), 400, 'cursor must be the X-Next-Cursor header of a previous page of this listing, got abc');
  assertError(await ex.request('GET', `/trades/${BTC}?cursor=1.2.3`), 400, 'cursor must be the X-Next-Cursor header of a previous page of this listing, got 1.2.3');
  assertError(await trader.get(`/account/orders?${sub(trader)}&cursor=-1.5`), 400, 'cursor must be the X-Next-Cursor header of a previous page of this listing, got -1.5');
});

test('transfer history walked 7 at a time by X-Next-Cursor is the whole listing', async () => {
  const ex = await startInProcessExchange();
  const [trader]: Trader[] = await fundedTraders(ex, 1, '1000');
  for (let i = 0; i < 40; i++) {
    const r = await trader.send('POST', '/account/transfer', await signedTransfer(trader, { accountTo: trader.address, subaccountIndexTo: 1 + (i % 2), amount: '1' }));
    assert.equal(r.status, 200, r.text);
  }
  const all = (await trader.get(`/account/transfer/history?${sub(trader)}&limit=5000`)).json().transfers;
  assert.equal(all.length, 40);
  assert.deepEqual(await walk((p) => trader.get(p), `/account/transfer/history?${sub(trader)}&limit=7`, (b) => b.transfers), all);
});
