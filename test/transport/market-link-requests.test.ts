/**
 * A request to an idle market thread (a state hash, a snapshot) is answered at once: the thread
 * sleeps on its empty command ring for up to 250 ms at a time, and the request's sender wakes it
 * (MarketLink `request`), again until it answers — not at the thread's next timed wake-up.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseMarkets } from '../../src/config/market.ts';
import { MarketLink } from '../../src/transport/market-link.ts';

const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));

test('requests to an idle market thread are answered without waiting for its timed wake-up', async (t) => {
  const link = new MarketLink(markets.slice(0, 1), new Map(), () => {}, () => {});
  t.after(() => link.close());
  await link.stateHashes(); // the thread has started
  let waited = 0;
  for (let i = 0; i < 5; i++) {
    // Idle long enough to be asleep, at a random point of its 250 ms cycle.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const asked = performance.now();
    const [hash] = await link.stateHashes();
    waited += performance.now() - asked;
    assert.equal(typeof hash.hash, 'string');
  }
  // Unwoken, each would wait for the thread's next wake-up: about 125 ms on average, 600 in all.
  assert.ok(waited < 250, `five requests to a sleeping thread waited ${waited.toFixed(0)} ms in all`);
});
