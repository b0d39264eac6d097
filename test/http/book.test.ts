import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseMarkets } from '../../src/config/market.ts';
import { PROFILES } from '../../src/config/profile.ts';
import { Side, type Level } from '../../src/engine/types.ts';
import type { BookReader, MarketDataPort } from '../../src/http/ports.ts';
import { startTestGateway } from './server.ts';

const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));

/** A book reader that records what it was asked for and answers fixed levels (in ticks and lots). */
class RecordingBook implements BookReader {
  sequence = 42;
  asked: { side: number; levels: number; tickMultiple: number }[] = [];
  depth(side: Side, levels: number, tickMultiple: number): Level[] {
    this.asked.push({ side, levels, tickMultiple });
    return side === Side.Sell
      ? [{ price: 950_001, quantity: 15 }, { price: 950_010, quantity: 20_000 }]
      : [{ price: 949_999, quantity: 1 }, { price: 949_000, quantity: 3 }];
  }
}

function port(book: RecordingBook): MarketDataPort {
  return { profile: PROFILES.testnet, markets, book: () => book, typedData: () => ({}) };
}

test('GET /book/{symbol} formats levels as decimals, asks first ascending, time in seconds', async () => {
  const book = new RecordingBook();
  const server = await startTestGateway(port(book));
  const res = await server.get('/book/BTC-USD-PERP?depth=2');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  assert.deepEqual(res.json(), {
    asks: [{ price: '95000.1', quantity: '0.0015' }, { price: '95001', quantity: '2' }],
    bids: [{ price: '94999.9', quantity: '0.0001' }, { price: '94900', quantity: '0.0003' }],
    sequence_number: 42,
    time: 1_700_000_000,
  });
  assert.deepEqual(book.asked, [{ side: Side.Sell, levels: 2, tickMultiple: 1 }, { side: Side.Buy, levels: 2, tickMultiple: 1 }]);
});

test('GET /book accepts a bare base symbol and the default depth', async () => {
  const book = new RecordingBook();
  const server = await startTestGateway(port(book));
  assert.equal((await server.get('/book/BTC')).status, 200);
  assert.equal(book.asked[0].levels, 100);
});

test('GET /book/{symbol} refuses an unknown symbol with 404 Symbol not found', async () => {
  const server = await startTestGateway(port(new RecordingBook()));
  for (const symbol of ['DOGE-USD-PERP', 'btc-usd-perp', 'BTC-USD']) {
    const res = await server.get(`/book/${symbol}`);
    assert.equal(res.status, 404, symbol);
    assert.equal(res.text, 'Symbol not found');
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  }
});

test('GET /book/{symbol} refuses a depth outside 1..5000 or not an integer', async () => {
  const server = await startTestGateway(port(new RecordingBook()));
  for (const depth of ['0', '5001', '-1', 'abc', '1e3', '2.5', '', '99999999999999999999']) {
    const res = await server.get(`/book/BTC-USD-PERP?depth=${encodeURIComponent(depth)}`);
    assert.equal(res.status, 400, `depth=${depth}`);
    assert.equal(res.text, 'Depth must be between 1 and 5000');
  }
  assert.equal((await server.get('/book/BTC-USD-PERP?depth=5000')).status, 200);
  assert.equal((await server.get('/book/BTC-USD-PERP?depth=1')).status, 200);
});

test('GET /book/{symbol} aggregates to tickSize multiples 1, 2, 5, 10, 100, 1000 only', async () => {
  const book = new RecordingBook();
  const server = await startTestGateway(port(book));
  for (const [tick, multiple] of [['0.1', 1], ['0.2', 2], ['0.5', 5], ['1', 10], ['10', 100], ['100.0', 1000]] as const) {
    book.asked = [];
    assert.equal((await server.get(`/book/BTC-USD-PERP?tickSize=${tick}`)).status, 200, tick);
    assert.equal(book.asked[0].tickMultiple, multiple, tick);
  }
  for (const tick of ['0.3', '0.05', '1000', '0', '-0.1', 'abc', '1e1']) {
    const res = await server.get(`/book/BTC-USD-PERP?tickSize=${tick}`);
    assert.equal(res.status, 400, tick);
    assert.equal(res.text, "tickSize must be the market's tick size 0.1 times 1, 2, 5, 10, 100 or 1000");
  }
});

test('unknown routes get 404 and known routes with another method 405', async () => {
  const server = await startTestGateway(port(new RecordingBook()));
  const missing = await server.get('/nope');
  assert.equal(missing.status, 404);
  assert.equal(missing.text, 'Route not found: /nope');
  const wrong = await server.request('POST', '/book/BTC-USD-PERP', '{}');
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get('allow'), 'GET, HEAD, OPTIONS');
});

test('GET /orderbook?symbol= answers the same snapshot as GET /book/{symbol}', async () => {
  const server = await startTestGateway(port(new RecordingBook()));
  const byPath = await server.get('/book/BTC-USD-PERP?depth=2');
  const byQuery = await server.get('/orderbook?symbol=BTC-USD-PERP&depth=2');
  assert.equal(byQuery.status, 200);
  assert.deepEqual(byQuery.json(), byPath.json());
  const missing = await server.get('/orderbook');
  assert.equal(missing.status, 400, 'a missing required parameter is a 400 naming it');
  assert.equal(missing.text, 'Missing query parameter symbol');
  const empty = await server.get('/orderbook?symbol=&depth=2');
  assert.equal(empty.status, 400);
  assert.equal(empty.text, 'Missing query parameter symbol');
  const unknown = await server.get('/orderbook?symbol=NOPE-USD-PERP');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.text, 'Symbol not found');
});
