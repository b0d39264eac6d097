/**
 * Index prices on testnet (issue 14, item 3): every market has an index and a mark price from
 * the moment the exchange answers; an operator-set index price holds its market against the
 * built-in random feed (GET /price shows `indexHeld`) until the operator hands it back, and the
 * feed then walks from the operator's price. The clock ticks every 20 ms here, so the feed
 * steps fifty times a (simulated) second.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { assertError, BTC, ETH, ok } from '../harness/api-helpers.ts';

const ex = await startInProcessExchange({ tickMs: 20 });
const price = async (symbol: string) => ok(await ex.request('GET', `/price?symbol=${symbol}`)).prices[0];

test('every market has its index and mark price as soon as the exchange answers', async () => {
  // the first request after start, before any tick could have run
  for (const p of ok(await ex.request('GET', '/price')).prices) {
    assert.notEqual(p.indexPrice, null, `${p.symbol} index`);
    assert.notEqual(p.markPrice, null, `${p.symbol} mark`);
    assert.equal(p.indexHeld, false);
  }
});

test('an operator-set index price holds its market until released; the feed then walks from it', async () => {
  const ethBefore = (await price(ETH)).indexPrice;
  ok(await ex.operator('POST', '/operator/index-price', { symbol: BTC, price: '50000' }));
  let held = await price(BTC);
  assert.equal(held.indexPrice, '50000');
  assert.equal(held.indexHeld, true);
  await ex.advance(400); // twenty feed steps
  held = await price(BTC);
  assert.equal(held.indexPrice, '50000', 'the feed did not overwrite it');
  assert.equal(held.indexHeld, true);
  assert.notEqual((await price(ETH)).indexPrice, ethBefore, 'the other markets still walk');

  ok(await ex.operator('POST', '/operator/index-price/release', { symbol: BTC }));
  await ex.advance(400);
  const walked = await price(BTC);
  assert.equal(walked.indexHeld, false);
  assert.notEqual(walked.indexPrice, '50000', 'the feed moves it again');
  assert.ok(Math.abs(Number(walked.indexPrice) - 50000) <= 2500, `walks from 50000, not back to 95000: ${walked.indexPrice}`);
});

test('release: operator key, a known symbol', async () => {
  assertError(await ex.operator('POST', '/operator/index-price/release', { symbol: 'DOGE-USD-PERP' }), 404, 'Symbol not found');
  assertError(await ex.request('POST', '/operator/index-price/release', { symbol: BTC }), 401, 'Operator key missing or wrong: send X-Operator-Key');
});
