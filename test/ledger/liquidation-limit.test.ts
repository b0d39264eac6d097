/**
 * A liquidation's order is the fund's money at risk: whatever it fills at beyond its
 * bankruptcy price, the insurance fund pays. Its limit must not reach beyond the mark, or the
 * holder of the other side of an accomplice's position sells it the lots far above the market
 * with a resting order at the limit, and collects the fund.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

test('a liquidation buy never pays more than the mark: a resting ask of the accomplice at the fund-extended limit does not collect the fund', () => {
  const h = harness();
  h.ledger.fundInsurance(usd(100), 0);
  h.ledger.setIndexPrice(BTC, 100, 0);
  const long = h.fund(ALICE, usd(1000));
  const short = h.fund(BOB, usd(20));
  h.fill(short, long, 1, 100, 1000); // the accomplices: 1 BTC short (20 USD) and long, at the index
  h.ledger.setIndexPrice(BTC, 115, 1); // an ordinary move: the short is below maintenance, not bankrupt
  const [order] = h.ledger.checkLiquidations(2);
  assert.equal(order.bankruptcyPrice, 120);
  assert.ok(order.price <= 120, `the liquidation buys up to ${order.price} with the mark at 115 and its bankruptcy price at 120`);
  // The long's reduce-only ask rests at the order's limit (a sell above the mark holds no open loss) and fills it.
  assert.equal(h.ledger.admitOrder(orderNo(1), long, BTC, -1, order.price, 1000, true, 2), LedgerCode.Ok);
  assert.equal(h.ledger.admitOrder(orderNo(2), short, BTC, 1, order.price, 1000, true, 2, { liquidation: true }), LedgerCode.Ok);
  h.ledger.settleFill(orderNo(1), orderNo(2), long, short, 1, BTC, order.price, 1000, 3);
  assert.equal(h.ledger.position(short, BTC), 0);
  assert.equal(h.ledger.insuranceFund, usd(100) + h.ofType('insurance').filter((e) => e.reason === 'liquidationFee').reduce((s, e) => s + e.delta, 0n), 'the fund paid nothing');
  h.ledger.validateInternalState();
});
