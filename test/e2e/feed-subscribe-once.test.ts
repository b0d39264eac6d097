/**
 * A channel named twice in one subscribe — as given and by its canonical name, say — is
 * subscribed once: the reply names it once and one snapshot comes, so a client keeping a book
 * is not handed the same book twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange } from './harness.ts';
import { sleep } from '../harness/api-helpers.ts';
import { FeedClient } from './feed-client.ts';

test('a channel named twice in one subscribe is subscribed once: one name in the reply, one snapshot', async () => {
  const ex = await startTestExchange();
  const feed = await FeedClient.connect(ex.url);
  feed.send({ op: 'subscribe', id: 1, channels: ['book.BTC', 'book.BTC-USD-PERP', 'trades.BTC', 'trades.BTC'] });
  const reply = await feed.next((m) => m.id === 1, 'the reply');
  assert.deepEqual(reply.channels, ['book.BTC-USD-PERP', 'trades.BTC-USD-PERP']);
  await feed.next((m) => m.type === 'snapshot', 'the snapshot');
  await sleep(300);
  assert.equal(feed.messages.filter((m) => m.type === 'snapshot').length, 1);
  await feed.close();
});
