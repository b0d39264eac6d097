/**
 * GET /metrics as Prometheus reads it: the text parses with a real parser of the exposition
 * format, and the figures move as orders go through HTTP — accepted, refused by reason, filled,
 * journaled — with request counts per route and status.
 *
 * The parser (test/harness/prometheus.ts) folds the series of a labelled histogram into one, so per-route
 * figures are read from the request counter; the unlabelled histograms (journal flush,
 * snapshot) are read whole. A write refused as Overloaded is counted in process:
 * test/behaviour/ops-metrics-overloaded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange, fundedTraders } from './harness.ts';
import { FeedClient } from './feed-client.ts';
import { sample, scrape, value } from '../harness/prometheus.ts';

test('a scrape parses, and orders placed over HTTP move the order, fill, request and journal figures', async () => {
  const ex = await startTestExchange();
  const before = await scrape(ex);
  assert.equal(before.get('perp_orders_accepted_total')?.type, 'COUNTER');
  assert.equal(value(before, 'perp_orders_accepted_total'), 0);
  assert.equal(value(before, 'perp_fills_total'), 0);

  const [alice, bob] = await fundedTraders(ex, 2, '100000');
  assert.equal((await alice.place({ price: '95000', quantity: '0.5' })).status, 200);
  assert.equal((await bob.place({ price: '94000', quantity: '-0.2' })).status, 200);
  // 1,000 BTC on 100,000 USD: refused by the margin check.
  const refused = await bob.place({ price: '95000', quantity: '1000' });
  assert.equal(refused.status, 400, refused.text);

  const after = await scrape(ex);
  assert.equal(value(after, 'perp_orders_accepted_total'), 2);
  assert.equal(value(after, 'perp_fills_total'), 1);
  const reasons = after.get('perp_orders_refused_total')!.metrics;
  assert.equal(reasons.length, 1, JSON.stringify(reasons));
  assert.match(reasons[0].labels!.reason, /^[A-Z][A-Za-z]+$/, 'a refusal is named by its code');
  assert.equal(Number(reasons[0].value), 1);

  assert.equal(value(after, 'perp_http_requests_total', { route: '/account/order', method: 'POST', status: '200' }), 2);
  assert.equal(value(after, 'perp_http_requests_total', { route: '/account/order', method: 'POST', status: '400' }), 1);
  assert.equal(after.get('perp_http_request_duration_seconds')?.type, 'HISTOGRAM');
  // Unknown paths share one series, so a scanner cannot grow the label set.
  await ex.request('GET', '/no/such/path');
  await ex.request('GET', '/another/unknown');
  const scanned = await scrape(ex);
  assert.equal(value(scanned, 'perp_http_requests_total', { route: 'unmatched', status: '404' }), 2);

  assert.ok(Number(sample(after, 'perp_journal_flush_duration_seconds')?.count) > 0, 'flushes are timed');
  assert.ok(Number(sample(after, 'perp_journal_flush_records')?.sum) >= 2, 'the flushed records are counted');
  assert.ok(value(after, 'perp_signatures_recovered_total') >= 3, 'every order signature went through the pool');
  assert.equal(value(after, 'perp_signature_queue'), 0);
  assert.equal(after.get('perp_ring_occupancy_ratio')!.metrics.length, 2, 'one ring gauge per market thread');
  // The projection thread follows the journal: lag is what it has not written yet, 0 once it has
  // caught up (on a loaded machine, a scrape may come a record ahead of it).
  let lag = value(after, 'perp_projection_lag_records');
  for (const end = Date.now() + 5_000; lag !== 0 && Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 50))) {
    lag = value(await scrape(ex), 'perp_projection_lag_records');
  }
  assert.equal(lag, 0, 'the projection catches up with the journal');
  assert.ok(Number.isNaN(value(after, 'perp_snapshot_age_seconds')), 'no snapshot yet in this process');
  assert.ok(after.has('perp_replay_duration_seconds'));
  assert.ok(after.has('perp_process_cpu_seconds_total'), 'the process figures are there too');

  // A snapshot moves the snapshot figures.
  assert.equal((await ex.operator('POST', '/operator/snapshot')).status, 200);
  const snapshotted = await scrape(ex);
  assert.equal(Number(sample(snapshotted, 'perp_snapshot_duration_seconds')?.count), 1);
  assert.ok(value(snapshotted, 'perp_snapshot_age_seconds') < 60);
});

test('WebSocket feeds: connections open and messages received, sent and published are counted', async () => {
  const ex = await startTestExchange();
  const before = await scrape(ex);
  assert.equal(value(before, 'perp_ws_connections'), 0);
  const feed = await FeedClient.connect(ex.url);
  feed.send({ op: 'ping', id: 1 });
  await feed.next((m) => m.type === 'pong', 'pong');
  feed.send({ op: 'subscribe', id: 2, channels: ['book.BTC-USD-PERP'] });
  await feed.next((m) => m.channel === 'book.BTC-USD-PERP', 'the book snapshot');
  const during = await scrape(ex);
  assert.equal(value(during, 'perp_ws_connections'), 1);
  assert.equal(value(during, 'perp_ws_messages_received_total'), 2);
  assert.ok(value(during, 'perp_ws_messages_sent_total') >= 3, 'pong, subscribed, snapshot');
  assert.equal(during.get('perp_ws_messages_published_total')?.type, 'COUNTER');
  feed.socket.close();
  await feed.until(() => feed.closed !== null, 'the close');
  for (let i = 0; i < 50 && value(await scrape(ex), 'perp_ws_connections') !== 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(value(await scrape(ex), 'perp_ws_connections'), 0);
});
