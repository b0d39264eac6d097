/**
 * Attacks on the isolated draw (ledger/settlement `isolatedDraw`, docs/ledger.md
 * isolated-hold-loss): an owner's own isolated fill whose held cash the owner's own cross loss
 * spent draws what its hold reserved out of the cross equity, the collateral going below zero.
 * DRAW_SHORT_OF_*: bounded by the equity above the cross maintenance margin, the draw fell short
 * once accomplices had moved the mark of a cross position across its band (the index still),
 * and the fund paid 3.91, 2.065 and 3.565 USD; the reservation now reaches the cross equity down
 * to zero for what keeps the isolated position at its own maintenance margin, as the cash does.
 * The others hold: the draw leaves what the cash order leaves, nothing leaves the account after
 * it, and ADL takes its cross equity and no more. FILL_IN_FLIGHT_DURING_LIQUIDATION was a race,
 * not the draw's (a cross bid showed it too): a liquidation now waits for its owner's orders to
 * end before it is priced (docs/ledger.md).
 *
 * Fixtures (test/ledger/fixtures): BTC tick 1 USD, lot 0.001, IMF 10 %, MMF 5 %, taker 0.05 %;
 * ETH tick 0.01, lot 0.00001, IMF 5 %, MMF 3 % (below 1,000 USD of notional), taker 0.05 %,
 * mark band ±1.5 % — a span of 3 %, more than its IM − MM of 2 %, as in the shipped markets
 * (IMF 2 %, MMF 1.2 %, band ±0.6 %); SOL here: BTC's terms as a third market.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, DAVE, ETH, MARKETS, harness, usd, type Harness } from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';
import { SOL, SOL_MARKET, aliceInProfitAndLoss } from './alice-in-profit-and-loss.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import type { LiquidationCancel } from '../../src/ledger/events.ts';
import type { Side } from '../../src/engine/types.ts';
import type { MarketIndex, OwnerIndex } from '../../src/types/ids.ts';


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

/** Liquidations found are filled by `buyer` at their limit; then the invariants and conservation are checked. */
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

test('DRAW_SHORT_OF_FLIP: an isolated ask that closes the long through the mark and opens a short, its cash spent by a cross close and the ETH mark across its band, posts the short\'s open loss out of the cross equity; the fund pays nothing', () => {
  const { h, alice, bob, carol, dave } = aliceAtTheTopOfTheBand(35);
  assert.equal(h.ledger.admitOrder(orderNo(5), alice, BTC, 1, 100, 100, false, 2), LedgerCode.Ok);
  fillAgainst(h, bob, alice, 5, BTC, 1, 100, 100, 2);
  // An ask of 0.2 BTC at 60, the mark 100: the long closed 4 below its margin, a short of 0.1
  // opened 4 below the mark (IM 1 valued at the mark) — held 9.01.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, -1, 60, 200, false, 3), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(9.01));
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, SOL, -1, 20, 1000, true, 3), LedgerCode.Ok);
  fillAgainst(h, bob, alice, 2, SOL, -1, 20, 1000, 3);
  ethMarkTo(h, dave, carol, 980, 4);
  assert.deepEqual(h.ledger.liquidatable(alice), []);
  const fund = h.ledger.insuranceFund;
  // Before: the short got the 0.435 left above her cross maintenance margin, and the fund paid 3.565.
  fillAgainst(h, carol, alice, 1, BTC, -1, 60, 200, 5);
  const p = h.ledger.positionOf(alice, BTC)!;
  assert.equal(p.quantity, -100);
  assert.equal(p.margin, usd(4.5), 'its maintenance margin 0.5 and its open loss 4');
  liquidateAll(h, carol, 6);
  assert.ok(h.ledger.insuranceFund >= fund, `the fund paid ${fund - h.ledger.insuranceFund}`);
  assert.ok(h.ledger.collateral(alice) >= 0n);
});


