/**
 * Log lines that help an operator: the start-up line names the uWebSockets.js build (two can
 * load, docs/decisions.md), the signature backend, the thread
 * counts and the markets each market thread runs (by symbol); a refused write is one debug
 * line with the reason the client read; the access log, when switched on, is one line per
 * request; books are named by symbol. Without the access log no request is logged, and every
 * 503 is a warn line with its reason: in process, test/behaviour/ops-logs-overloaded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fundedTraders } from './harness.ts';
import { startServerProcess } from './server-process.ts';

test('the process logs its threads and markets at start, a debug line per refused write, and with ACCESS_LOG=on a line per request', { timeout: 60_000 }, async (t) => {
  const server = await startServerProcess(['--market-threads', '2', '--signature-threads', '1'], { LOG_LEVEL: 'debug', ACCESS_LOG: 'on' });
  t.after(() => server.stop());
  const ready = server.logged('exchange ready')!;
  assert.match(ready.httpServer, /^@(btc-vision\/uwebsockets\.js@20\.57\.0|trufflesuite\/uws-js-unofficial@20\.30\.0-unofficial\.0)$/);
  assert.match(ready.signatureBackend, /^(native|noble)$/);
  assert.equal(ready.signatureThreads, 1);
  assert.equal(ready.marketThreads, 2);
  assert.deepEqual(ready.marketsPerThread, [['BTC-USD-PERP', 'SOL-USD-PERP'], ['ETH-USD-PERP']]);
  assert.equal(ready.accessLog, true);
  assert.deepEqual(server.logged('journal replayed')!.books.map((b: { market: string }) => b.market), ['BTC-USD-PERP', 'ETH-USD-PERP', 'SOL-USD-PERP'], 'books by symbol');

  const [trader] = await fundedTraders(server.client, 1, '1000');
  const refused = await trader.place({ price: '95000', quantity: '1000' });
  assert.equal(refused.status, 400);
  // The server logs a request once it has answered it, the refusal line first, then the access
  // line: once the access line of the refused order is read, every line about it is.
  await server.untilLogged((e) => e.msg === 'request' && e.method === 'post' && e.path === '/account/order', 'access line of the refused order');
  const refusals = server.log.filter((e) => e.msg === 'write refused');
  assert.equal(refusals.length, 1, 'one line per refused write (the successful ones make none)');
  assert.equal(refusals[0].level, 20, 'at debug');
  assert.equal(refusals[0].route, '/account/order');
  assert.equal(refusals[0].status, 400);
  assert.equal(refusals[0].reason, refused.text, 'the reason the client read');

  const requests = server.log.filter((e) => e.msg === 'request');
  assert.deepEqual(
    requests.map((e) => `${e.method} ${e.path} ${e.status}`),
    ['get /config 200', 'post /auth/challenge 200', 'post /auth/login 200', 'post /operator/deposit 200', 'post /account/order 400'],
  );
  assert.ok(requests.every((e) => typeof e.ms === 'number' && e.client === '127.0.0.1'));

  // Books are named by symbol in the stop line too.
  await server.kill('SIGTERM');
  assert.deepEqual(server.logged('stopped')!.books.map((b: { market: string }) => b.market), ['BTC-USD-PERP', 'ETH-USD-PERP', 'SOL-USD-PERP']);
});
