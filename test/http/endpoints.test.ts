/**
 * Each route is declared once (http/endpoint): the gateway of a full exchange — accounts,
 * orders, operator API with the testnet faucet, operations, a replicated node's /cluster, the
 * feeds' AsyncAPI document — serves exactly the declarations of http/endpoints (the list the API
 * document is built from, and the gateway's table too), each under the pattern its path gives,
 * and nothing undeclared.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { routes } from '../../src/http/gateway.ts';
import { ENDPOINTS } from '../../src/http/endpoints.ts';
import { fullGatewayOptions } from './full-gateway.ts';

test('the served routes are exactly the declared endpoints, each once, at the pattern of its path', () => {
  const table = routes(fullGatewayOptions('a route called a port while the table was built'));
  const served = table.map((r) => `${r.method} ${r.pattern}`);
  assert.equal(new Set(served).size, served.length, 'no route served twice');
  for (const r of table) assert.equal(r.pattern, r.endpoint.path.replace(/\{(\w+)\}/g, ':$1'), `${r.method} ${r.pattern}: its declaration's path`);
  const declared = ENDPOINTS.map((e) => `${e.method} ${e.path.replace(/\{(\w+)\}/g, ':$1')}`);
  assert.deepEqual(served, declared, 'every declaration served, in the document\'s order');
  const hidden = ENDPOINTS.filter((e) => e.hidden === true).map((e) => `${e.method} ${e.path}`);
  assert.deepEqual(hidden.sort(), ['get /app/app.js', 'get /app/icon.svg', 'get /app/page.css']);
  for (const r of table) assert.ok(ENDPOINTS.includes(r.endpoint), `${r.method} ${r.pattern} is served with the declaration the document lists`);
});
