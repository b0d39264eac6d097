/**
 * An order in an isolated market is admitted only on cash beyond every hold (ledger/holds
 * `admitOrder`), and no withdrawal, transfer or `setMargin` takes that cash while it is open
 * (ledger/stats `cashHeld`: test/ledger/isolated-hold-cash). The realised loss of its owner's
 * other fills still could: a cross position closed at a loss — an ordinary close at the mark —
 * after the isolated order was admitted turns the cross account's unrealised loss into spent
 * cash, and a cross account whose other positions are in profit goes on with its collateral
 * below zero, as it may. When the isolated order filled there was no cash to post its margin:
 * its position opened (or its close ended) below zero, and the insurance fund paid the loss its
 * open loss had been held for — money the accomplice on the other side kept — while the cross
 * account kept its profit. No index moved after the isolated order's admission.
 * Now the isolated side of its owner's own order draws what its hold reserved out of the cross
 * equity when the cash is spent (ledger/settlement `isolatedDraw`): the collateral goes further below zero, carried by the cross profit the cross
 * orders admitted meanwhile had left there (their headroom counted the isolated hold).
 *
 * Fixtures (test/ledger/fixtures): BTC tick 1 USD, lot 0.001, IMF 10 %, MMF 5 %, taker 0.05 %;
 * ETH tick 0.01, lot 0.00001, IMF 5 %, MMF 3 %, maker 0, taker 0.05 % (mark band ±1.5 %);
 * SOL: BTC's terms as a third market (test/ledger/alice-in-profit-and-loss, the fixture).
 * Alice (11 USD) on cross: short 1 BTC at 100, the BTC index then 50 (+50 USD); long 1 SOL at
 * 100, the SOL index then 80 (−20 USD); 10.90 of cash after two 0.05 fees; isolated in ETH,
 * index and mark 10. Her headroom: 10.90 + 30 − IM 5 − IM 8 = 27.90.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BTC, ETH, usd } from './fixtures.ts';
import { orderNo } from '../fixtures/ids.ts';
import { SOL, aliceInProfitAndLoss } from './alice-in-profit-and-loss.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import type { Side } from '../../src/engine/types.ts';

type Setup = ReturnType<typeof aliceInProfitAndLoss>;

/** Alice closes her SOL long at the mark, reduce-only, into Bob's bid: 20 USD of loss realised, her cash below zero. */
function aliceClosesSol({ h, alice, bob }: Setup) {
  const cash = h.ledger.collateral(alice);
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, SOL, -1, 80, 1000, true, 3), LedgerCode.Ok, 'a market close of her loser, held its fee');
  assert.equal(h.ledger.admitOrder(orderNo(3), bob, SOL, 1, 80, 1000, false, 3), LedgerCode.Ok);
  assert.equal(h.ledger.settleFill(orderNo(3), orderNo(2), bob, alice, -1, SOL, 80, 1000, 3), LedgerCode.Ok);
  h.ledger.validateInternalState();
  assert.equal(h.ledger.collateral(alice), cash - usd(20.04), 'the loss and the fee 0.04 are paid in cash');
  assert.ok(h.ledger.collateral(alice) < 0n, 'below zero: the BTC profit carries the account');
}

/** Carol fills Alice's ETH order (1) as the maker at `price`; then any liquidation found is filled by Carol at its limit. Returns what the fund paid. */
function carolFillsEth({ h, alice, carol }: Setup, side: Side, price: number, lots: number): bigint {
  const fund = h.ledger.insuranceFund;
  assert.equal(h.ledger.admitOrder(orderNo(4), carol, ETH, -side as Side, price, lots, false, 4), LedgerCode.Ok);
  assert.equal(h.ledger.settleFill(orderNo(4), orderNo(1), carol, alice, side, ETH, price, lots, 4), LedgerCode.Ok);
  h.ledger.validateInternalState();
  let id = 10;
  for (const o of h.ledger.checkLiquidations(5)) {
    assert.equal(h.ledger.admitOrder(orderNo(id), o.owner, o.market, o.side, o.price, o.quantity, true, 5, { liquidation: true }), LedgerCode.Ok);
    assert.equal(h.ledger.admitOrder(orderNo(id + 1), carol, o.market, -o.side as Side, o.price, o.quantity, false, 5), LedgerCode.Ok);
    assert.equal(h.ledger.settleFill(orderNo(id + 1), orderNo(id), carol, o.owner, o.side, o.market, o.price, o.quantity, 6), LedgerCode.Ok);
    id += 2;
  }
  h.ledger.validateInternalState();
  h.ledger.checkConservation();
  return fund - h.ledger.insuranceFund;
}

