/**
 * GET /openapi.json and GET /docs on the in-process exchange (test/harness/in-process-exchange):
 * an OpenAPI 3.1 document naming every route of the API with its parameters, bodies and error
 * texts; real responses validate against its schemas; the HTML page is self-contained.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ALICE_VIEM as ALICE_WALLET, ALICE } from '../auth/fixtures.ts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { ENDPOINTS } from '../../src/http/endpoints.ts';
import { localUrl } from '../../src/http/gateway.ts';

const ex = await startInProcessExchange();
const get = (path: string, token?: string) => ex.request('GET', path, undefined, token === undefined ? {} : { authorization: `Bearer ${token}` });
const post = (path: string, body: unknown) => ex.request('POST', path, body);
const document = (await get('/openapi.json')).json();

/** Every route of the API: public market data, login, account, orders (spec), the testnet faucet, the operator API, operations, reference. */
const ROUTES = [
  'get /config', 'get /markets', 'get /time', 'get /book/{symbol}', 'get /orderbook', 'get /candles/{symbol}', 'get /trades/{symbol}', 'get /price', 'get /summary',
  'post /auth/challenge', 'post /auth/login',
  'get /account/stats', 'get /account/positions', 'get /account/fills', 'get /account/balance', 'get /account/margin', 'post /account/margin',
  'post /account/transfer', 'get /account/transfer/history', 'get /account/delegates', 'post /account/delegates', 'get /account/signers', 'get /account/nonce',
  'post /account/order', 'post /account/orders', 'get /account/order', 'delete /account/order', 'post /account/orders/cancel', 'delete /account/orders', 'get /account/orders',
  'post /faucet',
  'post /operator/deposit', 'post /operator/withdraw', 'post /operator/index-price', 'post /operator/index-price/release', 'post /operator/snapshot', 'get /operator/state-hash',
  'get /health', 'get /ready', 'get /metrics', 'get /cluster',
  'get /openapi.json', 'get /asyncapi.json', 'get /docs', 'get /',
];

test('the document is OpenAPI 3.1 and names every route of the API, and nothing else', () => {
  assert.equal(document.openapi, '3.1.0');
  const documented = Object.entries(document.paths as Record<string, object>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
  assert.deepEqual(documented.sort(), [...ROUTES].sort());
});

test('the account routes served here are all documented with the method and path they answer', async () => {
  for (const route of ROUTES.filter((r) => /\/(account|auth)\//.test(r))) {
    const [method, path] = route.split(' ');
    const res = await ex.request(method.toUpperCase(), path, method === 'get' ? undefined : {});
    assert.notEqual(res.status, 404, `${route} is served: ${res.text}`);
  }
});

test('every /account/* operation requires the bearer token and lists 401 and 429; errors are plain text with their texts', () => {
  for (const [path, ops] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(ops)) {
      assert.ok(op.responses['200'], `${method} ${path} has a success response`);
      if (!path.startsWith('/account/')) continue;
      assert.deepEqual(op.security, [{ bearer: [] }], `${method} ${path}`);
      assert.match(op.responses['401'].description, /Please add the JWT token to the header/);
      assert.ok(op.responses['429'].headers['Retry-After'], `${method} ${path} 429 Retry-After`);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        if (status !== '200') assert.ok(response.content['text/plain'], `${method} ${path} ${status}`);
      }
    }
  }
  const texts = (method: string, path: string) => JSON.stringify(document.paths[path][method].responses);
  assert.match(texts('get', '/account/stats'), /Delegation not allowed for request/);
  assert.match(texts('get', '/account/positions'), /Symbol not found/);
  assert.match(texts('get', '/account/fills'), /Limit must be between 1 and 5000, got <n>/);
  assert.match(texts('post', '/account/transfer'), /Transfer amount exceeds available balance/);
  assert.match(texts('post', '/account/margin'), /Unauthorized to change margin for account <account>/);
  assert.match(texts('post', '/account/margin'), /Account not found/);
  assert.match(texts('post', '/account/orders'), /Not delegated for account and subaccount/);
  assert.match(texts('post', '/account/orders'), /Invalid subaccount index/);
  assert.match(texts('post', '/account/order'), /May not specify period on Limit order/);
  assert.match(texts('get', '/account/order'), /Order not found/);
  assert.match(texts('get', '/candles/{symbol}'), /Market <symbol> not found/);
  assert.match(texts('get', '/book/{symbol}'), /Depth must be between 1 and 5000/);
  assert.match(texts('get', '/trades/{symbol}'), /Internal server error: Database connection failed/);
});

