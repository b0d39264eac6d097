/**
 * Attacks on the isolated draw (ledger/settlement `isolatedDraw`, docs/ledger.md
 * isolated-hold-loss): an owner's own isolated fill whose held cash the owner's own cross loss
 * spent draws what its hold reserved out of the cross equity, the collateral going below zero.
 *
 * Fixtures (test/ledger/fixtures): BTC tick 1 USD, lot 0.001, IMF 10 %, MMF 5 %, taker 0.05 %;
 * ETH tick 0.01, lot 0.00001, IMF 5 %, MMF 3 % (below 1,000 USD of notional), taker 0.05 %,
 * mark band ±1.5 % — a span of 3 %, more than its IM − MM of 2 %, as in the shipped markets
 * (IMF 2 %, MMF 1.2 %, band ±0.6 %); SOL here: BTC's terms as a third market.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, DAVE, ETH, MARKETS, harness, usd, type Harness } from './fixtures.ts';
import { parseMarket } from '../../src/config/market.ts';
import { marketNo, orderNo } from '../fixtures/ids.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import type { Side } from '../../src/engine/types.ts';
import type { MarketIndex, OwnerIndex } from '../../src/types/ids.ts';

/** BTC's terms as a third market. */
const SOL_MARKET = parseMarket(
  {
    symbol: 'SOL-USD-PERP', tickSize: '1', lotSize: '0.001', minSize: '0.001', maxLeverage: 10,
    initialMarginFraction: '0.1', maintenanceMarginFraction: '0.05', makerFee: '-0.0001', takerFee: '0.0005',
    fundingIntervalMs: 3_600_000, fundingRateCap: '0.04', interestRate: '0', oracleFeedId: '0x03', initialPrice: '100',
  },
  2,
);
const SOL = marketNo(2);

let nextId = 100;

/** Dave and Carol trade one lot of ETH at `price` and quote around it: the book's two legs of the ETH mark (the index still). */
function ethMarkTo(h: Harness, dave: OwnerIndex, carol: OwnerIndex, price: number, time: number): void {
  h.fill(dave, carol, 1, price, 1, ETH, time);
  h.ledger.sampleFunding(ETH, price, price + 1, time);
}

/** `taker`'s order `id` is filled by `maker` (a fresh order admitted for it) at `price`. */
function fillAgainst(h: Harness, maker: OwnerIndex, taker: OwnerIndex, id: number, market: MarketIndex, side: Side, price: number, lots: number, time: number): void {
  const m = orderNo(nextId++);
  assert.equal(h.ledger.admitOrder(m, maker, market, -side as Side, price, lots, false, time), LedgerCode.Ok);
  assert.equal(h.ledger.settleFill(m, orderNo(id), maker, taker, side, market, price, lots, time), LedgerCode.Ok);
  h.ledger.validateInternalState();
}

/** Liquidations found are filled by `buyer` at their limit (or, unfilled, deleveraged). Returns what the fund paid meanwhile. */
function liquidateAll(h: Harness, buyer: OwnerIndex, time: number): void {
  for (const o of h.ledger.checkLiquidations(time)) {
    const id = orderNo(nextId++);
    assert.equal(h.ledger.admitOrder(id, o.owner, o.market, o.side, o.price, o.quantity, true, time, { liquidation: true }), LedgerCode.Ok);
    const b = orderNo(nextId++);
    assert.equal(h.ledger.admitOrder(b, buyer, o.market, -o.side as Side, o.price, o.quantity, false, time), LedgerCode.Ok);
    assert.equal(h.ledger.settleFill(b, id, buyer, o.owner, o.side, o.market, o.price, o.quantity, time), LedgerCode.Ok);
  }
  h.ledger.validateInternalState();
  h.ledger.checkConservation();
}

/**
 * Alice (cash `cash`) on cross: long 90 ETH bought at 9 (the ETH index then 10: +90 USD), long
 * 1 SOL at 100 (the SOL index then 20: −80 USD); isolated in BTC (index and mark 100). Dave and
 * Carol, accomplices, set the ETH mark to the top of its band (10.15). The fund holds 1,000 USD.
 */
function aliceAtTheTopOfTheBand(cash: number) {
  const h = harness(undefined, undefined, [...MARKETS, SOL_MARKET]);
  assert.equal(h.ledger.fundInsurance(usd(1000), 0), LedgerCode.Ok);
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.ledger.setIndexPrice(ETH, 900, 0);
  h.ledger.setIndexPrice(SOL, 100, 0);
  const alice = h.fund(ALICE, usd(cash));
  const bob = h.fund(BOB, usd(10_000));
  const carol = h.fund(CAROL, usd(10_000));
  const dave = h.fund(DAVE, usd(10_000));
  h.fill(bob, alice, 1, 900, 9_000_000, ETH); // fee 0.405
  h.fill(bob, alice, 1, 100, 1000, SOL); // fee 0.05
  h.ledger.setIndexPrice(ETH, 1000, 1);
  h.ledger.setIndexPrice(SOL, 20, 1);
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 1), LedgerCode.Ok);
  ethMarkTo(h, dave, carol, 1020, 2);
  assert.equal(h.ledger.prices(ETH).mark, 1015);
  assert.equal(h.ledger.collateral(alice), usd(cash - 0.455));
  return { h, alice, bob, carol, dave };
}

