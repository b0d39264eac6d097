import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Side } from '../../src/engine/types.ts';
import { DepthMirror } from '../../src/app/depth-mirror.ts';

test('a mirror restores from its snapshot exactly, an emptied book included', () => {
  const mirror = new DepthMirror();
  mirror.level(1, Side.Buy, 100, 5);
  mirror.level(2, Side.Sell, 101, 3);
  mirror.level(3, Side.Buy, 99, 2);
  assert.deepEqual(DepthMirror.restore(mirror.snapshot()).snapshot(), mirror.snapshot());
  mirror.level(4, Side.Buy, 100, 0);
  mirror.level(5, Side.Buy, 99, 0);
  mirror.level(6, Side.Sell, 101, 0);
  assert.equal(mirror.sequence, 6);
  assert.deepEqual(DepthMirror.restore(mirror.snapshot()).snapshot(), mirror.snapshot());
});

test('depth aggregates to tick multiples, asks rounded up and bids down, best first', () => {
  const mirror = new DepthMirror();
  for (const [p, q] of [[101, 1], [104, 2], [111, 4]] as const) mirror.level(1, Side.Sell, p, q);
  for (const [p, q] of [[99, 1], [95, 2], [89, 4]] as const) mirror.level(1, Side.Buy, p, q);
  assert.deepEqual(mirror.depth(Side.Sell, 5, 10), [{ price: 110, quantity: 3 }, { price: 120, quantity: 4 }]);
  assert.deepEqual(mirror.depth(Side.Buy, 5, 10), [{ price: 90, quantity: 3 }, { price: 80, quantity: 4 }]);
  assert.deepEqual(mirror.depth(Side.Buy, 1, 1), [{ price: 99, quantity: 1 }]);
  assert.equal(mirror.bestBid(), 99);
  assert.equal(mirror.bestAsk(), 101);
});
