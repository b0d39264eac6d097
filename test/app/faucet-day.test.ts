/**
 * The faucet's day (app/faucet-day.ts): credits count within one UTC day and are forgotten
 * at the next; a clock stepped back never resets the count; a snapshot restores it exactly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DAY_MS, FaucetDay } from '../../src/app/faucet-day.ts';

const DAY = 20_000 * DAY_MS;
const ALICE = '0x00000000000000000000000000000000000a11ce';

test('credits count within their UTC day, up to the allowance, and the next day starts from nothing', () => {
  const faucet = new FaucetDay();
  faucet.record(ALICE, 30n, DAY + 1);
  faucet.record(ALICE, 20n, DAY + DAY_MS - 1);
  assert.equal(faucet.creditedOn(ALICE, DAY + 5), 50n);
  assert.equal(faucet.allows(ALICE, 10n, 50n, DAY + 5), false);
  assert.equal(faucet.allows(ALICE, 10n, 60n, DAY + 5), true);
  assert.equal(faucet.creditedOn(ALICE, DAY + DAY_MS), 0n, 'midnight UTC resets');
  faucet.record(ALICE, 5n, DAY + DAY_MS);
  assert.equal(faucet.snapshot().credited.length, 1, 'the day before is forgotten');
  assert.equal(faucet.creditedOn(ALICE, DAY + DAY_MS + 1), 5n);
});

test('a credit dated before the held day counts towards it: a clock stepped back does not reset the allowance', () => {
  const faucet = new FaucetDay();
  faucet.record(ALICE, 50n, DAY + 10);
  faucet.record(ALICE, 1n, DAY - 10);
  assert.equal(faucet.creditedOn(ALICE, DAY - 5), 51n);
  assert.equal(faucet.creditedOn(ALICE, DAY + 20), 51n);
});

test('a snapshot restores the same day and counts; a snapshot without one restores an empty day', () => {
  const faucet = new FaucetDay();
  faucet.record(ALICE, 7n, DAY);
  faucet.record('0x000000000000000000000000000000000000b0b0', 3n, DAY);
  const restored = FaucetDay.restore(faucet.snapshot());
  assert.equal(restored.stateHash(), faucet.stateHash());
  assert.equal(restored.creditedOn(ALICE, DAY), 7n);
  assert.equal(FaucetDay.restore(undefined).stateHash(), new FaucetDay().stateHash());
});