test('DRAW_SHORT_OF_OPEN_LOSS: an isolated bid through the mark whose cash a cross close spent, the ETH mark then across its band (index still), posts its open loss out of the cross equity; the fund pays nothing', () => {
  // Cash 36.65: 36.195 after fees; cross equity 36.195 + 103.5 − 80 = 59.695, IM 45.675 + 2.
  const { h, alice, bob, carol, dave } = aliceAtTheTopOfTheBand(36.65);
  assert.equal(h.ledger.stats(alice)!.freeCollateralCross, usd(12.02));
  // An isolated bid of 0.1 BTC at 200, the mark 100: IM 2 + taker fee 0.01 + open loss 10 = 12.01.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 200, 100, false, 3), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(12.01));
  // Sent with it: her SOL long closed at the mark (an ordinary close), 80 USD of loss paid in cash.
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, SOL, -1, 20, 1000, true, 3), LedgerCode.Ok);
  fillAgainst(h, bob, alice, 2, SOL, -1, 20, 1000, 3);
  assert.equal(h.ledger.collateral(alice), usd(36.195 - 80.01));
  // The accomplices take the ETH mark to the bottom of its band: −27 USD on her long.
  ethMarkTo(h, dave, carol, 980, 4);
  assert.equal(h.ledger.prices(ETH).mark, 985);
  const before = h.ledger.stats(alice)!;
  assert.deepEqual(h.ledger.liquidatable(alice), [], `cross equity ${before.crossEquity}, MM ${before.maintMargin}`);
  // Carol sells her the 0.1 BTC at 200: 10 USD beyond the mark.
  const fund = h.ledger.insuranceFund;
  fillAgainst(h, carol, alice, 1, BTC, 1, 200, 100, 5);
  // Before: the draw stopped at the cross maintenance margin — 6.09 posted, equity −3.91, the
  // position liquidated at once at the mark and the fund paid 3.91 while her cross account kept
  // 26.595 USD. Now the reservation reaches the cross equity, as the cash would have: IM 2 would
  // exceed it, so it posts what keeps the position at its maintenance margin (0.5 + open loss 10
  // + the fee 0.01), and her cross account, left below its own, is liquidated solvent.
  const p = h.ledger.positionOf(alice, BTC)!;
  assert.equal(p.margin, usd(10.5));
  assert.deepEqual(h.ledger.liquidatable(alice), [ETH]);
  assert.equal(h.ledger.stats(alice)!.crossEquity, usd(22.175));
  liquidateAll(h, bob, 6);
  assert.ok(h.ledger.insuranceFund >= fund, `the fund paid ${fund - h.ledger.insuranceFund}`);
  assert.ok(h.ledger.collateral(alice) >= 0n);
});

test('DRAW_SHORT_OF_CLOSE_LOSS: an isolated reduce-only close through the mark whose cash a cross close spent, the ETH mark then across its band, pays its loss out of the cross equity; the fund pays nothing', () => {
  const { h, alice, bob, carol, dave } = aliceAtTheTopOfTheBand(33.5);
  // Her isolated BTC long: 0.1 BTC at 100 from Bob, margin IM 1 less the fee 0.005.
  assert.equal(h.ledger.admitOrder(orderNo(5), alice, BTC, 1, 100, 100, false, 2), LedgerCode.Ok);
  fillAgainst(h, bob, alice, 5, BTC, 1, 100, 100, 2);
  assert.equal(h.ledger.positionOf(alice, BTC)!.margin, usd(0.995));
  // A reduce-only sell of it at 50, the mark 100: fee 0.005 + open loss 5 = 5.005, within her
  // cash and the position's 0.995 of equity.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, -1, 50, 100, true, 3), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(5.005));
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, SOL, -1, 20, 1000, true, 3), LedgerCode.Ok);
  fillAgainst(h, bob, alice, 2, SOL, -1, 20, 1000, 3);
  ethMarkTo(h, dave, carol, 980, 4);
  assert.equal(h.ledger.prices(ETH).mark, 985);
  assert.deepEqual(h.ledger.liquidatable(alice), []);
  assert.equal(h.ledger.stats(alice)!.crossEquity - usd(26.595), usd(1.94), 'her cross equity above its maintenance margin');
  const fund = h.ledger.insuranceFund;
  // Carol buys the 0.1 BTC at 50: margin 0.995 − 5 − fee 0.0025 = −4.0075. Before: the draw
  // stopped at the cross maintenance margin (1.94), the fee went uncharged and the fund paid 2.065.
  fillAgainst(h, carol, alice, 1, BTC, -1, 50, 100, 5);
  assert.equal(h.ledger.positionOf(alice, BTC), undefined);
  assert.equal(h.ledger.stats(alice)!.crossEquity, usd(26.595 + 1.94 - 4.0075));
  liquidateAll(h, bob, 6);
  assert.ok(h.ledger.insuranceFund >= fund, `the fund paid ${fund - h.ledger.insuranceFund}`);
  assert.ok(h.ledger.collateral(alice) >= 0n);
});
