/**
 * `--operator-port`: the operator API and /metrics leave the public listener for one on
 * 127.0.0.1, so the public port cannot reach them whatever key is guessed; the probes answer on
 * both. Without it everything stays on the public port (the other e2e tests).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiClient, Trader } from './harness.ts';
import { startServerProcess } from './server-process.ts';

test('with --operator-port the operator API and /metrics answer only on 127.0.0.1:<operator port>', { timeout: 60_000 }, async (t) => {
  const server = await startServerProcess(['--operator-port', '0']);
  t.after(() => server.stop());
  const operatorPort = server.logged('exchange ready')!.operatorPort;
  assert.ok(Number.isInteger(operatorPort) && operatorPort > 0 && operatorPort !== server.port, `operator port ${operatorPort}`);
  const publicApi = server.client;
  const operatorApi = apiClient(`http://127.0.0.1:${operatorPort}`);

  const trader = await new Trader(publicApi).login();
  const deposit = { account: trader.address, subaccountIndex: 0, amount: '100' };
  const refused = await publicApi.operator('POST', '/operator/deposit', deposit);
  assert.equal(refused.status, 404, 'the public port does not know the operator API, even with the right key');
  assert.equal(refused.text, 'Route not found: /operator/deposit');
  assert.equal((await publicApi.request('GET', '/metrics')).status, 404);

  assert.equal((await operatorApi.operator('POST', '/operator/deposit', deposit)).status, 200);
  assert.equal((await operatorApi.request('POST', '/operator/deposit', deposit)).status, 401, 'the key is still checked there');
  const metrics = await operatorApi.request('GET', '/metrics');
  assert.equal(metrics.status, 200);
  assert.match(metrics.text, /perp_http_requests_total\{route="\/operator\/deposit",method="POST",status="200"\} 1/);
  for (const api of [publicApi, operatorApi]) assert.equal((await api.request('GET', '/ready')).text, 'ready');
  // The public API is not served on the operator port.
  assert.equal((await operatorApi.request('GET', '/markets')).status, 404);
  assert.equal((await publicApi.request('GET', '/markets')).status, 200);
});
