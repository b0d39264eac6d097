/**
 * A partial close of an isolated position returns margin to the cross account only as far as
 * the rest of the position does not need it. Returned pro rata regardless, a partial
 * liquidation of a position under water moved margin into the cross account that the rest then
 * lacked: the rest went bankrupt and the insurance fund paid, in effect, the owner's cross
 * account (the ledger property run found it: the fund went negative after a partial ADL).
 * BTC test market: IMF 10 %, MMF 5 %, taker 0.05 %, liquidation fee 0.5 %.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

test('a partial liquidation fill of an isolated position releases nothing the rest needs: no shortfall while its equity lasts', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(100));
  const bob = h.fund(BOB, usd(1000));
  const carol = h.fund(CAROL, usd(1000));
  h.ledger.fundInsurance(usd(100), 0);
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 0), LedgerCode.Ok);
  h.fill(bob, alice, 1, 100, 1000); // margin 9.95, cross 90
  h.ledger.setIndexPrice(BTC, 94, 5); // equity 3.95 < MM 4.7
  const [order] = h.ledger.checkLiquidations(5);
  assert.equal(h.ledger.admitOrder(orderNo(500), alice, BTC, order.side, order.price, order.quantity, true, 6, { liquidation: true }), LedgerCode.Ok);
  h.events.length = 0;
  // Half fills at 91: −4.5, fee 0.02275, liquidation fee 0.2275 → margin 5.19975; the other
  // 500 lots are 3 under water at 94 and need it: 2.2 of equity, below their maintenance (2.35).
  assert.equal(h.ledger.settleFill(orderNo(501), orderNo(500), carol, alice, -1, BTC, 91, 500, 6), LedgerCode.Ok);
  assert.equal(h.ledger.collateral(alice), usd(90), 'nothing returned to the cross account while the rest is below maintenance');
  const rest = h.ledger.positionOf(alice, BTC)!;
  assert.equal(rest.margin, usd(5.19975));
  h.ledger.releaseOrder(orderNo(500), 7); // the IOC's rest: deleveraged against Bob at its bankruptcy price
  assert.equal(h.ledger.position(alice, BTC), 0);
  assert.deepEqual(h.ofType('insurance').filter((e) => e.reason === 'shortfall'), [], 'the rest had the equity to close: the fund pays nothing');
  h.ledger.validateInternalState();
});

test('a healthy partial close still returns its margin pro rata', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(100));
  const bob = h.fund(BOB, usd(1000));
  assert.equal(h.ledger.setMargin(ALICE, 0, BTC, true, 10_000_000n, 0), LedgerCode.Ok);
  h.fill(bob, alice, 1, 100, 1000); // margin 9.95
  h.fill(bob, alice, -1, 100, 500); // at the entry: fee 0.025 → 9.925, half back
  assert.equal(h.ledger.positionOf(alice, BTC)!.margin, usd(9.925) / 2n);
  assert.equal(h.ledger.collateral(alice), usd(90) + usd(9.925) / 2n);
  h.ledger.validateInternalState();
});
