/**
 * An order in an isolated market is admitted only on cash beyond every hold (ledger/holds
 * `admitOrder`: its fill moves the margin, fees and open loss out of the cross collateral, and
 * unrealised profit cannot be moved). That cash must still be there when it fills: what may
 * leave the collateral — a withdrawal, a transfer, the margin `setMargin` moves into an isolated
 * position — never takes the cash the holds reserve while an isolated order is open
 * (ledger/stats `cashHeld`). Before, withdrawals were bounded by min(collateral, headroom), and
 * the headroom of a cross account in profit stands on the profit: the owner withdrew the cash
 * its isolated order held, the order filled with nothing to post, and the fund paid the loss.
 * (Found by test/app/attack-in-flight.property, IN_FLIGHT_SEED=991279, step 634: owner 1, an
 * isolated ETH long of 1,000 lots and a cross BTC long 300 USD in profit, withdrew all but
 * 0.004 USD of its 100.5 USD of cash with 1.3 USD held by its isolated ETH asks; one filled at
 * 10.10 for 149,028 lots, closing the long and opening a short; its close owed 0.015 USD of
 * originator fee beyond the long's margin and the 0.004 USD left, and the fund paid 0.002211.)
 *
 * Fixtures (test/ledger/fixtures): BTC IMF 10 %; ETH tick 0.01, lot 0.00001, IMF 5 %, MMF 3 %,
 * taker 0.05 %. Alice: 11 USD, short 1 BTC at 100 on cross (fee 0.05: 10.95 of cash), the BTC
 * mark 50 (50 USD of profit, IM 5: headroom 55.95); isolated in ETH, index and mark 10.
 * Her bid of 10 ETH (1,000,000 lots) at 10.50 (notional 105 USD) holds IM 5.25 + taker fee
 * 0.0525 + open loss 5 (10.50 − 10 per ETH) = 10.3025, within the 10.95 of cash.
 * Free to withdraw: min(10.95 − 10.3025, 55.95 − 10.3025) = 0.6475 (before: min(10.95, 45.6475)
 * = 10.95, all of it). Filled at 10.50 with the cash there: margin 10.25 (IM 5.25 + open loss 5)
 * less the fee 0.0525 = 10.1975; equity 10.1975 − 5 = 5.1975 ≥ MM 3. Filled with no cash: margin
 * 0, equity −5, liquidated at once — the fund (or the winners) paying 5 USD that her own order
 * lost at its limit, which her hold had covered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, ETH, MARKETS, harness, usd } from './fixtures.ts';
import { parseMarket } from '../../src/config/market.ts';
import { marketNo, orderNo } from '../fixtures/ids.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';

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

/**
 * Alice in profit on cross, isolated in ETH, her bid of 10 ETH at 10.50 resting (hold 10.3025).
 * `solLong`: a third market (BTC's terms as SOL), where she also holds 1 long at 100 on cross.
 */
function aliceBidding({ cash = 11, solLong = false } = {}) {
  const h = harness(undefined, undefined, solLong ? [...MARKETS, SOL_MARKET] : MARKETS);
  h.ledger.setIndexPrice(ETH, 1000, 0); // the ETH mark stays at 10 through the fill at 10.50 (band 9.85–10.15)
  const alice = h.fund(ALICE, usd(cash));
  const bob = h.fund(BOB, usd(10_000));
  const carol = h.fund(CAROL, usd(10_000));
  h.fill(bob, alice, -1, 100, 1000);
  h.fill(bob, carol, -1, 50, 1);
  if (solLong) h.fill(bob, alice, 1, 100, 1000, SOL);
  h.fill(bob, carol, 1, 1000, 1, ETH);
  assert.equal(h.ledger.prices(BTC).mark, 50);
  assert.equal(h.ledger.prices(ETH).mark, 1000);
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, true, 5_000_000n, 1), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, ETH, 1, 1050, 1_000_000, false, 2), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(10.3025));
  return { h, alice, carol };
}

