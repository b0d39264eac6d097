import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Side } from '../../src/engine/types.ts';
import { openTempHistory } from '../history/temp-store.ts';
import { BROKEN_HISTORY, DEMO_MARKETS, startTestGateway } from './server.ts';
import { marketNo } from '../fixtures/ids.ts';

const MINUTE = 60_000;
const T0 = Date.UTC(2024, 2, 10, 12, 0, 0);

/** BTC (tick 0.1, lot 0.0001): five minutes with one or two trades each, and a funding rate. */
async function serverWithCandles() {
  const h = openTempHistory();
  h.write((w) => {
    w.onFundingRate({ marketIndex: marketNo(0), time: T0 - 1, rate: 12_500n }); // 0.000125
    let seq = 0;
    for (let i = 0; i < 5; i++) {
      w.onTrade({ marketIndex: marketNo(0), seq: ++seq, time: T0 + i * MINUTE + 500, price: 950_000 + i, quantity: 10_000, takerSide: Side.Buy });
      w.onTrade({ marketIndex: marketNo(0), seq: ++seq, time: T0 + i * MINUTE + 40_000, price: 949_990 + i, quantity: 5, takerSide: Side.Sell });
    }
  });
  return startTestGateway(DEMO_MARKETS, { history: h.reader });
}

test('GET /candles/{symbol}: 1m by default, ascending, decimals as strings, time in seconds', async () => {
  const server = await serverWithCandles();
  const res = await server.get('/candles/BTC-USD-PERP');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const candles = res.json() as Record<string, unknown>[];
  assert.equal(candles.length, 5);
  assert.deepEqual(candles[0], {
    time: T0 / 1000, open: '95000', high: '95000', low: '94999', close: '94999', volume: '1.0005', funding_rate: '0.000125',
  });
  assert.deepEqual(candles.map((c) => c.time), [0, 1, 2, 3, 4].map((i) => (T0 + i * MINUTE) / 1000));
});

test('GET /candles/{symbol}?interval=1h aggregates the hour; a bare base symbol names the market', async () => {
  const server = await serverWithCandles();
  const res = await server.get('/candles/BTC?interval=1h');
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), [{ time: T0 / 1000, open: '95000', high: '95000.4', low: '94999', close: '94999.4', volume: '5.0025', funding_rate: '0.000125' }]);
  assert.deepEqual((await server.get('/candles/ETH-USD-PERP?interval=1d')).json(), []);
});

test('GET /candles/{symbol}: from (ms) on or after, to (ms) before, limit keeps the newest', async () => {
  const server = await serverWithCandles();
  const times = async (query: string) => ((await server.get(`/candles/BTC-USD-PERP?${query}`)).json() as { time: number }[]).map((c) => (c.time * 1000 - T0) / MINUTE);
  assert.deepEqual(await times(`from=${T0 + MINUTE}&to=${T0 + 4 * MINUTE}`), [1, 2, 3]);
  assert.deepEqual(await times(`from=${T0 + MINUTE + 1}`), [2, 3, 4]);
  assert.deepEqual(await times('limit=2'), [3, 4]);
  assert.deepEqual(await times(`to=${T0 + 3 * MINUTE}&limit=1`), [2]);
  assert.deepEqual(await times('limit=5000&interval=1m'), [0, 1, 2, 3, 4]);
});

test('GET /candles/{symbol} refuses an unknown interval, listing the allowed ones', async () => {
  const server = await serverWithCandles();
  for (const interval of ['1H', '2m', '1w', '', '60']) {
    const res = await server.get(`/candles/BTC-USD-PERP?interval=${interval}`);
    assert.equal(res.status, 400, interval);
    assert.equal(res.text, `Interval must be one of 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, got ${interval}`);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  }
});

test('GET /candles/{symbol} refuses a limit outside 1..5000 with the spec text', async () => {
  const server = await serverWithCandles();
  for (const limit of ['0', '5001', '-3', 'abc', '2.5', '1e3']) {
    const res = await server.get(`/candles/BTC-USD-PERP?limit=${limit}`);
    assert.equal(res.status, 400, limit);
    assert.equal(res.text, `Limit must be between 1 and 5000, got ${limit}`);
  }
});

test('GET /candles/{symbol} refuses from/to that are not integers >= 0', async () => {
  const server = await serverWithCandles();
  for (const [name, value] of [['from', '-1'], ['to', 'yesterday'], ['from', '1.5'], ['to', '1e12']]) {
    const res = await server.get(`/candles/BTC-USD-PERP?${name}=${value}`);
    assert.equal(res.status, 400, `${name}=${value}`);
    assert.equal(res.text, `${name} must be an integer >= 0 (milliseconds), got ${value}`);
  }
});

test('GET /candles/{symbol} answers 404 Market <symbol> not found', async () => {
  const server = await serverWithCandles();
  for (const symbol of ['DOGE-USD-PERP', 'btc']) {
    const res = await server.get(`/candles/${symbol}`);
    assert.equal(res.status, 404);
    assert.equal(res.text, `Market ${symbol} not found`);
  }
});

test('GET /candles/{symbol} answers 500 when the database fails', async () => {
  const server = await startTestGateway(DEMO_MARKETS, { history: BROKEN_HISTORY });
  const res = await server.get('/candles/BTC-USD-PERP');
  assert.equal(res.status, 500);
  assert.equal(res.text, 'Internal server error: Database connection failed');
});
