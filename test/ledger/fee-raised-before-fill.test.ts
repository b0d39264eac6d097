/**
 * A fee raised by a markets record (sequencer/markets-record) while an order rests: its hold
 * reserved the fees of admission (the taker fee), its fill is charged the fee in force. The fee
 * is capped at what the side can pay once the trade's PnL is in (ledger/settlement), so the
 * difference never falls on the insurance fund or the other side: the owner pays it out of its
 * own equity, at worst down to zero, and the liquidation engine answers at the next Tick.
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
  for (const fee of ['0.01', '0.2']) {
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
      assert.equal(bobFee, fee === '0.01' ? usd(1) : usd(20), 'the taker pays the fee in force');
      assert.equal(aliceFee, fee === '0.01' ? usd(1) : usd(10.05), 'the maker pays the fee in force, capped at her equity (10.05)');
      const alicePosition = h.ledger.positionOf(alice, BTC)!;
      assert.equal(h.ledger.collateral(alice) + alicePosition.margin, usd(10.05) - aliceFee, 'out of her own money, to the unit');
      assert.equal(h.ledger.collateral(bob), bobBefore - bobFee);
      assert.equal(h.ledger.insuranceFund, 0n);
      assert.deepEqual(h.ofType('insurance'), [], 'no shortfall');
      assert.deepEqual(h.ofType('socialisedLoss'), []);
      h.ledger.checkConservation();
      h.ledger.validateInternalState();
      // Below maintenance after the 20 % fee (equity 0 against 5 of maintenance): liquidated at the next Tick, the fund paying nothing at the mark.
      if (fee === '0.2') assert.deepEqual(h.ledger.liquidatable(alice), [BTC]);
    });
  }
}
