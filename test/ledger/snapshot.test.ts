import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, ETH, MARKETS, harness, usd } from './fixtures.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { orderNo } from '../fixtures/ids.ts';

test('restore(snapshot) gives an equal hash, and both continue identically', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(1000));
  const bob = h.fund(BOB, usd(1000), 2);
  h.ledger.setMargin(ALICE, 0, ETH, true, 50_000_000n, 0);
  h.ledger.admitOrder(orderNo(5), alice, BTC, 1, 100, 500, false, 0);
  h.fill(bob, alice, 1, 100, 1000);
  h.fill(bob, alice, 1, 1234, 77, ETH);
  h.ledger.setIndexPrice(BTC, 97, 5);
  h.ledger.sampleFunding(BTC, 96, 98, 6);
  const snap = h.ledger.snapshot();
  const copy = Ledger.restore(MARKETS, snap, { faucet: true });
  assert.equal(copy.stateHash(), h.ledger.stateHash());
  copy.validateInternalState();
  for (const l of [h.ledger, copy]) {
    l.settleFill(orderNo(6), orderNo(5), bob, alice, 1, BTC, 99, 200, 7);
    l.sampleFunding(BTC, 96, 98, 3_600_000);
  }
  assert.equal(copy.stateHash(), h.ledger.stateHash());
  assert.notEqual(Ledger.restore(MARKETS, snap).stateHash(), h.ledger.stateHash(), 'a different state hashes differently');
});