/** Alice's isolated bid of 10 ETH at 10.50 (held 10.3025) and her SOL close at the mark, filled in the order given; what she holds after. */
function bidAndSolClose(bidFirst: boolean) {
  const s = aliceInProfitAndLoss({ marksTraded: false });
  const { h, alice, bob, carol } = s;
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, ETH, 1, 1050, 1_000_000, false, 2), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, SOL, -1, 80, 1000, true, 2), LedgerCode.Ok);
  const bid = () => fillAgainst(h, carol, alice, 1, ETH, 1, 1050, 1_000_000, 3);
  const close = () => fillAgainst(h, bob, alice, 2, SOL, -1, 80, 1000, 3);
  if (bidFirst) {
    bid();
    close();
  } else {
    close();
    bid();
  }
  const p = h.ledger.positionOf(alice, ETH)!;
  return { s, collateral: h.ledger.collateral(alice), margin: p.margin, quantity: p.quantity, fund: h.ledger.insuranceFund, stats: h.ledger.stats(alice)! };
}

test('DRAW_IS_THE_CASH_ORDER: the isolated fill that draws after its cash was spent leaves exactly what the same two fills leave in the other order, where the cash was there', () => {
  const drawn = bidAndSolClose(false);
  const cash = bidAndSolClose(true);
  assert.deepEqual(
    { collateral: drawn.collateral, margin: drawn.margin, quantity: drawn.quantity, fund: drawn.fund },
    { collateral: cash.collateral, margin: cash.margin, quantity: cash.quantity, fund: cash.fund },
  );
  assert.equal(drawn.collateral, usd(10.9 - 20.04 - 10.25));
  assert.deepEqual(drawn.stats, cash.stats);
});

test('DRAW_THEN_CASH_OUT: after the draw nothing leaves the account — no withdrawal, no transfer, no close of the cross profit beyond the cross equity — and the fund pays nothing', () => {
  const { s, stats } = bidAndSolClose(false);
  const { h, alice, bob, carol } = s;
  const fund = h.ledger.insuranceFund;
  assert.ok(h.ledger.collateral(alice) < 0n);
  assert.equal(stats.freeCollateral, 0n, 'freeCollateral is never above the collateral');
  assert.equal(h.ledger.withdraw(ALICE, 0, 1n, 4), LedgerCode.InsufficientBalance);
  assert.equal(h.ledger.transfer(ALICE, 0, CAROL, 0, 1n, 4), LedgerCode.InsufficientBalance);
  // Her isolated ETH long back to cross (its margin returns to the collateral): nothing leaves either.
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, false, 5_000_000n, 4), LedgerCode.Ok);
  assert.equal(h.ledger.stats(alice)!.freeCollateral, 0n);
  const equity = h.ledger.stats(alice)!.crossEquity;
  // Her BTC short (+50 at the mark) bought back from an accomplice far above the mark, handing
  // it the profit and more: refused beyond what her cross equity holds.
  assert.equal(h.ledger.admitOrder(orderNo(20), alice, BTC, 1, 95, 1000, true, 5), LedgerCode.InsufficientMargin);
  // At the most the headroom and what the close frees allow: her cross equity is what she loses.
  let price = 50;
  while (h.ledger.admitOrder(orderNo(21), alice, BTC, 1, price + 1, 1000, true, 5) === LedgerCode.Ok) {
    h.ledger.releaseOrder(orderNo(21), 5);
    price += 1;
  }
  assert.equal(h.ledger.admitOrder(orderNo(21), alice, BTC, 1, price, 1000, true, 5), LedgerCode.Ok);
  fillAgainst(h, carol, alice, 21, BTC, 1, price, 1000, 6);
  const after = h.ledger.stats(alice)!;
  assert.ok(after.crossEquity >= 0n, `cross equity ${after.crossEquity} (from ${equity}, bought back at ${price})`);
  assert.deepEqual(h.ledger.liquidatable(alice), []);
  liquidateAll(h, bob, 7);
  assert.equal(h.ledger.insuranceFund, fund);
  assert.ok(h.ledger.stats(alice)!.freeCollateral <= (h.ledger.collateral(alice) > 0n ? h.ledger.collateral(alice) : 0n));
});

