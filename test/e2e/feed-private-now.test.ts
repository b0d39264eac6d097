/**
 * An account's own events are not held for the public window: while a market's public trades
 * wait for the next window, the taker's private stream already has its fill and its order
 * filled — a trader learns of its own fill as soon as the journal has it, whatever the public
 * fan-out does. The window is widened to two seconds so "not yet published" lasts long enough to
 * see (a round trip here takes milliseconds; the file runs alone, test/run.ts SERIAL), and the
 * test waits out two of them: the one the first resting order opens, and the one it measures.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange, fundedTraders } from './harness.ts';
import { FeedClient } from './feed-client.ts';

const WINDOW_MS = 2000;
const SYMBOL = 'BTC-USD-PERP';

test("an account's fill reaches its private stream while the public trade waits for the window", { timeout: 60_000 }, async () => {
  const ex = await startTestExchange({ feedLimits: { publishEveryMs: WINDOW_MS } });
  const [maker, taker] = await fundedTraders(ex, 2, '1000000');
  // Signed beforehand, so the orders inside the window take only their round trips.
  const ask = await maker.signedOrder({ price: '96010', quantity: '-0.001' });
  const bid = await taker.signedOrder({ price: '96010', quantity: '0.001', ioc: true });
  const channel = `account.${taker.address}.0`;
  const feed = await FeedClient.connect(ex.url);
  await feed.login(taker.token);
  feed.send({ op: 'subscribe', id: 1, channels: [`trades.${SYMBOL}`, channel] });
  await feed.next((m) => m.channel === channel && m.type === 'live', 'the private stream live');
  const publicTrades = () => feed.messages.filter((m) => m.type === 'trades');
  const privateFills = () => feed.messages.filter((m) => m.channel === channel && m.type === 'fill');

  // The maker's order is the market's first change: published at once, it opens a window the
  // first trade waits out; that trade's publication opens the next window.
  assert.equal((await maker.place({ price: '96000', quantity: '-0.001' })).status, 200);
  assert.equal((await taker.place({ price: '96000', quantity: '0.001', ioc: true })).status, 200);
  await feed.until(() => publicTrades().length === 1 && privateFills().length === 1, 'the first trade, public and private');
  const opened = Date.now();

  // The second, inside the window: the private fill and order come now, the public trade later.
  assert.equal((await ex.request('POST', '/account/order', ask, maker.auth())).status, 200);
  const placed = await ex.request('POST', '/account/order', bid, taker.auth());
  assert.equal(placed.status, 200, placed.text);
  await feed.until(() => privateFills().length === 2, 'the second fill on the private stream');
  await feed.next((m) => m.channel === channel && m.type === 'order' && m.order.price === '96010' && m.order.status === 'filled', 'the taker order filled');
  assert.ok(Date.now() - opened < WINDOW_MS, `the second trade took ${Date.now() - opened} ms, past the ${WINDOW_MS} ms window`);
  assert.equal(publicTrades().length, 1, 'the public trade still waits for the window');
  assert.equal(privateFills()[1].fill.price, '96010');

  await feed.until(() => publicTrades().length === 2, 'the public trade once the window ends');
  assert.deepEqual(publicTrades()[1].trades.map((t: { price: string }) => t.price), ['96010']);
  await feed.close();
});