test('ISOLATED_HOLD_SPENT_BY_CROSS_LOSS: an isolated bid whose cash a cross close at the mark spent in flight posts its margin out of the cross equity; the fund pays nothing', () => {
  const s = aliceInProfitAndLoss();
  const { h, alice } = s;
  // A bid of 10 ETH at 10.50 (half a USD above the mark): IM 5.25 + taker fee 0.0525 + open
  // loss 5 = 10.3025, within her 10.90 of cash. Sent with it, her SOL close; the SOL book answers first.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, ETH, 1, 1050, 1_000_000, false, 2), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(10.3025));
  aliceClosesSol(s);
  // Before: margin 0 posted (no cash), the fee not charged, equity −5 against MM 3: liquidated
  // at once at the mark, the fund paying the 5 USD Carol's ask at 10.50 earned beyond the mark.
  const paid = carolFillsEth(s, 1, 1050, 1_000_000);
  assert.equal(paid, 0n, 'the fund paid nothing');
  const p = h.ledger.positionOf(alice, ETH)!;
  assert.equal(p.quantity, 1_000_000);
  assert.equal(p.margin, usd(10.25 - 0.0525), 'IM 5.25 and the open loss 5 less the taker fee, as if her cash were there');
  assert.deepEqual(h.ledger.liquidatable(alice), []);
  const stats = h.ledger.stats(alice)!;
  assert.equal(h.ledger.collateral(alice), usd(10.9 - 20.04 - 10.25), 'her collateral below zero, carried by the BTC profit');
  assert.ok(stats.crossEquity >= usd(5), `cross equity ${stats.crossEquity} still covers the BTC short's IM 5`);
});

test('ISOLATED_CLOSE_SPENT_BY_CROSS_LOSS: an isolated reduce-only close through the mark whose cash a cross close spent in flight pays its loss out of the cross equity; the fund pays nothing', () => {
  const s = aliceInProfitAndLoss();
  const { h, alice, bob } = s;
  // Her isolated ETH long: 10 ETH at 10 from Bob, margin IM 5 less the fee 0.05.
  assert.equal(h.ledger.admitOrder(orderNo(5), alice, ETH, 1, 1000, 1_000_000, false, 2), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(6), bob, ETH, -1, 1000, 1_000_000, false, 2), LedgerCode.Ok);
  assert.equal(h.ledger.settleFill(orderNo(6), orderNo(5), bob, alice, 1, ETH, 1000, 1_000_000, 2), LedgerCode.Ok);
  assert.equal(h.ledger.positionOf(alice, ETH)!.margin, usd(4.95));
  assert.equal(h.ledger.collateral(alice), usd(5.9));
  // A reduce-only sell of all of it at 9 (a USD below the mark): taker fee 0.05 (valued at the
  // mark) + open loss 10 = 10.05, within her 5.90 of cash and the position's 4.95 of equity.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, ETH, -1, 900, 1_000_000, true, 2), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(10.05));
  aliceClosesSol(s);
  // Filled at 9: margin 4.95 − 10 − fee 0.045 = −5.095. Before: that found no cash, and the fund paid it.
  const paid = carolFillsEth(s, -1, 900, 1_000_000);
  assert.equal(paid, 0n, 'the fund paid nothing');
  assert.equal(h.ledger.positionOf(alice, ETH), undefined);
  assert.equal(h.ledger.collateral(alice), usd(5.9 - 20.04 - 5.095), 'the loss beyond the margin out of the cross account, its collateral below zero');
  assert.deepEqual(h.ledger.liquidatable(alice), []);
});

test('ISOLATED_FLIP_SPENT_BY_CROSS_LOSS: an isolated ask that closes the long and opens a short, its cash spent by a cross close in flight, posts the short\'s margin out of the cross equity; the fund pays nothing', () => {
  // The shape of the in-flight generator's seed 991279 (test/ledger/isolated-hold-cash), with the
  // cash spent by a cross loss instead of a withdrawal. Alice has 16 USD: 15.90 of cash.
  const s = aliceInProfitAndLoss({ cash: 16 });
  const { h, alice, bob } = s;
  assert.equal(h.ledger.admitOrder(orderNo(5), alice, ETH, 1, 1000, 1_000_000, false, 2), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(6), bob, ETH, -1, 1000, 1_000_000, false, 2), LedgerCode.Ok);
  assert.equal(h.ledger.settleFill(orderNo(6), orderNo(5), bob, alice, 1, ETH, 1000, 1_000_000, 2), LedgerCode.Ok);
  assert.equal(h.ledger.collateral(alice), usd(10.9), 'IM 5 posted to her isolated long');
  // An ask of 20 ETH at 9.80: the 10 beyond her long open a short — IM 5 (valued at the mark),
  // taker fee 0.10, open loss 4 (0.20 below the mark on 20 ETH): 9.10, within her 10.90 of cash.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, ETH, -1, 980, 2_000_000, false, 2), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(9.1));
  aliceClosesSol(s);
  // Filled at 9.80: the long closes with 4.95 − 2 − fee 0.098 = 2.852 back to the cross account;
  // the short wants IM 5 and its open loss 2. Before: no cash to post them, the short opened at
  // −2 of equity, and the fund paid its liquidation.
  const paid = carolFillsEth(s, -1, 980, 2_000_000);
  assert.equal(paid, 0n, 'the fund paid nothing');
  const p = h.ledger.positionOf(alice, ETH)!;
  assert.equal(p.quantity, -1_000_000);
  assert.equal(p.margin, usd(7), 'IM 5 and the open loss 2');
  assert.deepEqual(h.ledger.liquidatable(alice), []);
  assert.equal(h.ledger.collateral(alice), usd(10.9 - 20.04 + 2.852 - 7));
});
