/**
 * GET /ready names a market thread that stopped: the process is up (/health 200) but the
 * markets on that thread cannot match, so a load balancer must send traffic elsewhere. The link
 * notices the thread's exit itself (first test, a real market thread); the route reports what
 * the links say (second, on the in-process exchange: its sequencer asks its links as the
 * pipeline's does).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseMarkets } from '../../src/config/market.ts';
import { MarketLink } from '../../src/transport/market-link.ts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';

const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));

test('a market link reports its thread once the thread has exited', async () => {
  const link = new MarketLink(markets.slice(0, 1), new Map(), () => {}, () => {});
  assert.equal(link.problem(), null);
  await link.terminate();
  for (let i = 0; i < 50 && link.problem() === null; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.match(link.problem() ?? '', /^market thread of BTC-USD-PERP exited \(code \d+\)$/);
});

test('/ready is 503 naming a stopped market thread, while /health stays 200', async () => {
  const ex = await startInProcessExchange();
  const links = (ex.exchange.sequencer as unknown as { links: MarketLink[] }).links;
  const problem = links[1].problem;
  links[1].problem = () => 'market thread exited (code 1)';
  const ready = await ex.request('GET', '/ready');
  assert.equal(ready.status, 503);
  assert.equal(ready.text, 'Not ready: market thread exited (code 1)');
  assert.equal((await ex.request('GET', '/health')).status, 200);
  links[1].problem = problem;
  assert.equal((await ex.request('GET', '/ready')).status, 200);
});
