import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALICE, BOB, BTC, ETH, MARKETS, harness, usd } from './fixtures.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { orderNo } from '../fixtures/ids.ts';
import type { LiquidationCancel } from '../../src/ledger/events.ts';

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

test('a liquidation waiting for its owner\'s orders to end is in the snapshot: the restored ledger prices it alike once they have', () => {
  const h = harness();
  const alice = h.fund(ALICE, usd(20));
  const bob = h.fund(BOB, usd(1000));
  h.ledger.setIndexPrice(BTC, 100, 0);
  h.ledger.setIndexPrice(ETH, 100_000, 0);
  h.fill(bob, alice, 1, 100, 1000);
  assert.equal(h.ledger.admitOrder(orderNo(5), alice, ETH, 1, 100_000, 100, false, 0), 0, 'a bid for 0.001 ETH at 1,000');
  h.ledger.setIndexPrice(BTC, 84, 1);
  const cancels: LiquidationCancel[] = [];
  assert.deepEqual(h.ledger.checkLiquidations(2, cancels), [], 'not priced while the bid is open');
  assert.deepEqual(cancels, [{ owner: alice, market: null }]);
  const snap = h.ledger.snapshot();
  assert.deepEqual(snap.owners[alice - 1].cancelling, [BTC]);
  const copy = Ledger.restore(MARKETS, snap, { faucet: true });
  assert.equal(copy.stateHash(), h.ledger.stateHash());
  copy.validateInternalState();
  assert.equal(copy.liquidationsWaiting, true, 'the owners waiting are rebuilt');
  const priced = [h.ledger, copy].map((l) => {
    assert.deepEqual(l.readyLiquidations(3), [], 'the bid has not ended');
    l.releaseOrder(orderNo(5), 3);
    return l.readyLiquidations(3);
  });
  assert.deepEqual(priced[0].map((o) => [o.market, o.price]), [[BTC, 81]]);
  assert.deepEqual(priced[1], priced[0]);
  assert.equal(copy.stateHash(), h.ledger.stateHash());
  assert.equal(h.ledger.snapshot().owners[alice - 1].cancelling, undefined, 'no field when none waits: states without one hash as before');
});
