import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, DAVE, ETH, harness, usd, type Harness } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import type { LiquidationOrder } from '../../src/ledger/events.ts';
import { NO_OWNER, type OwnerIndex } from '../../src/types/ids.ts';
import { orderNo } from '../fixtures/ids.ts';

// Alice: 20 USD, long 1 BTC (1000 lots) at 100 from Bob → collateral 19.95 after the 0.05 taker fee.
function aliceLong(h: Harness, collateral = usd(20)) {
  const alice = h.fund(ALICE, collateral);
  const bob = h.fund(BOB, usd(1000));
  const carol = h.fund(CAROL, usd(1000));
  h.fill(bob, alice, 1, 100, 1000);
  return { alice, bob, carol };
}

/** The application's part: admit the liquidation order; `fillAt` fills it against `maker`, else nothing fills. */
function run(h: Harness, order: LiquidationOrder, orderId: number, maker: OwnerIndex, fillAt?: number) {
  assert.equal(h.ledger.admitOrder(orderNo(orderId), order.owner, order.market, order.side, order.price, order.quantity, true, 10, { liquidation: true }), LedgerCode.Ok);
  if (fillAt !== undefined) h.ledger.settleFill(orderNo(orderId + 1), orderNo(orderId), maker, order.owner, order.side, order.market, fillAt, order.quantity, 11);
  else h.ledger.releaseOrder(orderNo(orderId), 11);
  h.ledger.validateInternalState();
}

test('CROSS_LONG_LIQUIDATED_WHEN_MARK_FALLS_TO_84: order at the bankruptcy price, fee to the fund', () => {
  const h = harness();
  const { alice, carol } = aliceLong(h);
  h.ledger.setIndexPrice(BTC, 86, 5); // equity 19.95 − 14 = 5.95 ≥ MM 4.3
  assert.deepEqual(h.ledger.checkLiquidations(5), []);
  h.ledger.setIndexPrice(BTC, 84, 6); // equity 3.95 < MM 4.2
  const orders = h.ledger.checkLiquidations(6);
  assert.deepEqual(orders, [{ owner: alice, account: 1, market: BTC, side: -1, price: 81, quantity: 1000, bankruptcyPrice: 81 }]);
  assert.deepEqual(h.ledger.checkLiquidations(6), [], 'no second order while one is in flight');
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 80, 1, false, 6), LedgerCode.InLiquidation);
  run(h, orders[0], 500, carol, 83);
  assert.equal(h.ledger.position(alice, BTC), 0);
  // 19.95 − 17 (loss) − 0.0415 (taker fee) − 0.415 (liquidation fee 0.5 % of 83)
  assert.equal(h.ledger.collateral(alice), usd(19.95 - 17 - 0.0415 - 0.415));
  assert.equal(h.ledger.insuranceFund, usd(0.415));
  assert.equal(h.ofType('fill').at(-1)!.liquidation, true);
});

test('ISOLATED_LONG_LIQUIDATED_WITHOUT_TOUCHING_THE_CROSS_ACCOUNT', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(100));
  const bob = h.fund(BOB, usd(1000));
  const carol = h.fund(CAROL, usd(1000));
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 0), LedgerCode.Ok);
  h.fill(bob, alice, 1, 100, 1000);
  assert.equal(h.ledger.positionOf(alice, BTC)!.margin, usd(9.95), 'IM 10 moved in, fee 0.05 paid from it');
  assert.equal(h.ledger.collateral(alice), usd(90));
  h.fill(carol, alice, 1, 10, 1000, ETH); // a cross ETH long, untouched by what follows
  const crossBefore = h.ledger.collateral(alice);
  h.ledger.setIndexPrice(BTC, 94, 5); // 9.95 − 6 = 3.95 < MM 4.7
  const orders = h.ledger.checkLiquidations(5);
  assert.equal(orders.length, 1);
  assert.deepEqual([orders[0].market, orders[0].side, orders[0].price], [BTC, -1, 91]);
  assert.equal(h.ledger.collateral(alice), crossBefore);
  run(h, orders[0], 500, carol, 92);
  // margin 9.95 − 8 − 0.046 − 0.46 = 1.444 returns to cross
  assert.equal(h.ledger.collateral(alice), crossBefore + usd(1.444));
  assert.equal(h.ledger.position(alice, ETH), 1000);
  assert.equal(h.ledger.insuranceFund, usd(0.46));
});

