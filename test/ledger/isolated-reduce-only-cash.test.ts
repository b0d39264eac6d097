/**
 * A reduce-only order in an isolated market loses what it loses in the isolated position, and
 * what that loss takes beyond the position's equity is paid in cash out of the cross account
 * (settlement.ts): never out of the cross positions' unrealised profit, which cannot be moved.
 * Its hold was checked against the cross account's headroom alone, which counts that profit:
 * a reduce-only buy far above the mark was admitted on it, filled there, and the insurance
 * fund paid what the cash did not cover. (Found by test/app/attack-in-flight.property with
 * bursts, seed 960011 at 1,500 steps: 1.41 USD of cash beside a cross long 300 USD in profit,
 * the fund paid 6.35 USD.) It is now held against the cash not already held plus the isolated
 * position's equity too, as an opening order in an isolated market is.
 *
 * Alice (20 USD) buys 1 BTC at 100 (cross) and sells 1 ETH at 10 isolated (0.5 USD of margin).
 * The BTC index goes to 150: her long is 50 USD in profit. She withdraws all but 0.1 USD of
 * cash, then sends a reduce-only buy of her 1 ETH at 30 (3 times the mark), which Bob's ask at
 * 30 would fill: 20 USD of open loss. Test markets (test/ledger/fixtures): BTC tick 1 USD,
 * lot 0.001 BTC, IMF 10 %; ETH tick 0.01, lot 0.00001, IMF 5 %.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, ETH, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

test("a reduce-only order in an isolated market is held against cash, not the cross account's unrealised profit: refused, the fund pays nothing", () => {
  const h = harness();
  assert.equal(h.ledger.fundInsurance(usd(1000), 0), LedgerCode.Ok);
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.ledger.setIndexPrice(ETH, 1000, 0);
  const alice = h.fund(ALICE, usd(20));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000, BTC);
  assert.equal(h.ledger.setMargin(ALICE, 0, ETH, true, 5_000_000n, 1), LedgerCode.Ok);
  h.fill(bob, alice, -1, 1000, 100_000, ETH);
  assert.equal(h.ledger.positionOf(alice, ETH)!.margin, usd(0.5) - usd(0.005), 'her isolated short: 0.5 of initial margin, less its fee');
  h.ledger.setIndexPrice(BTC, 150, 2);
  const cash = h.ledger.collateral(alice);
  assert.equal(h.ledger.withdraw(ALICE, 0, cash - usd(0.1), 3), LedgerCode.Ok, 'her cash is free: the long holds its margin in profit');

  const code = h.ledger.admitOrder(orderNo(1), alice, ETH, 1, 3000, 100_000, true, 4);
  if (code === LedgerCode.Ok) {
    assert.equal(h.ledger.admitOrder(orderNo(2), bob, ETH, -1, 3000, 100_000, false, 4), LedgerCode.Ok);
    h.ledger.settleFill(orderNo(2), orderNo(1), bob, alice, 1, ETH, 3000, 100_000, 5);
  }
  h.ledger.validateInternalState();
  assert.equal(h.ledger.insuranceFund, usd(1000), `the fund paid nothing (the reduce-only buy: code ${code})`);
  assert.equal(code, LedgerCode.InsufficientMargin, '20 USD of open loss against 0.1 of cash and 0.495 of position equity');
});
