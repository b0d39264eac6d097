import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Side } from '../../src/engine/types.ts';
import { openTempHistory } from '../history/temp-store.ts';
import { BROKEN_HISTORY, DEMO_MARKETS, startTestGateway } from './server.ts';
import { marketNo } from '../fixtures/ids.ts';

const T0 = Date.UTC(2024, 2, 10, 12, 0, 0);

/** 120 ETH trades (tick 0.01, lot 0.001), one every 1.5 s from T0; trade i at price 3500 + i cents. */
async function serverWithTrades() {
  const h = openTempHistory();
  h.write((w) => {
    for (let i = 0; i < 120; i++) {
      w.onTrade({ marketIndex: marketNo(1), seq: 10 + 2 * i, time: T0 + 1500 * i, price: 350_000 + i, quantity: 1000 + i, takerSide: i % 3 === 0 ? Side.Sell : Side.Buy });
    }
  });
  return startTestGateway(DEMO_MARKETS, { history: h.reader });
}

type Trade = { price: string; quantity: string; symbol: string; side: string; time: number };

test('GET /trades/{symbol}: newest first, default limit 100, decimals as strings, time in seconds', async () => {
  const server = await serverWithTrades();
  const res = await server.get('/trades/ETH-USD-PERP');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const trades = res.json() as Trade[];
  assert.equal(trades.length, 100);
  assert.deepEqual(trades[0], { price: '3501.19', quantity: '1.119', symbol: 'ETH-USD-PERP', side: 'buy', time: Math.floor((T0 + 1500 * 119) / 1000) });
  assert.deepEqual(trades[1], { price: '3501.18', quantity: '1.118', symbol: 'ETH-USD-PERP', side: 'buy', time: Math.floor((T0 + 1500 * 118) / 1000) });
  assert.equal(trades[2].side, 'sell');
  assert.equal(trades[99].price, '3500.2');
  assert.equal((await server.get('/trades/ETH')).status, 200);
});

test('GET /trades/{symbol}: from (ms) on or after, to (ms) before, limit 1..5000', async () => {
  const server = await serverWithTrades();
  const prices = async (query: string) => ((await server.get(`/trades/ETH-USD-PERP?${query}`)).json() as Trade[]).map((t) => t.price);
  assert.deepEqual(await prices(`from=${T0 + 1500 * 117}`), ['3501.19', '3501.18', '3501.17']);
  assert.deepEqual(await prices(`from=${T0 + 1500 * 117 + 1}`), ['3501.19', '3501.18']);
  assert.deepEqual(await prices(`to=${T0 + 1500 * 2}`), ['3500.01', '3500']);
  assert.deepEqual(await prices(`from=${T0}&to=${T0 + 1500 * 10}&limit=2`), ['3500.09', '3500.08']);
  assert.equal((await prices('limit=5000')).length, 120);
  assert.deepEqual(await prices('limit=1'), ['3501.19']);
  assert.deepEqual(await prices('from=0&to=0'), []);
  assert.deepEqual((await server.get('/trades/BTC-USD-PERP')).json(), []);
});

test('GET /trades/{symbol} refuses a limit outside 1..5000 with the spec text', async () => {
  const server = await serverWithTrades();
  for (const limit of ['0', '5001', '-1', 'ten', '']) {
    const res = await server.get(`/trades/ETH-USD-PERP?limit=${limit}`);
    assert.equal(res.status, 400, limit);
    assert.equal(res.text, `Limit must be between 1 and 5000, got ${limit}`);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  }
});

test('GET /trades/{symbol} refuses a negative or non-integer from/to', async () => {
  const server = await serverWithTrades();
  for (const [name, value] of [['from', '-5'], ['to', '-1'], ['from', 'abc']]) {
    const res = await server.get(`/trades/ETH-USD-PERP?${name}=${value}`);
    assert.equal(res.status, 400);
    assert.equal(res.text, `${name} must be an integer >= 0 (milliseconds), got ${value}`);
  }
});

test('GET /trades/{symbol} answers 404 Symbol not found', async () => {
  const server = await serverWithTrades();
  for (const symbol of ['DOGE-USD-PERP', 'eth-usd-perp', 'ETH-USD']) {
    const res = await server.get(`/trades/${symbol}`);
    assert.equal(res.status, 404, symbol);
    assert.equal(res.text, 'Symbol not found');
  }
});

test('GET /trades/{symbol} answers 500 when the database fails', async () => {
  const server = await startTestGateway(DEMO_MARKETS, { history: BROKEN_HISTORY });
  const res = await server.get('/trades/ETH-USD-PERP');
  assert.equal(res.status, 500);
  assert.equal(res.text, 'Internal server error: Database connection failed');
});
