/**
 * What a process manager and a load balancer ask: GET /health (the process answers) and
 * GET /ready (send it traffic, or 503 naming why not), outside the per-address budget.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';

test('GET /health answers 200 ok; GET /ready answers 200 ready, and 503 with the reason and Retry-After while a stage is behind', async () => {
  const ex = await startInProcessExchange();
  const health = await ex.request('GET', '/health');
  assert.equal(health.status, 200);
  assert.equal(health.text, 'ok');
  const ready = await ex.request('GET', '/ready');
  assert.equal(ready.status, 200);
  assert.equal(ready.text, 'ready');

  const sequencer = ex.exchange.sequencer;
  sequencer.overloaded = () => 'journal is behind';
  const behind = await ex.request('GET', '/ready');
  assert.equal(behind.status, 503);
  assert.equal(behind.text, 'Not ready: journal is behind');
  assert.equal(behind.headers.get('retry-after'), '1');
  // The process is still up: /health says so while /ready says not now.
  assert.equal((await ex.request('GET', '/health')).status, 200);
  delete (sequencer as { overloaded?: unknown }).overloaded;
  assert.equal((await ex.request('GET', '/ready')).status, 200);
});

test('probes are never refused 429: 300 /ready in a burst all answer 200 (the public budget is 200 a second)', async () => {
  const ex = await startInProcessExchange();
  const answers = await Promise.all(Array.from({ length: 300 }, () => ex.request('GET', '/ready')));
  assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
});
