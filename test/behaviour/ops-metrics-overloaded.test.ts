/**
 * GET /metrics counts a write the exchange refuses because a stage is behind (503) by its
 * reason, Overloaded, as it counts every refusal. The rest of the metrics, which the threads,
 * the journal's flushes and the feeds move: test/e2e/ops-metrics.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { fundedTraders } from '../harness/traders.ts';
import { scrape, value } from '../harness/prometheus.ts';

test('a write refused 503 because a stage is behind counts as Overloaded', async () => {
  const ex = await startInProcessExchange();
  const [alice] = await fundedTraders(ex, 1, '100000');
  ex.exchange.sequencer.overloaded = () => 'a market is behind';
  assert.equal((await alice.place({ price: '95000', quantity: '0.1' })).status, 503);
  assert.equal(value(await scrape(ex), 'perp_orders_refused_total', { reason: 'Overloaded' }), 1);
});