test('SHORTFALL_COVERED_BY_THE_INSURANCE_FUND after a fill below the bankruptcy price', () => {
  const h = harness();
  assert.equal(h.ledger.fundInsurance(usd(50), 0), LedgerCode.Ok);
  const { alice, carol } = aliceLong(h);
  h.ledger.setIndexPrice(BTC, 80, 5); // equity −0.05: bankrupt
  const [order] = h.ledger.checkLiquidations(5);
  assert.equal(order.bankruptcyPrice, 81);
  assert.equal(order.price, 80, 'the fund’s 50 USD extend the limit, but only as far as the mark (80), not 50 ticks to 31');
  run(h, order, 500, carol, 80);
  assert.equal(h.ledger.collateral(alice), 0n);
  // 19.95 − 20 = −0.05 covered; a bankrupt account pays no taker fee (0.04) nor liquidation fee:
  // the fund covers the trading loss only, never a fee.
  assert.equal(h.ledger.insuranceFund, usd(50 - 0.05));
  assert.deepEqual(h.ofType('insurance').map((e) => e.reason), ['deposit', 'shortfall']);
});

test('ADL_WHEN_THE_FUND_IS_EMPTY: the unfilled rest closes against the most leveraged winners', () => {
  const h = harness();
  const { alice, bob } = aliceLong(h);
  const carol = h.id(CAROL);
  const dave = h.fund(DAVE, usd(20));
  h.fill(carol, dave, -1, 100, 500); // Dave short 0.5 at 100 with 20 USD: more leveraged than Bob
  h.ledger.setIndexPrice(BTC, 80, 5);
  const [order] = h.ledger.checkLiquidations(5);
  assert.equal(order.price, 81);
  run(h, order, 500, NO_OWNER); // nothing fills at 81
  assert.deepEqual(h.ofType('adl').map((a) => [a.counterparty, a.price, a.quantity]), [
    [dave, 81, 500],
    [bob, 81, 500],
  ]);
  assert.equal(h.ledger.position(alice, BTC), 0);
  assert.equal(h.ledger.position(bob, BTC), -500);
  assert.equal(h.ledger.position(dave, BTC), 0);
  // Alice: 19.95 − 19 = 0.95 (the bankruptcy price rounds to a whole tick in her favour)
  assert.equal(h.ledger.collateral(alice), usd(0.95));
  assert.equal(h.ledger.insuranceFund, 0n);
});

test('a liquidation that recovers before its order ends is not deleveraged', () => {
  const h = harness();
  const { alice } = aliceLong(h);
  h.ledger.setIndexPrice(BTC, 84, 5);
  const [order] = h.ledger.checkLiquidations(5);
  h.ledger.setIndexPrice(BTC, 100, 6);
  run(h, order, 500, NO_OWNER);
  assert.equal(h.ofType('adl').length, 0);
  assert.equal(h.ledger.position(alice, BTC), 1000);
  assert.equal(h.ledger.admitOrder(orderNo(9), alice, BTC, -1, 100, 1, false, 7), LedgerCode.Ok, 'trading again');
});

test('FUND_NEVER_BELOW_ZERO: a bankruptcy beyond what the empty fund holds is paid by the ADL counterparties and the winners, none made bankrupt', () => {
  const h = harness();
  const { alice, bob, carol } = aliceLong(h);
  const dave = h.fund(DAVE, usd(1));
  h.fill(carol, dave, -1, 60, 500); // Dave short 0.5 at 60 with 1 USD: the most leveraged winner
  h.ledger.setIndexPrice(BTC, 20, 5); // Alice's equity: 19.95 − 80 < 0; bankruptcy price 81
  const [order] = h.ledger.checkLiquidations(5);
  run(h, order, 500, carol); // nothing fills
  const [first, second] = h.ofType('adl');
  // Dave's share is 30.5 USD; he pays only his profit on the lots (20 USD): closed at his own entry, 60, not 81.
  // What he could not pay stays with the counterparty after him: Bob owes 40.5 for his 500 lots, paid in whole ticks: closed at 102.
  assert.deepEqual([first.counterparty, first.price, second.counterparty, second.price], [dave, 60, bob, 102]);
  assert.ok(h.ledger.collateral(dave) >= 0n, `Dave was made bankrupt: ${h.ledger.collateral(dave)}`);
  assert.equal(h.ledger.position(alice, BTC), 0);
  assert.ok(h.ledger.collateral(alice) >= 0n && h.ledger.collateral(alice) < usd(1), 'paid to within the tick rounding, in her favour');
  assert.deepEqual(h.ofType('socialisedLoss'), [], 'the ADL prices carried the whole loss');
  assert.equal(h.ledger.insuranceFund, 0n);
  h.ledger.checkConservation();
});

