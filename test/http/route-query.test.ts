/**
 * What `route()` (http/endpoint) reads before a handler runs, for every route: the query with
 * the one strict parser, then the body with its declaration's schema. Every declared route of a
 * full gateway — accounts, orders, operator API with the testnet faucet, operations, a
 * replicated node's /cluster — refuses a query parameter it does not declare, and one given
 * twice, before its handler runs; the routes declared `ignoresQuery` (probes, /metrics, the page,
 * its files, /docs, and the reads that take no parameter: /config, /markets, /time, the API
 * documents, /cluster) answer the same with or without a query string. Every route declaring a
 * body refuses one its schema does not accept, after the query. Generated from http/endpoints
 * `ENDPOINTS`: a route added there is covered here without a line written. And a route cannot
 * parse or serialize by a schema other than its declaration's: `route()` compiles both from the
 * declaration, its type gives the handler the declared body's type, and no module but
 * http/endpoint compiles a body parser or a response serializer (the last tests).
 *
 * The requests are answered in process (test/harness/inject) by the gateway's own dispatch over
 * ports that answer nothing: a refused query or body never reaches them. The token and the
 * operator key are accepted, so the refusal heard is the query's or the body's, which come after
 * them (a forged token, a wrong key or an unknown market in the path is answered first).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { gatewayDispatch } from '../../src/http/gateway.ts';
import { ENDPOINTS } from '../../src/http/endpoints.ts';
import { route, type Endpoint } from '../../src/http/endpoint.ts';
import type { AccountGuard, CallContext } from '../../src/http/auth-guard.ts';
import { AuthCode } from '../../src/auth/codes.ts';
import { injector } from '../harness/inject.ts';
import { fullGatewayOptions } from './full-gateway.ts';

const CALLER = '0x00000000000000000000000000000000000000a1';
const TOKEN = 'Bearer token';
const OPERATOR_KEY = 'k'.repeat(32);

const dispatch = gatewayDispatch(
  fullGatewayOptions('a refused request reached a port', {
    clock: () => 1_700_000_000_000,
    tokens: { verifyHeader: async (header: string) => (header === TOKEN ? { ok: true, value: CALLER } : { ok: false, code: AuthCode.InvalidToken }) },
    operatorKey: OPERATOR_KEY,
    operations: { notReady: () => null, metrics: async () => '# no series\n', metricsContentType: 'text/plain; version=0.0.4' },
    cluster: { writeRefusal: () => null, headers: () => null, describe: () => ({ role: 'primary' }) },
    feedsDocument: () => ({}),
  }),
);
const inject = injector(dispatch.public);

let client = 0;
/** `endpoint` asked with `query`: a fresh source address each time, so no budget runs out. */
const ask = (endpoint: Endpoint, query: string, { symbol = 'BTC-USD-PERP', authorization = TOKEN, operatorKey = OPERATOR_KEY, body = null as string | null } = {}) =>
  inject({
    method: endpoint.method,
    path: endpoint.path.replace(/\{\w+\}/g, symbol),
    query,
    authorization,
    operatorKey,
    origin: '',
    acceptEncoding: '',
    remoteAddress: `10.0.${client >> 8}.${client++ & 255}`,
    body,
  });

const name = (e: Endpoint) => `${e.method.toUpperCase()} ${e.path}`;
const strict = ENDPOINTS.filter((e) => e.ignoresQuery !== true);

test('every declared route that reads its query refuses a parameter it does not declare, naming the ones it does', async () => {
  assert.ok(strict.length >= 30, 'the API routes, public, account, order and operator ones');
  for (const endpoint of strict) {
    const names = (endpoint.query ?? []).map((p) => p.name);
    const reply = await ask(endpoint, 'bogus=1');
    assert.deepEqual([reply.status, reply.body], [400, `Unknown query parameter bogus; allowed: ${names.length === 0 ? 'none' : names.join(', ')}`], name(endpoint));
  }
});

test('every declared parameter given twice is refused, unless it is an array', async () => {
  for (const endpoint of strict) {
    for (const param of endpoint.query ?? []) {
      const reply = await ask(endpoint, `${param.name}=1&${param.name}=2`);
      if (param.schema.type === 'array') assert.notEqual(reply.body, `Query parameter ${param.name} given more than once`, `${name(endpoint)} ${param.name}`);
      else assert.deepEqual([reply.status, reply.body], [400, `Query parameter ${param.name} given more than once`], `${name(endpoint)} ${param.name}`);
    }
  }
});

test('the probes, /metrics, the page, its files, /docs and the reads without parameters answer the same with a query string as without', async () => {
  const ignoring = ENDPOINTS.filter((e) => e.ignoresQuery === true).map(name);
  assert.deepEqual(ignoring.sort(), [
    'GET /', 'GET /app/app.js', 'GET /app/icon.svg', 'GET /app/page.css', 'GET /asyncapi.json', 'GET /cluster', 'GET /config', 'GET /docs',
    'GET /health', 'GET /markets', 'GET /metrics', 'GET /openapi.json', 'GET /ready', 'GET /time',
  ]);
  for (const endpoint of ENDPOINTS.filter((e) => e.ignoresQuery === true)) {
    const plain = await ask(endpoint, '');
    const busted = await ask(endpoint, 'v=2&utm_source=x');
    assert.equal(plain.status, 200, name(endpoint));
    assert.deepEqual([busted.status, busted.body], [plain.status, plain.body], name(endpoint));
  }
});

