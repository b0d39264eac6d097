/**
 * A trader cannot go bankrupt to an accomplice on purpose. Without this, an order priced far
 * through the mark is a siphon: Alice (20 USD, long 1 BTC at mark 100) sells reduce-only at 1
 * into Carol's bid at 1; Alice realises −99, the insurance fund and then the honest winners'
 * profit pay the 79 she cannot, and Carol holds a long worth 99 more than she paid — money that
 * left the fund and the winners for an accomplice, at no risk to either. The same with an
 * opening order: a sell of 9 BTC at 1 from 100 USD opens a short 891 under water.
 *
 * So an order also holds its open loss: what filling at its limit loses against the mark
 * (a sell below the mark, a buy above it), like Binance's "order cost = initial margin + open
 * loss". The fill can be no worse than the limit, so what an order can lose against the mark
 * is held before it can lose it. BTC test market: IMF 10 %, taker 0.05 %; 1000 lots at 100 = 100 USD.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

/** Alice 20 USD long 1 BTC at 100 (19.95 after the taker fee), Bob short it, Carol an accomplice with 1 USD; mark 100. */
function aliceLong() {
  const h = harness();
  const alice = h.fund(ALICE, usd(20));
  const bob = h.fund(BOB, usd(1000));
  const carol = h.fund(CAROL, usd(1));
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.fill(bob, alice, 1, 100, 1000);
  return { h, alice, bob, carol };
}

test('a reduce-only sell far below the mark is refused: closing there would leave losses for the fund to pay an accomplice', () => {
  const { h, alice } = aliceLong();
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, -1, 1, 1000, true, 1), LedgerCode.InsufficientMargin, 'selling at 1 loses 99 against 19.95');
  // 81: loses 19 + fee 0.05 ≤ 19.95 (the 10 of IM it frees included) — held whole.
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, BTC, -1, 81, 1000, true, 1), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(2)), usd(19 + 0.05));
  h.ledger.releaseOrder(orderNo(2), 2);
  assert.equal(h.ledger.admitOrder(orderNo(3), alice, BTC, -1, 80, 1000, true, 1), LedgerCode.InsufficientMargin, '20.05 > 19.95');
  h.ledger.validateInternalState();
});

test('whatever is admitted, filled at its limit against an accomplice, draws nothing from the insurance fund', () => {
  for (const limit of [1, 50, 80, 81, 99]) {
    const { h, alice, carol } = aliceLong();
    h.ledger.fundInsurance(usd(500), 1);
    if (h.ledger.admitOrder(orderNo(2), alice, BTC, -1, limit, 1000, true, 1) !== LedgerCode.Ok) continue;
    h.events.length = 0;
    assert.equal(h.ledger.settleFill(orderNo(99), orderNo(2), carol, alice, -1, BTC, limit, 1000, 2), LedgerCode.Ok);
    assert.deepEqual(h.ofType('insurance'), [], `no shortfall for a close at ${limit}`);
    assert.ok(h.ledger.collateral(alice) >= 0n, `Alice solvent after a close at ${limit}`);
    h.ledger.validateInternalState();
  }
});

test('an opening order holds its open loss: a sell below the mark or a buy above it', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(100));
  h.ledger.setIndexPrice(BTC, 100, 0);
  // 9 BTC at 1: IM 90 + fee 0.45 held before; selling there is 891 under water at once.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, -1, 1, 9000, false, 0), LedgerCode.InsufficientMargin);
  assert.equal(h.ledger.admitOrder(orderNo(2), alice, BTC, -1, 50, 1000, false, 0), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(2)), usd(10 + 0.05 + 50), 'IM and fee at the mark, and the 50 it loses against it');
  assert.equal(h.ledger.admitOrder(orderNo(3), alice, BTC, 1, 120, 1000, false, 0), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(3)), usd(12 + 0.06 + 20), 'IM and fee at the limit, and the 20 it pays above the mark');
  // At or better than the mark: nothing more than before.
  assert.equal(h.ledger.admitOrder(orderNo(4), alice, BTC, 1, 90, 10, false, 0), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(4)), usd(0.09 + 0.00045));
  h.ledger.validateInternalState();
});

