/**
 * A market's book and trades are published at most once a window, and what happens inside one
 * window arrives merged: several fills sent while the window is closed come as one delta (levels
 * with their newest totals) and one trades message (every fill, in order). The merged delta
 * chains on the delta before it — `previous_sequence_number` is the last `sequence_number` the
 * client saw, though the numbers in between were never sent on their own, so nothing looks lost —
 * and leaves the client's copy equal to GET /book at its `sequence_number`, checksum included.
 * The window is widened to two seconds here so the fills surely fall inside one (four round trips
 * of milliseconds; the file runs alone, test/run.ts SERIAL).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange, fundedTraders } from './harness.ts';
import { FeedClient } from './feed-client.ts';
import { BookCopy } from './book-copy.ts';

const WINDOW_MS = 2000;
const SYMBOL = 'BTC-USD-PERP';

test('fills inside one window arrive as one delta and one trades message that leave the copy equal to GET /book', { timeout: 60_000 }, async () => {
  const ex = await startTestExchange({ feedLimits: { publishEveryMs: WINDOW_MS } });
  const [maker, taker] = await fundedTraders(ex, 2, '1000000');
  // Signed beforehand, so the orders inside the window take only their round trips.
  const asks = await Promise.all(['96010', '96020', '96030'].map((price) => maker.signedOrder({ price, quantity: '-0.001' })));
  // Takes 96,000, 96,010 and 96,020 whole and half of 96,030: a level left, three gone.
  const sweep = await taker.signedOrder({ price: '96030', quantity: '0.0035', ioc: true });

  const feed = await FeedClient.connect(ex.url);
  feed.send({ op: 'subscribe', id: 1, channels: [`book.${SYMBOL}`, `trades.${SYMBOL}`] });
  await feed.next((m) => m.type === 'snapshot', 'snapshot');
  const copy = new BookCopy();
  const book = () => feed.messages.filter((m) => m.channel === `book.${SYMBOL}`);
  const trades = () => feed.messages.filter((m) => m.type === 'trades');

  // The first change after a quiet spell goes out at once, and opens a window.
  assert.equal((await maker.place({ price: '96000', quantity: '-0.001' })).status, 200);
  await feed.until(() => book().length === 2, 'the first delta');
  const opened = Date.now();
  for (const body of asks) assert.equal((await ex.request('POST', '/account/order', body, maker.auth())).status, 200);
  const filled = await ex.request('POST', '/account/order', sweep, taker.auth());
  assert.equal(filled.status, 200, filled.text);
  assert.ok(Date.now() - opened < WINDOW_MS, `the orders took ${Date.now() - opened} ms, longer than the ${WINDOW_MS} ms window: nothing was left to merge`);
  assert.equal(book().length, 2, 'nothing was published inside the window');
  const rest = (await ex.request('GET', `/book/${SYMBOL}?depth=5000`)).json();

  await feed.until(() => trades().length === 1 && book().length === 3, 'the merged delta and trades');
  const [snapshot, first, merged] = book();
  for (const m of [snapshot, first, merged]) copy.apply(m);
  assert.equal(merged.previous_sequence_number, first.sequence_number, 'the merged delta starts where the last one ended');
  assert.equal(merged.sequence_number, rest.sequence_number, 'and ends at the book GET /book shows');
  assert.ok(merged.sequence_number - merged.previous_sequence_number > 4, 'it covers the events of four orders');
  assert.deepEqual({ bids: copy.sorted('bids'), asks: copy.sorted('asks') }, { bids: rest.bids, asks: rest.asks });
  assert.deepEqual(copy.sorted('asks'), [{ price: '96030', quantity: '0.0005' }]);

  const fills = trades()[0].trades as { price: string; quantity: string; sequence_number: number }[];
  assert.deepEqual(fills.map((t) => [t.price, t.quantity]), [['96000', '0.001'], ['96010', '0.001'], ['96020', '0.001'], ['96030', '0.0005']]);
  const numbers = fills.map((t) => t.sequence_number);
  assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b), 'trades in order');
  assert.ok(numbers[0] > merged.previous_sequence_number && numbers[3] <= merged.sequence_number, 'the trades lie inside the merged delta');
  await feed.close();
});
