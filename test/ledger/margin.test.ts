import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, ETH, MARKETS, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { initialMargin, maintenanceMargin, minimumFraction } from '../../src/ledger/margin.ts';
import { marketNo, orderNo } from '../fixtures/ids.ts';

const HALF = 50_000_000n;
const TENTH = 10_000_000n;

test('tiers apply piecewise: ETH 2,000 USD → IM 50 + 200, MM 30 + 100', () => {
  assert.equal(initialMargin(MARKETS[ETH], usd(2000), 0n), usd(250));
  assert.equal(maintenanceMargin(MARKETS[ETH], usd(2000)), usd(130));
  assert.equal(initialMargin(MARKETS[ETH], usd(1000), 0n), usd(50));
  assert.equal(initialMargin(MARKETS[ETH], usd(2000), HALF), usd(1000), 'a higher user fraction wins');
  assert.equal(maintenanceMargin(MARKETS[BTC], 1n), 1n, 'rounded up');
  assert.equal(minimumFraction(MARKETS[ETH]), 5_000_000n);
});

test('setMargin bounds: 1/maxLeverage ≤ fraction ≤ 1, known account and market', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(100));
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, false, TENTH - 1n, 0), LedgerCode.MarginOutOfBounds);
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, false, 100_000_001n, 0), LedgerCode.MarginOutOfBounds);
  assert.equal(h.ledger.setMargin(BOB, 0, BTC, false, HALF, 0), LedgerCode.AccountNotFound);
  assert.equal(h.ledger.setMargin(ALICE, 0, marketNo(5), false, HALF, 0), LedgerCode.MarketNotFound);
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, false, 33_000_000n, 0), LedgerCode.Ok);
  assert.deepEqual(h.ledger.marginSetting(alice, BTC), { isolated: false, fraction: 33_000_000n });
});

test('a cross fraction of 0.5 (2×) doubles... quintuples the hold of a 10× default', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  h.ledger.setMargin(ALICE, 0, BTC, false, HALF, 0);
  h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 100, 1000, false, 0);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(50.05));
});

test('cross → isolated moves IM into the position; isolated → cross returns the margin', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(100));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000);
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, HALF, 1), LedgerCode.Ok);
  assert.equal(h.ledger.positionOf(alice, BTC)!.margin, usd(50));
  assert.equal(h.ledger.collateral(alice), usd(100 - 0.05 - 50));
  h.ledger.validateInternalState();
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, TENTH, 2), LedgerCode.Ok, 'lower fraction releases margin');
  assert.equal(h.ledger.positionOf(alice, BTC)!.margin, usd(10));
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, false, TENTH, 3), LedgerCode.Ok);
  assert.equal(h.ledger.positionOf(alice, BTC)!.margin, 0n);
  assert.equal(h.ledger.collateral(alice), usd(99.95));
  h.ledger.validateInternalState();
});

test('isolating more than the collateral can give is refused', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(20));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000);
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, HALF, 1), LedgerCode.InsufficientMargin);
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, false, HALF, 1), LedgerCode.InsufficientMargin, 'cross at 2× needs 50');
  assert.equal(h.ledger.positionOf(alice, BTC)!.isolated, false);
  assert.equal(h.ledger.collateral(alice), usd(19.95));
});
