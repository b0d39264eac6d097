/**
 * An isolated order's fill moves the margin its opened lots need out of the cross collateral,
 * valued at the mark of the fill; its hold reserved that margin at the mark of its admission.
 * The mark may move across its band (index · (1 ± MMF/2)) while the order rests, with the index
 * still: an ask admitted at the index then fills 1.5 % below the mark, and the fill wanted its
 * open loss and the margin of the higher valuation besides what was held. It took all of it,
 * leaving the owner's cross account below the maintenance margin of its own positions by the
 * owner's own order — liquidated at once, the insurance fund paying what the cross positions
 * lacked, while the isolated position stood on far more than its maintenance margin.
 * (Found by test/app/attack-in-flight.property, IN_FLIGHT_SEED=986270, step 539.)
 * ETH test market (test/ledger/fixtures): tick 0.01, lot 0.00001, IMF 5 %, MMF 3 %, and above
 * 1,000 USD of notional IMF 20 %, MMF 10 %; mark band ±1.5 %.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, DAVE, ETH, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

test("an isolated ask filled after the mark crossed its band does not take the cross account's maintenance margin", () => {
  const h = harness();
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.ledger.setIndexPrice(ETH, 1000, 0);
  const alice = h.fund(ALICE, usd(1955));
  const bob = h.fund(BOB, usd(10_000));
  const carol = h.fund(CAROL, usd(100));
  const dave = h.fund(DAVE, usd(100));
  h.fill(bob, alice, 1, 100, 1000); // Alice: 1 BTC long in cross at the index (IM 10, MM 5 USD)
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, true, 10_000_000n, 1), LedgerCode.Ok);
  // 1,000 ETH at 10 USD, the mark: held IM 100 + 1,800, taker fee 5 — 40 USD left free.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, ETH, -1, 1000, 100_000_000, false, 2), LedgerCode.Ok);
  // Others trade and quote above the index: the mark goes to the top of its band.
  assert.equal(h.ledger.admitOrder(orderNo(2), carol, ETH, 1, 1100, 1, false, 3), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(3), dave, ETH, -1, 1100, 1, false, 3), LedgerCode.Ok);
  h.ledger.settleFill(orderNo(3), orderNo(2), dave, carol, 1, ETH, 1100, 1, 3);
  h.ledger.sampleFunding(ETH, 1100, 1110, 4);
  assert.equal(h.ledger.prices(ETH).mark, 1015);
  // Bob buys Alice's ask at 1000: a short opened 1.5 % below the mark.
  assert.equal(h.ledger.admitOrder(orderNo(4), bob, ETH, 1, 1000, 100_000_000, false, 5), LedgerCode.Ok);
  h.ledger.settleFill(orderNo(1), orderNo(4), alice, bob, 1, ETH, 1000, 100_000_000, 5);
  h.ledger.validateInternalState();
  const short = h.ledger.positionOf(alice, ETH)!;
  assert.equal(short.quantity, -100_000_000);
  assert.deepEqual(h.ledger.liquidatable(alice), [], `Alice: cross collateral ${h.ledger.stats(alice)?.crossEquity}, isolated margin ${short.margin}`);
});
