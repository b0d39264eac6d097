/**
 * Every public route that takes query parameters reads them with the one strict parser
 * (http/query): a parameter it does not declare, or one given twice, is a 400 naming it —
 * `GET /book/BTC-USD-PERP?dept=5` must not silently answer 100 levels.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseMarkets } from '../../src/config/market.ts';
import { PROFILES } from '../../src/config/profile.ts';
import type { MarketDataPort } from '../../src/http/ports.ts';
import { startTestGateway } from './server.ts';

const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));
const EMPTY_BOOK = { sequence: 1, depth: () => [] };
const port: MarketDataPort = { profile: PROFILES.testnet, markets, book: () => EMPTY_BOOK, typedData: () => ({}) };

const CASES: { path: string; allowed: string }[] = [
  { path: '/book/BTC-USD-PERP?', allowed: 'depth, tickSize' },
  { path: '/orderbook?symbol=BTC-USD-PERP&', allowed: 'symbol, depth, tickSize' },
  { path: '/trades/BTC-USD-PERP?', allowed: 'limit, from, to, cursor' },
  { path: '/candles/BTC-USD-PERP?', allowed: 'interval, from, to, limit' },
  { path: '/price?', allowed: 'symbol' },
  { path: '/summary?', allowed: 'symbol' },
];

test('a parameter a public route does not take is a 400 naming it and the ones it does', async () => {
  const server = await startTestGateway(port);
  for (const { path, allowed } of CASES) {
    const res = await server.get(`${path}dept=5`);
    assert.deepEqual([res.status, res.text], [400, `Unknown query parameter dept; allowed: ${allowed}`], path);
  }
});

test('a public parameter given twice is a 400, not the first or the last one', async () => {
  const server = await startTestGateway(port);
  const twice = await server.get('/book/BTC-USD-PERP?depth=5&depth=10');
  assert.deepEqual([twice.status, twice.text], [400, 'Query parameter depth given more than once']);
  const symbolTwice = await server.get('/price?symbol=BTC&symbol=ETH');
  assert.deepEqual([symbolTwice.status, symbolTwice.text], [400, 'Query parameter symbol given more than once']);
});

test('declared parameters still work, and an unknown market is named before the query is read', async () => {
  const server = await startTestGateway(port);
  assert.equal((await server.get('/book/BTC-USD-PERP?depth=5&tickSize=0.1')).status, 200);
  assert.equal((await server.get('/orderbook?symbol=BTC&depth=5')).status, 200);
  assert.equal((await server.get('/book/BTC-USD-PERP')).status, 200);
  const unknown = await server.get('/book/NOPE-USD-PERP?dept=5');
  assert.deepEqual([unknown.status, unknown.text], [404, 'Symbol not found']);
  const missing = await server.get('/orderbook?depth=5');
  assert.deepEqual([missing.status, missing.text], [400, 'Missing query parameter symbol']);
});
