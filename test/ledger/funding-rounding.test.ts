/**
 * Funding rounding in a market whose notional divides (the ETH fixture: t·l/10, rounded down):
 * what the receivers get must never exceed what the payers pay, or the insurance fund pays
 * the difference ("fundingDust" below zero) — money out of a fund that may hold nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, ETH, harness, usd } from './fixtures.ts';

const HOUR = 3_600_000;

test('one long against 30 one-lot shorts: the shorts pay at least what the long receives, the fund never pays funding', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const price = 10_009; // 100.09: one lot is 1000.9 units, rounded down to 1000 per short, 30027 for 30 lots
  h.ledger.setIndexPrice(ETH, price, 0);
  for (let i = 0; i < 30; i++) {
    const short = h.fund('0x' + (i + 1).toString(16).padStart(40, '0'), usd(10));
    h.fill(short, alice, 1, price, 1, ETH);
  }
  const before = h.ledger.insuranceFund;
  // The book far below the index all hour: the rate is the cap, −4 % (the shorts pay).
  h.ledger.sampleFunding(ETH, 0, 5_000, 10);
  h.ledger.sampleFunding(ETH, 0, 5_000, HOUR);
  assert.equal(h.ledger.fundingHistory(ETH).at(-1)?.rate, -4_000_000n);
  const payments = h.ofType('fundingPayment');
  const paid = payments.filter((p) => p.amount < 0n).reduce((s, p) => s - p.amount, 0n);
  const received = payments.filter((p) => p.amount > 0n).reduce((s, p) => s + p.amount, 0n);
  assert.ok(received <= paid, `the long received ${received} while the shorts paid ${paid}`);
  assert.ok(h.ledger.insuranceFund >= before, `the insurance fund went from ${before} to ${h.ledger.insuranceFund} paying funding`);
  h.ledger.validateInternalState();
});
