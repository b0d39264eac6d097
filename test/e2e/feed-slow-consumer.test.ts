/**
 * A slow consumer is cut off, not waited for: a client that stops reading while the server
 * keeps writing to it is closed with 4008 and a reason once its unsent bytes pass the limit,
 * while a client that reads keeps receiving every trade, in order, during the stall.
 * The limit is lowered (256 KiB) so the test writes little; the kernel's socket buffers still
 * take several megabytes first, so the stalled client asks for them itself (book snapshots,
 * re-subscribing) — the server cannot tell those from published bytes. Its messages are
 * let past the per-address message budget (docs/feeds.md), which would refuse that flood.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange, fundedTraders } from './harness.ts';
import { FeedClient } from './feed-client.ts';
import { SLOW_CONSUMER_CLOSE } from '../../src/ws/feeds.ts';

const LIMIT = 256 * 1024;

test('a slow consumer is closed with a reason while a fast one keeps receiving', { timeout: 90_000 }, async () => {
  const ex = await startTestExchange({ feedLimits: { slowConsumerBytes: LIMIT, messagesPerSecond: 1_000_000 } });
  const [maker, taker] = await fundedTraders(ex, 2, '1000000');
  // A deep book makes each snapshot a few kilobytes.
  for (let i = 0; i < 40; i++) assert.equal((await maker.place({ price: (96000 + i * 10).toFixed(1), quantity: '-0.001' })).status, 200);

  const fast = await FeedClient.connect(ex.url);
  fast.send({ op: 'subscribe', id: 1, channels: ['trades.BTC-USD-PERP'] });
  await fast.next((m) => m.type === 'subscribed', 'subscribed');
  const slow = await FeedClient.connect(ex.url);
  slow.send({ op: 'subscribe', id: 1, channels: ['book.BTC-USD-PERP', 'trades.BTC-USD-PERP'] });
  await slow.next((m) => m.type === 'snapshot', 'snapshot');
  const snapshotBytes = JSON.stringify(slow.messages.find((m) => m.type === 'snapshot')).length;
  // The slow client stops reading; its requests still reach the server.
  (slow.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
  const flood = Math.ceil((32 * 1024 * 1024) / snapshotBytes);
  for (let sent = 0; sent < flood; sent += 500) {
    for (let i = 0; i < 500; i++) slow.send({ op: 'subscribe', channels: ['book.BTC-USD-PERP'] });
    await new Promise((resolve) => setTimeout(resolve, 5));
  }

  // Meanwhile trades go on, and the fast client gets each of them.
  const trades = 5;
  for (let i = 0; i < trades; i++) assert.equal((await taker.place({ price: (96000 + i * 10).toFixed(1), quantity: '0.001', ioc: true })).status, 200);
  await fast.until(() => fast.messages.filter((m) => m.type === 'trades').flatMap((m) => m.trades).length === trades, `${trades} trades on the fast client`);
  const prices = fast.messages.filter((m) => m.type === 'trades').flatMap((m) => m.trades.map((t: { price: string }) => t.price));
  assert.deepEqual(prices, [...Array(trades).keys()].map((i) => String(96000 + i * 10)));
  assert.equal(fast.closed, null, 'the fast client stays connected');

  // The slow one reads again: what was sent before the cut, then the close and its reason.
  (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
  await slow.until(() => slow.closed !== null, 'the slow client to be closed', 30_000);
  assert.equal(slow.closed!.code, SLOW_CONSUMER_CLOSE);
  assert.match(slow.closed!.reason, /^Slow consumer: \d+ bytes unsent, more than 262144$/);
  await fast.close();
});
