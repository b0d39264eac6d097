import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Side } from '../../src/engine/types.ts';
import { openTempHistory } from '../history/temp-store.ts';
import { BROKEN_HISTORY, DEMO_MARKETS, NOW, startTestGateway } from './server.ts';
import { marketNo } from '../fixtures/ids.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** BTC (tick 0.1, lot 0.0001) traded a day and a half ago, then three times in the last 24h; ETH never. */
async function serverWithHistory() {
  const h = openTempHistory();
  h.write((w) => {
    w.onTrade({ marketIndex: marketNo(0), seq: 1, time: NOW - DAY - 12 * 60 * MINUTE, price: 900_000, quantity: 50, takerSide: Side.Buy });
    w.onTrade({ marketIndex: marketNo(0), seq: 4, time: NOW - 20 * 60 * MINUTE, price: 950_000, quantity: 10_000, takerSide: Side.Buy });
    w.onTrade({ marketIndex: marketNo(0), seq: 9, time: NOW - 5 * MINUTE, price: 1_000_000, quantity: 20_000, takerSide: Side.Sell });
    w.onTrade({ marketIndex: marketNo(0), seq: 12, time: NOW - 1, price: 940_500, quantity: 5, takerSide: Side.Buy });
  });
  const prices = (marketIndex: number) => (marketIndex === 0 ? { mark: 940_612, index: 940_700 } : { mark: 0, index: 350_000 });
  return startTestGateway(DEMO_MARKETS, { history: h.reader, prices });
}

test('GET /price lists mark, index and last price per market; unknown ones are null', async () => {
  const server = await serverWithHistory();
  const res = await server.get('/price');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const body = res.json() as { time: number; prices: Record<string, unknown>[] };
  assert.equal(body.time, NOW / 1000);
  assert.deepEqual(body.prices[0], { symbol: 'BTC-USD-PERP', markPrice: '94061.2', indexPrice: '94070', lastPrice: '94050', indexHeld: false });
  assert.deepEqual(body.prices[1], { symbol: 'ETH-USD-PERP', markPrice: null, indexPrice: '3500', lastPrice: null, indexHeld: false });
  assert.equal(body.prices.length, 3);
});

test('GET /price?symbol= answers one market, 404 Symbol not found for an unknown one', async () => {
  const server = await serverWithHistory();
  const one = (await server.get('/price?symbol=BTC')).json() as { prices: { symbol: string }[] };
  assert.deepEqual(one.prices.map((p) => p.symbol), ['BTC-USD-PERP']);
  const res = await server.get('/price?symbol=DOGE-USD-PERP');
  assert.equal(res.status, 404);
  assert.equal(res.text, 'Symbol not found');
});

test('GET /summary gives each market its last 24 hours: open, high, low, close, volume, change, trades', async () => {
  const server = await serverWithHistory();
  const res = await server.get('/summary');
  assert.equal(res.status, 200);
  const body = res.json() as { time: number; markets: Record<string, unknown>[] };
  assert.equal(body.time, NOW / 1000);
  const openTime = (NOW - (NOW % MINUTE) + MINUTE - DAY) / 1000;
  assert.deepEqual(body.markets[0], {
    symbol: 'BTC-USD-PERP', open: '95000', high: '100000', low: '94050', close: '94050', lastPrice: '94050',
    volume: '3.0005', quoteVolume: '295047.025', change: '-950', changePercent: '-1', trades: 3, openTime,
  });
  assert.deepEqual(body.markets[1], {
    symbol: 'ETH-USD-PERP', open: null, high: null, low: null, close: null, lastPrice: null,
    volume: '0', quoteVolume: '0', change: '0', changePercent: '0', trades: 0, openTime,
  });
  const eth = (await server.get('/summary?symbol=ETH-USD-PERP')).json() as { markets: unknown[] };
  assert.equal(eth.markets.length, 1);
  assert.equal((await server.get('/summary?symbol=XRP')).text, 'Symbol not found');
});

test('GET /price and GET /summary answer 500 when the database fails', async () => {
  const server = await startTestGateway(DEMO_MARKETS, { history: BROKEN_HISTORY });
  for (const path of ['/price', '/summary']) {
    const res = await server.get(path);
    assert.equal(res.status, 500, path);
    assert.equal(res.text, 'Internal server error: Database connection failed');
  }
});