/** Carol sells into Alice's bid at its limit; then: Alice's ETH position stands above maintenance, nobody pays for it. */
function fillAndCheck(h: ReturnType<typeof aliceBidding>['h'], alice: number, carol: number, margin: bigint) {
  const fund = h.ledger.moneyReport().insuranceFund;
  assert.equal(h.ledger.settleFill(orderNo(99), orderNo(1), carol as never, alice as never, 1, ETH, 1050, 1_000_000, 4), LedgerCode.Ok);
  h.ledger.validateInternalState();
  const p = h.ledger.positionOf(alice as never, ETH)!;
  assert.equal(p.quantity, 1_000_000);
  assert.equal(p.margin, margin, 'IM 5.25 and the open loss 5 posted out of the cash, less the fee');
  assert.deepEqual(h.ledger.liquidatable(alice as never), [], `Alice: ETH margin ${p.margin}, collateral ${h.ledger.collateral(alice as never)}`);
  assert.deepEqual(h.ledger.checkLiquidations(5), []);
  assert.equal(h.ledger.moneyReport().insuranceFund, fund, 'the fund paid nothing');
  h.ledger.checkConservation();
}

test('ISOLATED_HOLD_WITHDRAWN: a withdrawal never takes the cash an open isolated order holds, however much profit the cross account shows', () => {
  const { h, alice, carol } = aliceBidding();
  assert.equal(h.ledger.stats(alice)!.freeCollateralCross, usd(55.95 - 10.3025), 'the headroom stands on the profit');
  assert.equal(h.ledger.stats(alice)!.freeCollateral, usd(10.95 - 10.3025), 'the cash beyond the hold');
  assert.equal(h.ledger.withdraw(ALICE, 0, usd(10.95), 3), LedgerCode.InsufficientBalance, 'the cash the bid holds');
  assert.equal(h.ledger.transfer(ALICE, 0, BOB, 0, usd(1), 3), LedgerCode.InsufficientBalance);
  // What the API says is free, she takes.
  assert.equal(h.ledger.withdraw(ALICE, 0, h.ledger.stats(alice)!.freeCollateral, 3), LedgerCode.Ok);
  assert.equal(h.ledger.collateral(alice), usd(10.3025));
  fillAndCheck(h, alice, carol, usd(10.25 - 0.0525));
  assert.equal(h.ledger.collateral(alice), usd(0.0525));
});

test('ISOLATED_HOLD_MOVED_TO_MARGIN: setMargin does not move the cash an open isolated order holds into another isolated position', () => {
  // A third market (BTC's spec as SOL): Alice also holds 1 SOL long at 100 on cross, and isolates
  // it with her ETH bid resting. Its IM (10 USD) would leave the cash; 16 − 0.05 − 0.05 = 15.90
  // of cash less the bid's 10.3025 leaves 5.5975, so it is refused. Before, only the collateral
  // (15.90) and the headroom (the BTC profit) bounded it; the bid then filled on 5.90 of cash:
  // margin 5.8475, equity 0.8475 against MM 3, liquidated at once with the fund paying.
  const { h, alice, carol } = aliceBidding({ cash: 16, solLong: true });
  assert.equal(h.ledger.collateral(alice), usd(15.9));
  assert.equal(h.ledger.setMargin(ALICE, 0, SOL, true, 10_000_000n, 3), LedgerCode.InsufficientMargin);
  assert.equal(h.ledger.positionOf(alice, SOL)!.isolated, false);
  fillAndCheck(h, alice, carol, usd(10.25 - 0.0525));
});

test('with no isolated order open, the cash free of unrealised profit may leave again', () => {
  const { h, alice } = aliceBidding();
  assert.equal(h.ledger.releaseOrder(orderNo(1), 3), LedgerCode.Ok);
  assert.equal(h.ledger.stats(alice)!.freeCollateral, usd(10.95));
  // A cross order's hold may stand on the profit, as before.
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, false, 5_000_000n, 4), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, ETH, 1, 1050, 1_000_000, false, 5), LedgerCode.Ok);
  assert.equal(h.ledger.stats(alice)!.freeCollateral, usd(10.95));
  assert.equal(h.ledger.withdraw(ALICE, 0, usd(10.95), 6), LedgerCode.Ok);
  h.ledger.validateInternalState();
});