test('query parameters and bodies are described; every $ref resolves', () => {
  const fills = document.paths['/account/fills'].get.parameters.map((p: { name: string }) => p.name);
  assert.deepEqual(fills, ['account', 'subaccountIndex', 'symbol', 'from', 'to', 'limit', 'cursor']);
  const order = document.paths['/account/orders'].get.parameters.find((p: { name: string }) => p.name === 'orderType');
  assert.equal(order.schema.type, 'array');
  assert.equal(document.paths['/account/transfer'].post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/TransferRequest');
  const schemas = document.components.schemas;
  for (const name of ['Order', 'OrderRequest', 'TransferRequest', 'MarginUpdateRequest', 'DelegationRequest', 'AccountStatistics', 'Positions', 'Balance', 'OrderList', 'BatchCancelResult']) assert.ok(schemas[name], name);
  assert.deepEqual(Object.keys(schemas.Order.properties).sort(), [
    'account', 'clientId', 'createdAt', 'expiresAt', 'flags', 'groupId', 'lastUpdateSequenceNumber', 'nonce', 'ocoGroupId', 'orderId', 'orderType', 'originator', 'originatorFee',
    'parentOrderId', 'period', 'price', 'quantity', 'reason', 'remaining', 'settled', 'status', 'subaccountIndex', 'symbol', 'trailingPercent', 'triggerPrice', 'updatedAt',
  ]);
  const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
  for (const ref of refs) assert.ok(schemas[ref.split('/').pop()!.replace('"', '')], ref);
  assert.equal(ENDPOINTS.filter((e) => e.hidden !== true).length, ROUTES.length);
});

test('real responses validate against the documented schemas', async () => {
  const ajv = new Ajv2020({ strict: false });
  for (const [name, schema] of Object.entries(document.components.schemas)) ajv.addSchema(schema as object, `#/components/schemas/${name}`);
  const check = (path: string, method: string, body: unknown) => {
    const schema = document.paths[path][method].responses['200'].content['application/json'].schema;
    const validate = ajv.compile({ $ref: schema.$ref ?? undefined, ...(schema.$ref ? {} : schema) });
    assert.ok(validate(body), `${method} ${path}: ${JSON.stringify(validate.errors)}`);
  };
  const challenge = await post('/auth/challenge', { address: ALICE });
  check('/auth/challenge', 'post', challenge.json());
  const login = await post('/auth/login', { message: challenge.json().message, signature: await ALICE_WALLET.signMessage({ message: challenge.json().message }) });
  check('/auth/login', 'post', login.json());
  const token = login.json().token;
  assert.equal((await ex.operator('POST', '/operator/deposit', { account: ALICE, subaccountIndex: 0, amount: '10' })).status, 200);
  for (const path of ['/account/stats', '/account/positions', '/account/fills', '/account/balance', '/account/margin', '/account/transfer/history', '/account/delegates', '/account/signers', '/account/nonce']) {
    const res = await get(`${path}?account=${ALICE}&subaccountIndex=0`, token);
    assert.equal(res.status, 200, path);
    check(path, 'get', res.json());
  }
});

test('GET /docs is a self-contained HTML page listing every route', async () => {
  const res = await get('/docs');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  assert.match(res.text, /^<!doctype html>/);
  for (const route of ROUTES) {
    const [method, path] = route.split(' ');
    assert.ok(res.text.includes(`${method.toUpperCase()}</span> ${path}`), route);
  }
  assert.ok(res.text.includes('Transfer amount exceeds available balance'));
  assert.doesNotMatch(res.text, /<script|<link|src=|https?:\/\/(?!json-schema)/, 'nothing loaded from elsewhere');
});

test("the document's first server is where a client on this machine reaches it: a wildcard listen address is localhost", () => {
  assert.equal(localUrl('0.0.0.0', 8080), 'http://localhost:8080', 'what npm start binds');
  assert.equal(localUrl('::', 8080), 'http://localhost:8080');
  assert.equal(localUrl('127.0.0.1', 41234), 'http://127.0.0.1:41234');
  assert.equal(localUrl('::1', 8080), 'http://[::1]:8080');
});

test('GET /asyncapi.json describes the streaming feeds: every channel, each message resolvable', async () => {
  const asyncapi = (await get('/asyncapi.json')).json();
  assert.equal(asyncapi.asyncapi, '3.0.0');
  assert.deepEqual(Object.keys(asyncapi.channels).sort(), ['account', 'book', 'candles', 'control', 'prices', 'summary', 'trades']);
  for (const [name, channel] of Object.entries(asyncapi.channels as Record<string, { messages: Record<string, { $ref: string }> }>)) {
    for (const { $ref } of Object.values(channel.messages)) assert.ok(asyncapi.components.messages[$ref.split('/').pop()!], `${name}: ${$ref} resolves`);
  }
});