test('DRAW_THEN_ADL: a cross account carried below zero by the draw, its profit taken by ADL with the fund empty, gives all its cross equity and no more; what it lacked is a winner\'s, as in the cash order', () => {
  const run = (bidFirst: boolean) => {
    const h = harness(undefined, undefined, [...MARKETS, SOL_MARKET]);
    h.ledger.setIndexPrice(BTC, 100, 0);
    h.ledger.setIndexPrice(ETH, 1000, 0);
    h.ledger.setIndexPrice(SOL, 100, 0);
    const alice = h.fund(ALICE, usd(11));
    const bob = h.fund(BOB, usd(10_000));
    const carol = h.fund(CAROL, usd(10_000));
    const dave = h.fund(DAVE, usd(10.05));
    h.fill(bob, alice, -1, 100, 1000, BTC);
    h.fill(bob, alice, 1, 100, 1000, SOL);
    h.fill(carol, dave, 1, 100, 1000, BTC); // Dave, long 1 BTC at 100 on 10 USD; Carol short
    h.ledger.setIndexPrice(BTC, 50, 1); // Dave: −40 of equity, not yet liquidated
    h.ledger.setIndexPrice(SOL, 80, 1);
    assert.equal(h.ledger.setMargin(ALICE, 0, ETH, true, 5_000_000n, 1), LedgerCode.Ok);
    assert.equal(h.ledger.admitOrder(orderNo(1), alice, ETH, 1, 1050, 1_000_000, false, 2), LedgerCode.Ok);
    assert.equal(h.ledger.admitOrder(orderNo(2), alice, SOL, -1, 80, 1000, true, 2), LedgerCode.Ok);
    const bid = () => fillAgainst(h, carol, alice, 1, ETH, 1, 1050, 1_000_000, 3);
    const close = () => fillAgainst(h, bob, alice, 2, SOL, -1, 80, 1000, 3);
    if (bidFirst) (bid(), close());
    else (close(), bid());
    const before = h.ledger.stats(alice)!;
    // Dave's liquidation finds no bid; the fund is empty: ADL at his bankruptcy price, 90.
    const [l] = h.ledger.checkLiquidations(4);
    assert.equal(l.owner, dave);
    assert.equal(h.ledger.admitOrder(orderNo(30), dave, BTC, l.side, l.price, l.quantity, true, 4, { liquidation: true }), LedgerCode.Ok);
    h.ledger.releaseOrder(orderNo(30), 4);
    h.ledger.validateInternalState();
    h.ledger.checkConservation();
    const adl = h.ofType('adl');
    const carolPaid = h.ofType('socialisedLoss').filter((e) => e.counterparty === carol).reduce((a, e) => a + e.amount, 0n);
    return { before: before.crossEquity, adl: adl.map((e) => [e.counterparty, e.price, e.quantity]), alice: h.ledger.collateral(alice), margin: h.ledger.positionOf(alice, ETH)!.margin, carolPaid, fund: h.ledger.insuranceFund };
  };
  const drawn = run(false);
  assert.deepEqual(drawn, run(true));
  // Alice's short, top of the ranking, bought back at 90: 40 of her 50 of profit, 9.39 beyond her
  // 30.61 of cross equity (her collateral was −19.39). Carol, the next winner, paid that 9.39.
  assert.equal(drawn.before, usd(10.9 - 20.04 - 10.25 + 50));
  assert.deepEqual(drawn.adl, [[1, 90, 1000]]);
  assert.equal(drawn.alice, 0n);
  assert.equal(drawn.carolPaid, usd(19.39 - 10));
  assert.equal(drawn.fund, 0n);
});

