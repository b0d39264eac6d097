/**
 * What a new markets file changes against the markets a data directory was built under
 * (config/market-changes), and the markets file the data directory keeps of them
 * (config/market `marketsFileOf`, read back by `parseMarkets`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { marketsFileOf, parseMarkets } from '../../src/config/market.ts';
import { diffMarkets } from '../../src/config/market-changes.ts';

type Entry = Record<string, unknown>;
const FILE: { markets: Entry[] } = JSON.parse(readFileSync(fileURLToPath(new URL('../../config/markets.json', import.meta.url)), 'utf8'));
const [BTC, ETH, SOL] = FILE.markets;
const specs = (...markets: Entry[]) => parseMarkets({ markets });
const IN_USE = specs(BTC, ETH, SOL);

test('the markets file kept of the markets in use reads back to the same markets', () => {
  assert.deepEqual(parseMarkets(JSON.parse(JSON.stringify(marketsFileOf(IN_USE)))), IN_USE);
  const tiered = specs({ ...BTC, maxOriginatorFee: '0.0002', makerFee: '-0.00015', marginTiers: [{ notionalFloor: '250000.5', initialMarginFraction: '0.05', maintenanceMarginFraction: '0.03' }] });
  assert.deepEqual(parseMarkets(JSON.parse(JSON.stringify(marketsFileOf(tiered)))), tiered);
});

test('the same markets, or only the testnet feed’s start and the oracle id changed: nothing to say', () => {
  assert.deepEqual(diffMarkets(IN_USE, specs(BTC, ETH, SOL)), { refusal: null, parameters: [], added: [] });
  assert.deepEqual(diffMarkets(IN_USE, specs({ ...BTC, initialPrice: '100000', oracleFeedId: '0xabc' }, ETH, SOL)), { refusal: null, parameters: [], added: [] });
});

test('markets that changed places, one left out, a tickSize or a lotSize changed: refused', () => {
  assert.match(diffMarkets(IN_USE, specs(ETH, BTC, SOL)).refusal!, /^ETH-USD-PERP is market 0 in the markets file \(its place in the list\), where this data directory has BTC-USD-PERP \(now market 1\)/);
  assert.match(diffMarkets(IN_USE, specs(BTC, SOL)).refusal!, /^SOL-USD-PERP is market 1 in the markets file .* where this data directory has ETH-USD-PERP \(missing from the file\)/);
  assert.match(diffMarkets(IN_USE, specs(BTC, ETH)).refusal!, /^SOL-USD-PERP \(market 2\) is missing from the markets file/);
  assert.match(diffMarkets(IN_USE, specs({ ...BTC, tickSize: '0.5' }, ETH, SOL)).refusal!, /^BTC-USD-PERP has tickSize "0\.5" in the markets file, where this data directory's prices are in ticks of "0\.1"/);
  assert.equal(diffMarkets(IN_USE, specs({ ...BTC, tickSize: '0.10' }, ETH, SOL)).refusal, null, '"0.10" is the tick "0.1" is');
  assert.match(diffMarkets(IN_USE, specs(BTC, { ...ETH, lotSize: '0.01', minSize: '0.01' }, SOL)).refusal!, /^ETH-USD-PERP has lotSize "0\.01" in the markets file/);
});

test('parameters that change outcomes are listed, as the markets file writes them; markets appended are listed apart', () => {
  const diff = diffMarkets(IN_USE, specs({ ...BTC, takerFee: '0.0006', marginTiers: [] }, { ...ETH, maxLeverage: 20, initialMarginFraction: '0.05' }, SOL, { ...SOL, symbol: 'DOGE-USD-PERP', oracleFeedId: '0x01' }));
  assert.equal(diff.refusal, null);
  assert.deepEqual(diff.parameters, [
    'BTC-USD-PERP marginTiers 1000000: 0.04/0.024, 10000000: 0.1/0.06 → none',
    'BTC-USD-PERP takerFee 0.0005 → 0.0006',
    'ETH-USD-PERP maxLeverage 50 → 20',
    'ETH-USD-PERP initialMarginFraction 0.02 → 0.05',
  ]);
  assert.deepEqual(diff.added, ['DOGE-USD-PERP']);
});
