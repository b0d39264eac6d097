import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, harness, usd } from './fixtures.ts';
import { LedgerCode, LEDGER_CODE_TEXT } from '../../src/ledger/codes.ts';
import { orderNo } from '../fixtures/ids.ts';

test('ALICE_SENDS_50_TO_HER_SUBACCOUNT_1 and then to BOB, creating them', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(100));
  assert.equal(h.ledger.transfer(ALICE, 0, ALICE, 1, usd(50), 5), LedgerCode.Ok);
  const alice1 = h.ledger.findOwner(ALICE, 1)!;
  assert.equal(h.ledger.collateral(alice), usd(50));
  assert.equal(h.ledger.collateral(alice1), usd(50));
  assert.equal(h.ledger.identity(alice1)!.account, h.ledger.identity(alice)!.account);
  assert.equal(h.ledger.transfer(ALICE, 1, BOB.toUpperCase().replace('0X', '0x'), 3, usd(20), 6), LedgerCode.Ok);
  assert.equal(h.ledger.collateral(h.ledger.findOwner(BOB, 3)!), usd(20));
  assert.deepEqual(h.ofType('transfer').map((t) => t.amount), [usd(50), usd(20)]);
  h.ledger.validateInternalState();
});

test('transfer rules: positive only, known sender, not to itself, within the available balance', () => {
  const h = harness();
  h.fund(ALICE, usd(100));
  assert.equal(h.ledger.transfer(ALICE, 0, BOB, 0, 0n, 0), LedgerCode.InvalidAmount);
  assert.equal(h.ledger.transfer(ALICE, 0, BOB, 0, -1n, 0), LedgerCode.InvalidAmount);
  assert.equal(h.ledger.transfer(BOB, 0, ALICE, 0, 1n, 0), LedgerCode.AccountNotFound);
  assert.equal(h.ledger.transfer(ALICE, 0, ALICE, 0, 1n, 0), LedgerCode.SameAccount);
  assert.equal(h.ledger.transfer(ALICE, 0, 'nope', 0, 1n, 0), LedgerCode.InvalidAddress);
  assert.equal(h.ledger.transfer(ALICE, 0, BOB, -1, 1n, 0), LedgerCode.InvalidSubaccount);
  assert.equal(h.ledger.transfer(ALICE, 0, BOB, 0, usd(100) + 1n, 0), LedgerCode.InsufficientBalance);
  assert.equal(LEDGER_CODE_TEXT[LedgerCode.InsufficientBalance], 'Transfer amount exceeds available balance');
  assert.equal(h.ledger.findOwner(BOB, 0), undefined, 'a refused transfer creates nobody');
});

test('a transfer never leaves free collateral below the initial margin requirement', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(100));
  const bob = h.fund(BOB, usd(100));
  h.fill(bob, alice, 1, 100, 1000); // IM 10, fee 0.05 paid
  h.ledger.admitOrder(orderNo(1), alice, BTC, 1, 100, 1000, false, 0); // hold 10.05
  const free = usd(100 - 0.05 - 10 - 10.05);
  assert.equal(h.ledger.stats(alice)!.freeCollateral, free);
  assert.equal(h.ledger.transfer(ALICE, 0, BOB, 0, free + 1n, 0), LedgerCode.InsufficientBalance);
  assert.equal(h.ledger.transfer(ALICE, 0, BOB, 0, free, 0), LedgerCode.Ok);
  assert.equal(h.ledger.stats(alice)!.freeCollateral, 0n);
  h.ledger.validateInternalState();
});

test('unrealized profit cannot be transferred out: the available balance is at most the collateral', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(100));
  const bob = h.fund(BOB, usd(1000));
  h.fill(bob, alice, 1, 100, 1000);
  h.ledger.setIndexPrice(BTC, 200, 0); // mark → 200 (index only: last 100, no book → first available)
  assert.ok(h.ledger.stats(alice)!.crossEquity > usd(150));
  assert.equal(h.ledger.stats(alice)!.freeCollateral, h.ledger.collateral(alice));
});
