import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, harness, usd } from './fixtures.ts';
import { orderNo, ownerNo } from '../fixtures/ids.ts';

test('ACCOUNT_STATS of a 1 BTC long at 100 marked at 90, with an open order and 100 USD', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(100));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000); // collateral 99.95
  h.ledger.setIndexPrice(BTC, 90, 1);
  h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 80, 1000, false, 1); // hold: IM(2000 lots @80) − IM(1000 @80) + fee = 8 + 0.04
  const s = h.ledger.stats(alice)!;
  assert.deepEqual(s, {
    upnl: -usd(10),
    crossEquity: usd(89.95),
    accountValue: usd(89.95),
    initialMarginRequirement: usd(9 + 8.04),
    maintMargin: usd(4.5),
    freeCollateral: usd(89.95 - 17.04),
    freeCollateralCross: usd(89.95 - 17.04),
    crossLeverage: (usd(90) * 100_000_000n) / usd(89.95),
    crossMarginRatio: (usd(4.5) * 100_000_000n) / usd(89.95),
    crossMarginUsage: (usd(17.04) * 100_000_000n) / usd(89.95),
  });
  assert.equal(h.ledger.stats(ownerNo(99)), undefined);
});

test('isolated margin counts in accountValue, not in crossEquity', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(100));
  const bob = h.fund(BOB, usd(1000));
  h.ledger.setMargin(ALICE, 0, BTC, true, 20_000_000n, 0);
  h.fill(bob, alice, 1, 100, 1000); // margin 20 − 0.05
  const s = h.ledger.stats(alice)!;
  assert.equal(s.crossEquity, usd(80));
  assert.equal(s.accountValue, usd(99.95));
  assert.equal(s.maintMargin, usd(5));
  assert.equal(s.initialMarginRequirement, 0n);
});
