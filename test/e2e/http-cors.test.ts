/**
 * Browser clients on another origin (`--cors-origins`): an allowed origin reads every answer
 * (the rate-limit headers exposed) and its preflight is answered 204; another origin gets no
 * CORS header; without the setting no answer carries one, and OPTIONS still answers 204 with Allow.
 *
 * The allowed origin is checked on the real pipeline (the setting reaches its listener); the
 * default, no setting, on the in-process exchange's listener (test/harness/in-process-exchange
 * `listen`): the same gateway and socket, without the threads a start costs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fundedTraders, startTestExchange } from './harness.ts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';

const APP = 'https://app.example.com';

test('an allowed origin gets Access-Control-Allow-Origin on answers and its preflight; another origin does not', async () => {
  const api = await startTestExchange({ args: ['--cors-origins', `${APP}, http://localhost:3000`] });

  const book = await api.request('GET', '/book/BTC-USD-PERP', undefined, { origin: APP });
  assert.equal(book.status, 200);
  assert.equal(book.headers.get('access-control-allow-origin'), APP);
  assert.match(book.headers.get('access-control-expose-headers') ?? '', /X-RateLimit-Remaining/);
  assert.match(book.headers.get('vary') ?? '', /Origin/);
  // A refusal is readable too: the browser shows the client the spec's text.
  const missing = await api.request('GET', '/book/NOPE-USD-PERP', undefined, { origin: APP });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('access-control-allow-origin'), APP);

  const preflight = await api.request('OPTIONS', '/account/order', undefined, { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), APP);
  assert.equal(preflight.headers.get('access-control-allow-methods'), 'POST, GET, HEAD, DELETE, OPTIONS');
  assert.equal(preflight.headers.get('access-control-allow-headers'), 'Authorization, Content-Type');
  assert.equal(preflight.headers.get('access-control-allow-credentials'), null, 'bearer tokens, never cookies');

  // A signed order from the allowed origin goes through.
  const [trader] = await fundedTraders(api, 1, '1000');
  const placed = await api.request('POST', '/account/order', await trader.signedOrder({ price: '95000', quantity: '0.001' }), { ...trader.auth(), origin: APP });
  assert.equal(placed.status, 200, placed.text);
  assert.equal(placed.headers.get('access-control-allow-origin'), APP);

  const other = await api.request('OPTIONS', '/account/order', undefined, { origin: 'https://evil.example', 'access-control-request-method': 'POST' });
  assert.equal(other.status, 204);
  assert.equal(other.headers.get('access-control-allow-origin'), null);
  assert.equal(other.headers.get('access-control-allow-methods'), null);
  assert.equal((await api.request('GET', '/markets', undefined, { origin: 'https://evil.example' })).headers.get('access-control-allow-origin'), null);
  assert.equal((await api.request('OPTIONS', '/nowhere', undefined, { origin: APP })).status, 404);
});

test('without --cors-origins no answer carries a CORS header; OPTIONS answers 204 with Allow', async () => {
  const api = await (await startInProcessExchange()).listen();
  const book = await api.request('GET', '/book/BTC-USD-PERP', undefined, { origin: APP });
  assert.equal(book.headers.get('access-control-allow-origin'), null);
  const options = await api.request('OPTIONS', '/book/BTC-USD-PERP', undefined, { origin: APP, 'access-control-request-method': 'GET' });
  assert.equal(options.status, 204);
  assert.equal(options.headers.get('allow'), 'GET, HEAD, OPTIONS');
  assert.equal(options.headers.get('access-control-allow-origin'), null);
});

test('CORS_ORIGINS takes * or exact origins; a path or another scheme stops the start', async () => {
  const { loadSettings } = await import('../../src/config/process.ts');
  assert.deepEqual(loadSettings([], {}).corsOrigins, []);
  assert.deepEqual(loadSettings([], { CORS_ORIGINS: '*' }).corsOrigins, ['*']);
  assert.deepEqual(loadSettings(['--cors-origins', 'https://a.example, http://localhost:3000'], {}).corsOrigins, ['https://a.example', 'http://localhost:3000']);
  for (const bad of ['https://a.example/', 'https://a.example/app', 'a.example', 'ftp://a.example']) {
    assert.throws(() => loadSettings([], { CORS_ORIGINS: bad }), /^ConfigError: CORS_ORIGINS: must be \* or origins such as https:\/\/app\.example\.com/, bad);
  }
});
