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

test('a side hold (margin kept for the asks of a long closed reduce-only under them) is in the snapshot, and released alike after it', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(20));
  const bob = h.fund(BOB, usd(1000));
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.fill(bob, alice, 1, 100, 1000);
  assert.equal(h.ledger.admitOrder(orderNo(5), alice, BTC, -1, 101, 1000, false, 0), 0, 'an ask of 1 BTC at 101: held its fee, it closes the long');
  assert.equal(h.ledger.admitOrder(orderNo(6), alice, BTC, -1, 99, 1000, true, 0), 0, 'a reduce-only sell of 1 BTC at 99');
  const held = h.ledger.stats(alice)!.initialMarginRequirement;
  assert.equal(held, usd(10) + usd(10) + 50_500n + 50_000n + usd(1), "the long's margin, the 10 USD the ask now needs, both fees (the sell's valued at the mark), the sell's open loss");
  const copy = Ledger.restore(MARKETS, h.ledger.snapshot(), { faucet: true });
  assert.equal(copy.stateHash(), h.ledger.stateHash());
  copy.validateInternalState();
  assert.equal(copy.stats(alice)!.initialMarginRequirement, held);
  for (const l of [h.ledger, copy]) {
    assert.equal(l.releaseOrder(orderNo(6), 1), 0, 'the reduce-only sell ends unfilled: the long is there for the ask again');
    l.validateInternalState();
  }
  assert.equal(copy.stateHash(), h.ledger.stateHash());
  assert.equal(copy.stats(alice)!.initialMarginRequirement, usd(10) + 50_500n);
});
