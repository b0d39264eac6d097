/**
 * `summary.<symbol>` goes out after trades, at most once a second (docs/feeds.md): trades that
 * come inside that second are in the summary sent when it ends, not left out until the market
 * trades again. Two fills a few milliseconds apart, then nothing: the last summary the client
 * holds counts both, as GET /summary does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange, fundedTraders } from './harness.ts';
import { FeedClient } from './feed-client.ts';

const SYMBOL = 'BTC-USD-PERP';

test('the summary sent after a burst of trades counts the trades of its last second', { timeout: 30_000 }, async () => {
  const ex = await startTestExchange();
  const [maker, taker] = await fundedTraders(ex, 2, '1000000');
  for (const price of ['96000', '96010']) assert.equal((await maker.place({ price, quantity: '-0.001', postOnly: true })).status, 200);
  // Signed beforehand, so the second fill follows the first by a round trip, well inside a second.
  const takes = await Promise.all(['96000', '96010'].map((price) => taker.signedOrder({ price, quantity: '0.001', ioc: true })));

  const feed = await FeedClient.connect(ex.url);
  feed.send({ op: 'subscribe', id: 1, channels: [`summary.${SYMBOL}`] });
  await feed.next((m) => m.type === 'summary', 'the first summary');
  for (const body of takes) assert.equal((await ex.request('POST', '/account/order', body, taker.auth())).status, 200);

  const rest = (await ex.request('GET', '/summary')).json().markets.find((m: { symbol: string }) => m.symbol === SYMBOL);
  assert.equal(rest.trades, 2);
  await feed.next((m) => m.type === 'summary' && m.trades === 2, 'a summary counting both trades', 0, 5000);
  await feed.close();
});