test('FILL_IN_FLIGHT_DURING_LIQUIDATION: a liquidation is priced only once its owner\'s orders have ended: the fill of a bid its book matched before the cancel arrived is settled first, and the fund pays nothing', () => {
  // Before, the order was priced when the account was found below maintenance, the fill settled
  // after it spent the equity its bankruptcy price gave the buyer, and the fund paid 3.6295 for
  // a cross bid, 3.8545 for an isolated one (4.05565 before the isolated draw reached the cross
  // equity). Filled whole (its hold released with the fill) or in part (then its cancel ends it).
  for (const isolated of [false, true]) {
    for (const lots of [45, 20]) {
      const what = `${isolated ? 'isolated' : 'cross'} bid, ${lots} of 45 lots filled`;
      const h = harness(undefined, undefined, [...MARKETS, SOL_MARKET]);
      h.ledger.fundInsurance(usd(1000), 0);
      h.ledger.setIndexPrice(BTC, 100, 0);
      h.ledger.setIndexPrice(ETH, 900, 0);
      h.ledger.setIndexPrice(SOL, 100, 0);
      const alice = h.fund(ALICE, usd(30.04));
      const bob = h.fund(BOB, usd(10_000));
      const carol = h.fund(CAROL, usd(10_000));
      const dave = h.fund(DAVE, usd(10_000));
      h.fill(bob, alice, 1, 900, 9_000_000, ETH);
      h.fill(bob, alice, 1, 100, 1000, SOL);
      h.ledger.setIndexPrice(ETH, 1000, 1);
      h.ledger.setIndexPrice(SOL, 20, 1);
      if (isolated) assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 1), LedgerCode.Ok);
      ethMarkTo(h, dave, carol, 1020, 2);
      // A bid of 0.045 BTC at 200, the mark 100 (held 5.4045), and her SOL loser closed at the mark.
      assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 200, 45, false, 3), LedgerCode.Ok);
      assert.equal(h.ledger.holdOf(orderNo(1)), usd(5.4045));
      assert.equal(h.ledger.admitOrder(orderNo(2), alice, SOL, -1, 20, 1000, true, 3), LedgerCode.Ok);
      fillAgainst(h, bob, alice, 2, SOL, -1, 20, 1000, 3);
      // The ETH mark across its band (the index still): her cross account below maintenance.
      ethMarkTo(h, dave, carol, 980, 4);
      assert.deepEqual(h.ledger.liquidatable(alice), [ETH]);
      const fund = h.ledger.insuranceFund;
      const cancels: LiquidationCancel[] = [];
      assert.deepEqual(h.ledger.checkLiquidations(4, cancels), [], `${what}: not priced while her bid is open`);
      assert.deepEqual(cancels, [{ owner: alice, market: null }], `${what}: her orders in every market are to be cancelled`);
      assert.deepEqual([h.ledger.liquidatingIn(alice), h.ledger.liquidatable(alice)], [[ETH], []], `${what}: in liquidation`);
      assert.equal(h.ledger.admitOrder(orderNo(3), alice, BTC, 1, 100, 1, false, 4), LedgerCode.InLiquidation, `${what}: she places nothing meanwhile`);
      assert.deepEqual(h.ledger.checkLiquidations(4, cancels), [], `${what}: nor at the next check`);
      assert.equal(cancels.length, 1, `${what}: listed once`);
      h.ledger.validateInternalState();
      // The bid, matched before the cancel reached the BTC book, settles now; then the cancel ends what is left of it.
      fillAgainst(h, carol, alice, 1, BTC, 1, 200, lots, 5);
      if (lots < 45) {
        assert.deepEqual(h.ledger.readyLiquidations(5), [], `${what}: the rest of the bid has not ended`);
        assert.equal(h.ledger.releaseOrder(orderNo(1), 5), LedgerCode.Ok);
      }
      assert.equal(h.ledger.liquidationsWaiting, true);
      // Priced on the state the fill left: her cross BTC long (bought 100 above the mark) is liquidated with the ETH.
      const orders = h.ledger.readyLiquidations(6);
      assert.equal(h.ledger.liquidationsWaiting, false);
      assert.deepEqual(orders.map((o) => o.market), isolated ? [ETH] : [ETH, BTC], what);
      for (const l of orders) {
        const id = orderNo(nextId++);
        assert.equal(h.ledger.admitOrder(id, alice, l.market, l.side, l.price, l.quantity, true, 6, { liquidation: true }), LedgerCode.Ok);
        fillAgainst(h, bob, alice, Number(id), l.market, l.side, l.price, l.quantity, 6);
      }
      h.ledger.checkConservation();
      liquidateAll(h, bob, 7);
      assert.deepEqual(h.ledger.liquidatable(alice), []);
      assert.ok(h.ledger.insuranceFund >= fund, `${what}: the fund paid ${fund - h.ledger.insuranceFund}`);
    }
  }
});
