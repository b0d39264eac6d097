import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, ETH, MARKETS, harness, usd } from './fixtures.ts';
import { fundingRate } from '../../src/ledger/funding.ts';

const HOUR = 3_600_000;

test('rate = clamp(avgPremium + clamp(interest − avgPremium, ±0.05 %), ±cap)', () => {
  assert.equal(fundingRate(MARKETS[BTC], 1_000_000n, 1), 950_000n, '1 % premium, 0 interest → 0.95 %');
  assert.equal(fundingRate(MARKETS[BTC], 0n, 0), 0n);
  assert.equal(fundingRate(MARKETS[ETH], 0n, 3), 10_000n, 'interest 0.01 % alone');
  assert.equal(fundingRate(MARKETS[BTC], 50_000_000n, 1), 4_000_000n, 'capped at 4 %');
  assert.equal(fundingRate(MARKETS[BTC], -50_000_000n, 1), -4_000_000n);
});

test('LONG_PAYS_SHORT_0.95_USD when the book trades 1 % above the index for an hour', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000);
  const [a0, b0] = [h.ledger.collateral(alice), h.ledger.collateral(bob)];
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.ledger.sampleFunding(BTC, 101, 102, 1000); // premium (101 − 100)/100 = 1 %
  h.ledger.sampleFunding(BTC, 101, 102, HOUR - 1);
  assert.equal(h.ledger.fundingHistory(BTC).length, 0);
  h.ledger.sampleFunding(BTC, 100, 101, HOUR);
  assert.deepEqual(h.ledger.fundingHistory(BTC), [{ time: HOUR, rate: 950_000n }]);
  assert.equal(h.ledger.collateral(alice), a0 - usd(0.95));
  assert.equal(h.ledger.collateral(bob), b0 + usd(0.95));
  assert.equal(h.ledger.positionOf(alice, BTC)!.funding, -usd(0.95));
  assert.equal(h.ledger.positionOf(bob, BTC)!.funding, usd(0.95));
  assert.deepEqual(h.ofType('fundingPayment').map((p) => [p.owner, p.amount]), [[bob, usd(0.95)], [alice, -usd(0.95)]]);
  h.ledger.validateInternalState();
});

test('SHORT_PAYS_LONG when the book is below the index; the payer rounds up, the dust goes to the fund', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 3); // 0.003 BTC
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.ledger.sampleFunding(BTC, 97, 98, 10); // premium −2 % → rate −1.95 %
  h.ledger.sampleFunding(BTC, 97, 98, HOUR);
  // notional 0.3 USD = 300000 units × 1.95 % = 5850 exactly; use a price that leaves a remainder:
  assert.equal(h.ledger.positionOf(alice, BTC)!.funding, 5850n);
  assert.equal(h.ledger.positionOf(bob, BTC)!.funding, -5850n);
  // The sample taken at HOUR belongs to the next interval (−2 %); against index 101 the next is
  // (98 − 101)/101 = −2.970297 %; average −2.485148 %, plus the 0.05 % interest clamp → −2.435148 %.
  h.ledger.setIndexPrice(BTC, 101, HOUR + 1);
  h.ledger.sampleFunding(BTC, 97, 98, HOUR + 2);
  h.ledger.sampleFunding(BTC, 97, 98, 2 * HOUR);
  const rate = h.ledger.fundingHistory(BTC)[1].rate;
  assert.equal(rate, -2_435_148n);
  const due = 303_000n * 2_435_148n; // notional at index 101 × |rate|, RATE_SCALE
  assert.equal(h.ledger.positionOf(alice, BTC)!.funding, 5850n + due / 100_000_000n);
  assert.equal(h.ledger.positionOf(bob, BTC)!.funding, -5850n - (due / 100_000_000n + 1n));
  assert.equal(h.ledger.insuranceFund, 1n, "the one unit between what the short paid and the long got");
  h.ledger.validateInternalState();
});

test('realizedFunding: a reduction carries its share of the position’s funding', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000);
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.ledger.sampleFunding(BTC, 101, 102, 1);
  h.ledger.sampleFunding(BTC, 101, 102, HOUR);
  h.fill(bob, alice, -1, 100, 400);
  const fill = h.ofType('fill').at(-1)!;
  assert.equal(fill.realizedFunding, -usd(0.38));
  assert.equal(h.ledger.positionOf(alice, BTC)!.funding, -usd(0.57));
});
