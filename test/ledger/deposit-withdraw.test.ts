import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, harness, usd } from './fixtures.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';

test('deposit credits, withdraw debits up to the free collateral, and the totals follow', () => {
  const h = harness();
  assert.equal(h.ledger.deposit(ALICE, 0, usd(100), 1), LedgerCode.Ok);
  const alice = h.ledger.findOwner(ALICE, 0)!;
  assert.equal(h.ledger.withdraw(ALICE, 0, usd(100) + 1n, 2), LedgerCode.InsufficientBalance);
  assert.equal(h.ledger.withdraw(ALICE, 0, usd(40), 2), LedgerCode.Ok);
  assert.equal(h.ledger.collateral(alice), usd(60));
  assert.equal(h.ledger.netDeposits, usd(60));
  assert.deepEqual(h.ofType('balance').map((b) => [b.reason, b.delta, b.collateral]), [
    ['deposit', usd(100), usd(100)],
    ['withdraw', -usd(40), usd(60)],
  ]);
  h.ledger.validateInternalState();
});

test('bad deposits and withdrawals are refused', () => {
  const h = harness();
  assert.equal(h.ledger.deposit(ALICE, 0, 0n, 1), LedgerCode.InvalidAmount);
  assert.equal(h.ledger.deposit('0x123', 0, 1n, 1), LedgerCode.InvalidAddress);
  assert.equal(h.ledger.deposit(ALICE, 2 ** 31, 1n, 1), LedgerCode.InvalidSubaccount);
  assert.equal(h.ledger.withdraw(BOB, 0, 1n, 1), LedgerCode.AccountNotFound);
  h.fund(ALICE, 5n);
  assert.equal(h.ledger.withdraw(ALICE, 0, 0n, 1), LedgerCode.InvalidAmount);
});

test('the faucet credits on testnet only, within its limit', () => {
  const testnet = harness({ faucet: true, faucetLimit: usd(1000) });
  assert.equal(testnet.ledger.faucet(ALICE, 0, usd(1000), 1), LedgerCode.Ok);
  assert.equal(testnet.ledger.faucet(ALICE, 0, usd(1000) + 1n, 1), LedgerCode.InvalidAmount);
  assert.equal(testnet.ledger.netDeposits, usd(1000));
  testnet.ledger.validateInternalState();
  const mainnet = harness({ faucet: false });
  assert.equal(mainnet.ledger.faucet(ALICE, 0, usd(1), 1), LedgerCode.FaucetDisabled);
});
