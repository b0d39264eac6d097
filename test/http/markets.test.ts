import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseMarkets } from '../../src/config/market.ts';
import { PROFILES } from '../../src/config/profile.ts';
import type { MarketDataPort } from '../../src/http/ports.ts';
import { startTestGateway } from './server.ts';

const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));
const port: MarketDataPort = {
  profile: PROFILES.testnet,
  markets,
  book: () => ({ sequence: 0, depth: () => [] }),
  typedData: () => ({ domain: { name: 'PerpExchange' } }),
};

test('GET /markets lists the demo markets with decimal-string parameters', async () => {
  const server = await startTestGateway(port);
  const res = await server.get('/markets');
  assert.equal(res.status, 200);
  const body = res.json() as { markets: Record<string, unknown>[] };
  assert.deepEqual(body.markets.map((m) => m.symbol), ['BTC-USD-PERP', 'ETH-USD-PERP', 'SOL-USD-PERP']);
  const btc = body.markets[0];
  assert.equal(btc.tickSize, '0.1');
  assert.equal(btc.lotSize, '0.0001');
  assert.equal(btc.maxLeverage, 50);
  assert.equal(btc.initialMarginFraction, '0.02');
  assert.equal(btc.makerFee, '-0.0001');
  assert.deepEqual(btc.tickSizeMultipliers, [1, 2, 5, 10, 100, 1000]);
  assert.deepEqual((btc.marginTiers as unknown[]).length, 3);
});

test('GET /config publishes the profile, chain and typed data clients sign with', async () => {
  const server = await startTestGateway(port);
  const body = (await server.get('/config')).json() as Record<string, unknown>;
  assert.equal(body.profile, 'testnet');
  assert.equal(body.chainId, PROFILES.testnet.chainId);
  assert.equal(body.verifyingContract, PROFILES.testnet.verifyingContract);
  assert.deepEqual(body.eip712, { domain: { name: 'PerpExchange' } });
  assert.equal((body.markets as unknown[]).length, 3);
});

test('GET /time answers the server clock in milliseconds', async () => {
  const server = await startTestGateway(port, { clock: () => 1_234_567 });
  assert.deepEqual((await server.get('/time')).json(), { serverTime: 1_234_567 });
});
