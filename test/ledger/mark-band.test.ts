/**
 * The mark against a trader who sets the book's two legs of it (mid and last trade) with
 * one-lot orders of its own accounts: it must not bankrupt an accomplice's position that is
 * healthy at the index, or the insurance fund pays the accomplice's counterparty.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, CAROL, DAVE, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

test('one-lot orders at 10× the index do not move the mark beyond its band: no liquidation, the fund keeps its 100 USD', () => {
  const h = harness();
  h.ledger.fundInsurance(usd(100), 0);
  h.ledger.setIndexPrice(BTC, 100, 0);
  const long = h.fund(ALICE, usd(1000));
  const short = h.fund(BOB, usd(20));
  const buyer = h.fund(CAROL, usd(10));
  const seller = h.fund(DAVE, usd(10));
  h.fill(short, long, 1, 100, 1000); // the accomplices: 1 BTC short (20 USD) and long, at the index
  // A bid at 999 and an ask at 1001 rest, and one lot trades at 1000: the mid and the last trade.
  assert.equal(h.ledger.admitOrder(orderNo(1), buyer, BTC, 1, 999, 1, false, 1), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(2), seller, BTC, -1, 1001, 1, false, 1), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(3), buyer, BTC, 1, 1000, 1, false, 1), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(4), seller, BTC, -1, 1000, 1, false, 1), LedgerCode.Ok);
  h.ledger.settleFill(orderNo(4), orderNo(3), seller, buyer, 1, BTC, 1000, 1, 2);
  h.ledger.sampleFunding(BTC, 999, 1001, 3);
  // Unbounded, median(189, 1000, 1000) = 1000: the short was liquidated, the fund paid its
  // 100 USD into it and ADL handed them to the long.
  assert.ok(h.ledger.prices(BTC).mark <= 102, `mark ${h.ledger.prices(BTC).mark}`);
  for (const l of h.ledger.checkLiquidations(4)) {
    assert.equal(h.ledger.admitOrder(orderNo(10), l.owner, l.market, l.side, l.price, l.quantity, true, 4, { liquidation: true }), LedgerCode.Ok);
    h.ledger.releaseOrder(orderNo(10), 5);
  }
  assert.equal(h.ledger.insuranceFund, usd(100));
  assert.equal(h.ledger.position(short, BTC), -1000);
  h.ledger.validateInternalState();
});