test('the query is read after what comes first: the token, the operator key, the market a path names', async () => {
  for (const endpoint of strict) {
    if (endpoint.auth) assert.deepEqual(pick(await ask(endpoint, 'bogus=1', { authorization: 'Bearer forged' })), [401, 'Invalid JWT token'], name(endpoint));
    if (endpoint.operator === true) assert.deepEqual(pick(await ask(endpoint, 'bogus=1', { operatorKey: 'guess' })), [401, 'Operator key missing or wrong: send X-Operator-Key'], name(endpoint));
    if (endpoint.pathParams !== undefined) assert.equal((await ask(endpoint, 'bogus=1', { symbol: 'NOPE-USD-PERP' })).status, 404, name(endpoint));
  }
});

const pick = (reply: { status: number; body: string }) => [reply.status, reply.body];

const withBody = ENDPOINTS.filter((e) => e.body !== undefined);

test('every route declaring a body refuses one its schema does not accept, before its handler reaches anything', async () => {
  assert.deepEqual(withBody.map(name).sort(), [
    'POST /account/delegates', 'POST /account/margin', 'POST /account/order', 'POST /account/orders', 'POST /account/orders/cancel', 'POST /account/transfer',
    'POST /auth/challenge', 'POST /auth/login', 'POST /faucet', 'POST /operator/deposit', 'POST /operator/index-price', 'POST /operator/index-price/release', 'POST /operator/withdraw',
  ]);
  for (const endpoint of withBody) {
    assert.deepEqual(pick(await ask(endpoint, '', { body: '{"orders": [' })), [400, 'Request body must be valid JSON'], name(endpoint));
    const unknown = await ask(endpoint, '', { body: '{"bogus": 1}' });
    assert.equal(unknown.status, 400, name(endpoint));
    assert.match(unknown.body, /^(Missing|Unknown) field (\w+\.)?\w+$/, name(endpoint));
  }
});

test('the body is read after the door and the query: a forged token, a wrong key, an undeclared parameter is answered first', async () => {
  for (const endpoint of withBody) {
    const bad = { body: 'not json' };
    if (endpoint.auth) assert.deepEqual(pick(await ask(endpoint, '', { ...bad, authorization: 'Bearer forged' })), [401, 'Invalid JWT token'], name(endpoint));
    if (endpoint.operator === true) assert.deepEqual(pick(await ask(endpoint, '', { ...bad, operatorKey: 'guess' })), [401, 'Operator key missing or wrong: send X-Operator-Key'], name(endpoint));
    assert.deepEqual(pick(await ask(endpoint, 'bogus=1', bad)), [400, 'Unknown query parameter bogus; allowed: none'], name(endpoint));
  }
});

/** A declaration of the tests' own: a body of one integer, a response of that integer alone. */
const ECHO: Endpoint<{ n: number }> = {
  method: 'post', path: '/echo', tag: 'Testnet', summary: 'echo', description: '', auth: false,
  body: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false },
  response: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  errors: [],
};
const post = (body: string) => ({ method: 'post', path: '/echo', query: '', params: [], authorization: '', operatorKey: '', origin: '', acceptEncoding: '', remoteAddress: '10.1.0.1', body });

test("a handler is given the body its declaration's schema accepted, and answers through the declared response's serializer", async () => {
  const seen: unknown[] = [];
  const echo = route(ECHO, (_req, _query, serialize, _found, body) => {
    seen.push(body);
    return { status: 200, body: serialize({ n: body.n, secret: 'not in the declared response' }) };
  });
  assert.deepEqual(pick(await echo.handler(post('{"n": 7}'))), [200, '{"n":7}']);
  assert.deepEqual(pick(await echo.handler(post('{"n": "7"}'))), [400, 'n must be of type integer']);
  assert.deepEqual(seen, [{ n: 7 }], 'the refused body never reached the handler');
});

test('no module but http/endpoint compiles a body parser or a response serializer', () => {
  const src = new URL('../../src/', import.meta.url);
  const compiling = (readdirSync(src, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts') && /\b(bodyParser|serializer|fastJson)\(|\bajv\.compile\(/.test(readFileSync(new URL(file, src), 'utf8')))
    .sort();
  assert.deepEqual(compiling, ['http/endpoint.ts', 'http/serializer.ts', 'http/validation.ts']);
});

/** Never called: tsc checks it (npm run typecheck). A handler of another body's type cannot serve a declaration. */
export function handlersOfAnotherBody(guard: AccountGuard): void {
  // @ts-expect-error the declaration's body is { n: number }, the handler's another
  route(ECHO, (_req, _query, _serialize, _found, body: { name: string }) => ({ status: 200, body: body.name }));
  // @ts-expect-error the same behind the account guard
  guard.route(ECHO, (_req, ctx: CallContext<{ name: string }>) => ({ status: 200, body: ctx.body.name }));
}