test('SHORTFALL_PAID_BY_WINNERS_OF_OTHER_MARKETS: a loss nobody opposite in its market can pay comes out of profit elsewhere, not from an empty fund', () => {
  const h = harness();
  const { alice, bob, carol } = aliceLong(h); // Bob short 1 BTC at 100 opposite Alice's long
  const dave = h.fund(DAVE, usd(1000));
  h.fill(bob, carol, 1, 1_000, 100_000, ETH); // Carol long 1 ETH at 10 USD (Bob short)
  h.ledger.setIndexPrice(ETH, 10_000, 4); // ETH at 100 USD: Carol's profit, 90 USD
  h.ledger.setIndexPrice(BTC, 21, 5);
  h.fill(dave, bob, 1, 21, 1000); // Bob takes his BTC profit; Dave short at 21 holds none
  h.ledger.setIndexPrice(BTC, 20, 6); // Alice: 19.95 − 80 < 0
  const [order] = h.ledger.checkLiquidations(6);
  run(h, order, 500, dave, 20); // the liquidation sells at 20, far below its bankruptcy price
  assert.equal(h.ledger.position(alice, BTC), 0);
  assert.equal(h.ledger.collateral(alice), 0n, 'the shortfall was paid');
  // Nobody holds a BTC position any more (Dave's short closed against the liquidation): Carol's ETH profit pays.
  const paid = h.ofType('socialisedLoss');
  assert.deepEqual(paid.map((s) => [s.counterparty, s.market]), [[carol, ETH]]);
  assert.ok(h.ledger.insuranceFund >= 0n, `fund ${h.ledger.insuranceFund}`);
  h.ledger.checkConservation();
});

test('SHORTFALL_PAID_BY_WINNERS_ON_ITS_OWN_SIDE: a long bought far below the mark gives back its profit before the fund goes below zero', () => {
  const h = harness();
  const { alice, bob, carol } = aliceLong(h); // Bob short 1 BTC at 100 opposite Alice's long
  const dave = h.fund(DAVE, usd(1000));
  h.fill(dave, carol, 1, 10, 500); // Carol long 0.5 BTC at 10: on Alice's side, and in profit above 10
  h.ledger.setIndexPrice(BTC, 21, 5);
  h.fill(dave, bob, 1, 21, 1000); // Bob takes his profit; Dave's shorts (at 10 and 21) hold none at 20
  h.ledger.setIndexPrice(BTC, 20, 6); // Alice: 19.95 − 80 < 0
  const [order] = h.ledger.checkLiquidations(6);
  run(h, order, 500, dave, 20);
  assert.equal(h.ledger.collateral(alice), 0n, 'the shortfall was paid');
  // Nobody opposite holds profit and no other market has any: Carol's 5 USD on the long side pays, then the fund.
  const paid = h.ofType('socialisedLoss');
  assert.deepEqual(paid.map((s) => [s.counterparty, s.market, s.amount]), [[carol, BTC, usd(5)]]);
  const shortfalls = h.ofType('insurance').filter((e) => e.reason === 'shortfall');
  assert.equal(h.ledger.insuranceFund, shortfalls.reduce((sum, e) => sum + e.delta, 0n), 'the fund started empty: only shortfalls moved it');
  assert.ok(h.ledger.insuranceFund < 0n, 'a loss larger than every profit on the exchange: the deficit is the rest');
  h.ledger.checkConservation();
});

test('SHORTFALL_OF_A_MAKER_PAID_BY_ITS_TAKER: a maker bankrupt by its own fill is paid by the buyer below the mark once the buyer holds the lots', () => {
  const h = harness();
  h.ledger.setIndexPrice(BTC, 100, 1); // the mark stays at the index's 100 through a trade at 70
  const { alice, carol } = aliceLong(h); // Alice: 19.95 USD, long 1 BTC at 100 from Bob, who holds no profit at 100
  h.fill(alice, carol, 1, 70, 1000); // Alice's resting sell fills at 70: a loss of 30 against 19.95
  assert.equal(h.ledger.collateral(alice), 0n, 'the shortfall was paid');
  const paid = h.ofType('socialisedLoss');
  assert.deepEqual(paid.map((s) => [s.owner, s.counterparty]), [[alice, carol]], 'by Carol, who bought at 70 and holds the profit');
  assert.equal(h.ledger.insuranceFund, 0n, 'not by a fund that holds nothing');
  h.ledger.checkConservation();
});
