import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, ETH, harness, usd } from './fixtures.ts';
import { marketNo, orderNo, ownerNo } from '../fixtures/ids.ts';

// Alice buys from Bob (Bob is the resting maker, Alice the taker). Taker fee 0.05 %, maker rebate 0.01 %.

test('ALICE_OPENS_LONG_1_BTC_AT_100: basis is the cost, fees charged, rebate paid', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000);
  const a = h.ledger.positionOf(alice, BTC)!;
  assert.equal(a.quantity, 1000);
  assert.equal(a.basis, usd(100));
  assert.equal(a.fees, usd(0.05));
  assert.equal(h.ledger.collateral(alice), usd(1000 - 0.05));
  const b = h.ledger.positionOf(bob, BTC)!;
  assert.equal(b.quantity, -1000);
  assert.equal(b.basis, -usd(100));
  assert.equal(h.ledger.collateral(bob), usd(1000 + 0.01));
  assert.equal(h.ledger.feesCollected, usd(0.04));
  const fills = h.ofType('fill');
  assert.equal(fills.length, 2);
  assert.deepEqual(fills.map((f) => [f.owner, f.side, f.realizedPnl, f.realizedPoints, f.maker]), [
    [bob, -1, 0n, usd(100), true],
    [alice, 1, 0n, usd(100), false],
  ]);
});

test('ALICE_ADDS_AT_110: basis sums the costs', () => {
  const h = harness({ faucet: false, liquidationFee: 0n });
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000);
  h.fill(bob, alice, 1, 110, 1000);
  const a = h.ledger.positionOf(alice, BTC)!;
  assert.equal(a.quantity, 2000);
  assert.equal(a.basis, usd(210));
});

test('ALICE_REDUCES_HALF_AT_120: realizes (120 − 100) × 0.5 = 10', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000);
  h.fill(bob, alice, -1, 120, 500);
  const a = h.ledger.positionOf(alice, BTC)!;
  assert.equal(a.quantity, 500);
  assert.equal(a.basis, usd(50));
  const last = h.ofType('fill').at(-1)!;
  assert.equal(last.owner, alice);
  assert.equal(last.realizedPnl, usd(10));
  assert.equal(last.realizedExposure, usd(50));
  // Bob covered half his short at 120: lost 10.
  assert.equal(h.ofType('fill').at(-2)!.realizedPnl, -usd(10));
  // 1000 − 0.05 (open fee) + 10 − 0.03 (taker fee on 60)
  assert.equal(h.ledger.collateral(alice), usd(1000 - 0.05 + 10 - 0.03));
});

test('ALICE_FLIPS_FROM_LONG_1_TO_SHORT_1_AT_90: realizes −10 on the long, short basis is −90', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000);
  h.fill(bob, alice, -1, 90, 2000);
  const a = h.ledger.positionOf(alice, BTC)!;
  assert.equal(a.quantity, -1000);
  assert.equal(a.basis, -usd(90));
  assert.equal(a.fees, usd(0.09), 'the new position carries the flip fill’s fee');
  assert.equal(h.ofType('fill').at(-1)!.realizedPnl, -usd(10));
  assert.equal(h.ledger.position(bob, BTC), 1000);
});

test('ALICE_CLOSES_SHORT_AT_80: position gone, profit 10 realized, money conserved', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.fill(alice, bob, 1, 90, 1000); // Alice sells as maker
  h.fill(alice, bob, -1, 80, 1000); // Alice buys back as maker
  assert.equal(h.ledger.positionOf(alice, BTC), undefined);
  assert.equal(h.ledger.position(alice, BTC), 0);
  // +10 pnl, rebates 0.009 + 0.008
  assert.equal(h.ledger.collateral(alice), usd(1000 + 10 + 0.009 + 0.008));
  assert.equal(h.ledger.collateral(bob), usd(1000 - 10 - 0.045 - 0.04));
  assert.equal(h.ledger.collateral(alice) + h.ledger.collateral(bob) + h.ledger.feesCollected, usd(2000));
  const closed = h.ofType('position').filter((p) => p.owner === alice).at(-1)!;
  assert.equal(closed.quantity, 0);
});

test('a partial close rounds the released basis up: never realizes more than earned', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 1, 3); // basis 3 × 1 × 1000 = 3000 units for 3 lots
  h.fill(bob, alice, 1, 2, 1); // basis 5000 for 4 lots
  h.fill(bob, alice, -1, 1, 3); // releases ⌈5000·3/4⌉ = 3750, cash 3000
  assert.equal(h.ofType('fill').at(-1)!.realizedPnl, -750n);
  h.fill(bob, alice, -1, 1, 1); // releases the rest, 1250
  assert.equal(h.ofType('fill').at(-1)!.realizedPnl, -250n);
});

test('ETH notional is t·l/10 rounded down; the taker fee rounds up', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 1001, 7, ETH); // 10.01 × 0.00007 = 0.0007007 USD → 700 units (0.7 dropped)
  const f = h.ofType('fill').at(-1)!;
  assert.equal(f.notional, 700n);
  assert.equal(f.fee, 1n, '700 × 0.05 % = 0.35 → 1 unit');
  assert.equal(h.ledger.positionOf(alice, ETH)!.basis, 700n);
});

test('unknown owner or market is refused', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1));
  assert.equal(h.ledger.settleFill(orderNo(1), orderNo(2), alice, ownerNo(99), 1, BTC, 100, 1, 0), 2001);
  assert.equal(h.ledger.settleFill(orderNo(1), orderNo(2), alice, alice, 1, marketNo(7), 100, 1, 0), 2006);
  assert.equal(h.ledger.settleFill(orderNo(1), orderNo(2), alice, alice, 1, BTC, 100, 0, 0), 2010);
});
