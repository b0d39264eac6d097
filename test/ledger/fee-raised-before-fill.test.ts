/**
 * A fee raised by a markets record (sequencer/markets-record) while an order rests: its hold
 * reserved the fees of admission (the taker fee), its fill is charged the fee in force. The fee
 * is capped at what the side can pay once the trade's PnL is in (ledger/settlement), so the
 * difference never falls on the insurance fund or the other side: the owner pays it out of its
 * own equity. The highest fee a markets file may set (config/market: the fee plus the
 * originator ceiling below the gap between the initial and maintenance fractions, here 4.8 %
 * + 0.1 % under 5 %) leaves her above maintenance. (Run first with a 20 % fee, before that rule:
 * capped at her equity, 10.05 of 20, and liquidated at the next Tick, the fund paying nothing.)
 * BTC test market: IMF 10 %, MMF 5 %, taker 0.05 %, maker −0.01 %; 1000 lots at 100 = 100 USD.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, MARKETS, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { marketsFileOf, parseMarkets } from '../../src/config/market.ts';
import { orderNo } from '../fixtures/ids.ts';

/** MARKETS with BTC's maker and taker fee set to `fee` (a markets file an operator restarts with). */
function feesAt(fee: string) {
  const file = marketsFileOf(MARKETS);
  file.markets[0] = { ...file.markets[0], makerFee: fee, takerFee: fee };
  return parseMarkets(file);
}

for (const isolated of [false, true]) {
  for (const fee of ['0.01', '0.048']) {
    test(`${isolated ? 'an isolated' : 'a cross'} bid held under a 0.05 % fee, filled as maker after a markets record raised the fees to ${Number(fee) * 100} %: Alice pays what she can, nobody else pays`, () => {
      const h = harness();
      const alice = h.fund(ALICE, usd(10.05)); // the bid's hold: IM 10 + taker fee 0.05
      const bob = h.fund(BOB, usd(1000));
      h.ledger.setIndexPrice(BTC, 100, 0);
      if (isolated) assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 0), LedgerCode.Ok);
      assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 100, 1000, false, 1), LedgerCode.Ok);
      assert.equal(h.ledger.holdOf(orderNo(1)), usd(10.05));
      assert.equal(h.ledger.admitOrder(orderNo(2), bob, BTC, -1, 100, 1000, false, 1), LedgerCode.Ok);
      const bobBefore = h.ledger.collateral(bob);

      h.ledger.changeMarkets(feesAt(fee));
      h.events.length = 0;
      assert.equal(h.ledger.settleFill(orderNo(1), orderNo(2), alice, bob, -1, BTC, 100, 1000, 2), LedgerCode.Ok);

      const fills = h.ofType('fill');
      const aliceFee = fills.find((f) => f.owner === alice)!.fee;
      const bobFee = fills.find((f) => f.owner === bob)!.fee;
      assert.equal(bobFee, fee === '0.01' ? usd(1) : usd(4.8), 'the taker pays the fee in force');
      assert.equal(aliceFee, fee === '0.01' ? usd(1) : usd(4.8), 'the maker pays the fee in force, out of her equity (10.05)');
      const alicePosition = h.ledger.positionOf(alice, BTC)!;
      assert.equal(h.ledger.collateral(alice) + alicePosition.margin, usd(10.05) - aliceFee, 'out of her own money, to the unit');
      assert.equal(h.ledger.collateral(bob), bobBefore - bobFee);
      assert.equal(h.ledger.insuranceFund, 0n);
      assert.deepEqual(h.ofType('insurance'), [], 'no shortfall');
      assert.deepEqual(h.ofType('socialisedLoss'), []);
      h.ledger.checkConservation();
      h.ledger.validateInternalState();
      // Above her 5 USD of maintenance even after the highest fee a markets file may set (10.05 − 4.8).
      assert.deepEqual(h.ledger.liquidatable(alice), []);
    });
  }
}
