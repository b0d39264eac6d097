import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ConfigError, findMarket, parseMarkets, priceToTicks, quantityToLots, ticksToPrice } from '../../src/config/market.ts';

const DEMO = JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8'));

function withBtc(change: Record<string, unknown>) {
  return { markets: [{ ...DEMO.markets[0], ...change }] };
}

test('the demo markets file parses into integer units', () => {
  const [btc, eth, sol] = parseMarkets(DEMO);
  assert.equal(btc.symbol, 'BTC-USD-PERP');
  assert.equal(btc.priceScale, 1);
  assert.equal(btc.tickUnits, 1n);
  assert.equal(btc.quantityScale, 4);
  assert.equal(btc.minSizeLots, 1);
  assert.equal(btc.initialMarginFraction, 2_000_000n);
  assert.equal(btc.makerFee, -10_000n);
  assert.equal(btc.marginTiers.length, 3);
  assert.equal(eth.index, 1);
  assert.equal(sol.maxLeverage, 20);
});

test('a bad field stops the start with a message naming the field and the value', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ tickSize: 'abc' }, /^markets\[0\]\.tickSize: must be a positive decimal string, got "abc"$/],
    [{ tickSize: '-0.1' }, /^markets\[0\]\.tickSize: .*got "-0.1"$/],
    [{ lotSize: 0.0001 }, /^markets\[0\]\.lotSize: must be a decimal string, got 0.0001$/],
    [{ minSize: '0.00015' }, /^markets\[0\]\.minSize: must be a positive multiple/],
    [{ maxLeverage: 2.5 }, /^markets\[0\]\.maxLeverage: must be an integer from 1 to 1000, got 2.5$/],
    [{ maintenanceMarginFraction: '0.03' }, /^markets\[0\]\.maintenanceMarginFraction: must be positive and below initialMarginFraction, got "0.03"$/],
    [{ initialMarginFraction: '0.01' }, /^markets\[0\]\.(initial|maintenance)MarginFraction/],
    [{ makerFee: '-0.001' }, /^markets\[0\]\.makerFee: rebate must not exceed takerFee/],
    [{ oracleFeedId: 'feed' }, /^markets\[0\]\.oracleFeedId: must be a 0x-prefixed hex string, got "feed"$/],
    [{ symbol: 'btc-usd' }, /^markets\[0\]\.symbol: must look like BASE-QUOTE-PERP/],
    [{ takerFee: '0.000000001' }, /^markets\[0\]\.takerFee: must be a decimal string with at most 8 decimals/],
    [{ initialPrice: '95000.05' }, /^markets\[0\]\.initialPrice: must be a positive multiple/],
  ];
  for (const [change, message] of cases) {
    assert.throws(() => parseMarkets(withBtc(change)), (e: unknown) => e instanceof ConfigError && message.test(e.message), JSON.stringify(change));
  }
  assert.throws(() => parseMarkets({ markets: [DEMO.markets[0], DEMO.markets[0]] }), /markets\[1\]\.symbol: must be unique/);
  assert.throws(() => parseMarkets({ markets: [] }), /markets: must list 1 to 4096 markets/);
  assert.throws(() => parseMarkets([]), /markets: must be an object with a "markets" array/);
});

test('prices and quantities convert exactly and refuse anything off the grid', () => {
  const [btc] = parseMarkets(DEMO);
  assert.equal(priceToTicks(btc, '95000.1'), 950_001);
  assert.equal(priceToTicks(btc, '95000.10'), 950_001);
  assert.equal(priceToTicks(btc, '95000.05'), 'offTick');
  assert.equal(priceToTicks(btc, '1e5'), 'notDecimal');
  assert.equal(priceToTicks(btc, '0'), 'outOfRange');
  assert.equal(priceToTicks(btc, '99999999999999999999'), 'outOfRange');
  assert.equal(quantityToLots(btc, '-0.0015'), -15);
  assert.equal(quantityToLots(btc, '0.00001'), 'offLot');
  assert.equal(ticksToPrice(btc, 950_001), '95000.1');
  assert.equal(findMarket(parseMarkets(DEMO), 'ETH')?.symbol, 'ETH-USD-PERP');
  assert.equal(findMarket(parseMarkets(DEMO), 'eth'), undefined);
});
