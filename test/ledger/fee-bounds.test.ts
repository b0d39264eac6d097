/**
 * Fees are paid by their payer, never by the insurance fund (issue 13, found 1): a reduce-only
 * order holds its fees, and at the fill no fee is charged beyond what the side can pay.
 * BTC test market: IMF 10 %, taker 0.05 %, maker −0.01 %; 1000 lots at 100 = 100 USD.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

/** Alice long 1000 lots at 100 with `deposit`, Bob the seller, Carol an accomplice with nothing. */
function aliceLong(deposit: number) {
  const h = harness();
  const alice = h.fund(ALICE, usd(deposit));
  const bob = h.fund(BOB, usd(1000));
  const carol = h.id(CAROL);
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.fill(bob, alice, 1, 100, 1000);
  return { h, alice, bob, carol };
}

test('a reduce-only order holds its taker and originator fees, refused when the account cannot pay them even with the margin it frees', () => {
  const { h, alice, carol } = aliceLong(100);
  // 1,000 % of the notional to Carol (the 1,000,000,000): 1000.05 USD of fees against 99.95.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, -1, 100, 1000, true, 1, { originator: carol, originatorFee: 1_000_000_000n }), LedgerCode.InsufficientMargin);
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, BTC, -1, 100, 1000, true, 1, { originator: carol, originatorFee: 100_000n }), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(2)), usd(0.05 + 0.1), 'taker fee 0.05 and originator fee 0.1 on the 100 USD it closes');
  // Beyond the position the book refuses it; the fees are held only on what can close.
  assert.equal(h.ledger.admitOrder(orderNo(3), alice, BTC, -1, 100, 5000, true, 1), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(3)), usd(0.05));
  h.ledger.validateInternalState();
});

test('at the fill no fee takes more than the side holds after its loss: the trading fee first, the originator gets the rest, the insurance fund nothing', () => {
  const { h, alice, bob, carol } = aliceLong(10.1); // 10.05 left after the 0.05 taker fee, IM 10
  // Admitted at the mark (a limit of 90 holds its 10 of open loss and is refused: test/ledger/open-loss).
  // The fill at 90 stands for what an account can lose after its order was admitted — another
  // market's mark, funding — which the fill-time cap bounds.
  assert.equal(h.ledger.admitOrder(orderNo(7), alice, BTC, -1, 100, 1000, true, 1, { originator: carol, originatorFee: 100_000n }), LedgerCode.Ok);
  h.events.length = 0;
  // Closed at 90: −10 leaves 0.05 for a taker fee of 0.045 and an originator fee of 0.09.
  assert.equal(h.ledger.settleFill(orderNo(99), orderNo(7), bob, alice, -1, BTC, 90, 1000, 2), LedgerCode.Ok);
  assert.equal(h.ledger.collateral(alice), 0n);
  assert.equal(h.ledger.collateral(carol), usd(0.005), 'the originator is paid what was left, not 0.09');
  assert.equal(h.ledger.insuranceFund, 0n);
  assert.deepEqual(h.ofType('insurance'), [], 'no shortfall');
  assert.equal(h.ofType('fill').find((f) => f.owner === alice)!.fee, usd(0.045));
  h.ledger.checkConservation();
  h.ledger.validateInternalState();
});

test('a bankrupt close pays no fee: the insurance fund covers the trading loss alone, as a shortfall event', () => {
  const { h, alice, bob, carol } = aliceLong(10.1);
  h.ledger.fundInsurance(usd(5), 1);
  assert.equal(h.ledger.admitOrder(orderNo(7), alice, BTC, -1, 100, 1000, true, 1, { originator: carol, originatorFee: 100_000n }), LedgerCode.Ok); // as above
  h.events.length = 0;
  assert.equal(h.ledger.settleFill(orderNo(99), orderNo(7), bob, alice, -1, BTC, 89, 1000, 2), LedgerCode.Ok); // −11 against 10.05
  assert.equal(h.ledger.collateral(carol), 0n);
  assert.deepEqual(h.ofType('insurance').map((e) => [e.reason, e.delta]), [['shortfall', -usd(0.95)]]);
  assert.equal(h.ledger.moneyReport().insuranceFund, usd(4.05));
  assert.equal(h.ledger.moneyReport().imbalance, 0n);
  h.ledger.validateInternalState();
});
