import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, harness, usd } from './fixtures.ts';
import { markOf, newPrices, premiumSample, samplePremium } from '../../src/ledger/mark-price.ts';

test('premium sample: zero while the book straddles the index; a missing side contributes nothing', () => {
  assert.equal(premiumSample(100, 99, 101), 0n);
  assert.equal(premiumSample(100, 102, 103), 2_000_000n);
  assert.equal(premiumSample(100, 97, 98), -2_000_000n);
  assert.equal(premiumSample(100, 0, 98), -2_000_000n);
  assert.equal(premiumSample(100, 101, 0), 1_000_000n);
  assert.equal(premiumSample(0, 101, 102), 0n);
});

test('mark = median(index·(1 + EMA premium), mid, last)', () => {
  const p = newPrices();
  assert.equal(markOf(p), 0);
  p.index = 100;
  assert.equal(markOf(p), 100, 'index alone');
  samplePremium(p, 110, 112); // sample +10 % → EMA 1 % → index leg 101; mid 111; no last
  assert.equal(p.premiumEma, 1_000_000n);
  assert.equal(p.mark, 101, 'without a last trade the index leg is used');
  p.last = 105;
  assert.equal(markOf(p), 105, 'median(101, 111, 105)');
  p.last = 200;
  assert.equal(markOf(p), 111);
  p.last = 50;
  assert.equal(markOf(p), 101);
});

test('unrealized PnL follows the mark', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000);
  assert.equal(h.ledger.prices(BTC).mark, 100, 'last trade alone');
  h.ledger.setIndexPrice(BTC, 110, 1);
  assert.equal(h.ledger.stats(alice)!.upnl, usd(10));
  assert.equal(h.ledger.stats(bob)!.upnl, -usd(10));
});

test('with a band the mark stays within index·(1 ± band), rounded inward', () => {
  const p = newPrices();
  p.index = 100;
  samplePremium(p, 110, 112, 2_500_000n); // mid 111, index leg 101
  assert.equal(p.mark, 101, 'inside the band: unchanged');
  p.last = 200;
  assert.equal(markOf(p, 2_500_000n), 102, 'median 111 held at ⌊102.5⌋');
  p.last = 1;
  p.bid = 1;
  p.ask = 1;
  assert.equal(markOf(p, 2_500_000n), 98, 'median 1 held at ⌈97.5⌉');
});