test('the open loss is held on the lots a reduce-only order can close, and released as it fills', () => {
  const { h, alice, carol } = aliceLong();
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, -1, 90, 5000, true, 1), LedgerCode.Ok, 'only 1000 lots can close');
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(10 + 0.05));
  assert.equal(h.ledger.settleFill(orderNo(99), orderNo(1), carol, alice, -1, BTC, 90, 400, 2), LedgerCode.Ok);
  assert.equal(h.ledger.holdOf(orderNo(1)), usd(10.05) - usd(10.05 * 400 / 5000));
  h.ledger.validateInternalState();
});

test('an isolated position closed by its own order far below the mark: the loss beyond its margin is the cross account’s, not the fund’s', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000));
  const carol = h.fund(CAROL, usd(1));
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.ledger.fundInsurance(usd(500), 0);
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 0), LedgerCode.Ok);
  h.fill(bob, alice, 1, 100, 1000); // isolated margin 9.95, cross 990
  // The order's 99 of open loss fits the cross account's headroom: admitted, held from cross.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, -1, 1, 1000, true, 1), LedgerCode.Ok);
  h.events.length = 0;
  assert.equal(h.ledger.settleFill(orderNo(99), orderNo(1), carol, alice, -1, BTC, 1, 1000, 2), LedgerCode.Ok);
  assert.deepEqual(h.ofType('insurance'), [], 'the fund pays nothing for an order its owner could pay');
  assert.equal(h.ledger.insuranceFund, usd(500));
  assert.equal(h.ledger.collateral(alice), usd(1000 - 0.05 - 99 - 0.0005), 'the 99 lost and the taker fee on the 1 USD sold, out of margin 9.95 and cross 990');
  h.ledger.validateInternalState();
});

test('an isolated position opened far through the mark takes its open loss from the cross account, on top of its initial margin', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const carol = h.fund(CAROL, usd(1000));
  h.ledger.setIndexPrice(BTC, 100, 0);
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 0), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 150, 1000, false, 1), LedgerCode.Ok);
  assert.equal(h.ledger.settleFill(orderNo(99), orderNo(1), carol, alice, 1, BTC, 150, 1000, 2), LedgerCode.Ok);
  const p = h.ledger.positionOf(alice, BTC)!;
  // Bought at 150, worth 100: 50 under water. Margin = IM on 150 (15) + the 50 loss, less the 0.075 fee paid from it.
  assert.equal(p.margin, usd(15 + 50 - 0.075));
  assert.deepEqual(h.ledger.liquidatable(alice), [], 'not bankrupt the moment it opens');
  h.ledger.validateInternalState();
});

test('an isolated position’s own partial close below the mark never leaves the rest below maintenance: the cross account tops it up', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(100));
  const bob = h.fund(BOB, usd(1000));
  const carol = h.fund(CAROL, usd(1000));
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 0), LedgerCode.Ok);
  h.fill(bob, alice, 1, 100, 1000); // margin 9.95
  h.ledger.setIndexPrice(BTC, 96, 1); // equity 5.95 ≥ MM 4.8
  // Half sold at 88: −6 and a fee of 0.022 leave 3.928 of margin; the rest is 2 under water at 96 — 1.928 against its MM of 2.4.
  assert.equal(h.ledger.admitOrder(orderNo(1), alice, BTC, -1, 88, 500, true, 2), LedgerCode.Ok);
  assert.equal(h.ledger.settleFill(orderNo(99), orderNo(1), carol, alice, -1, BTC, 88, 500, 3), LedgerCode.Ok);
  assert.equal(h.ledger.prices(BTC).mark, 96, 'the mark did not move: the trade alone did this');
  assert.deepEqual(h.ledger.liquidatable(alice), [], 'the rest is kept at its maintenance margin, out of the cross account');
  assert.equal(h.ledger.positionOf(alice, BTC)!.margin, usd(2.4 + 2));
  h.ledger.validateInternalState();
});
