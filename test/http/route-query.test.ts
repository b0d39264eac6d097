/**
 * One strict query parser for every route (http/endpoint `route()`): every declared route of a
 * full gateway — accounts, orders, operator API with the testnet faucet, operations, a
 * replicated node's /cluster — refuses a query parameter it does not declare, and one given
 * twice, before its handler runs; the routes declared `ignoresQuery` (probes, /metrics, the page,
 * its files, /docs) answer the same with or without a query string. Generated from
 * http/endpoints `ENDPOINTS`: a route added there is covered here without a line written.
 *
 * The requests are answered in process (test/harness/inject) by the gateway's own dispatch over
 * ports that answer nothing: a refused query never reaches them. The token and the operator key
 * are accepted, so the refusal heard is the query's, which comes after them (the last test:
 * a forged token, a wrong key or an unknown market in the path is answered first).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { gatewayDispatch } from '../../src/http/gateway.ts';
import { ENDPOINTS } from '../../src/http/endpoints.ts';
import type { Endpoint } from '../../src/http/endpoint.ts';
import { parseMarkets } from '../../src/config/market.ts';
import { PROFILES } from '../../src/config/profile.ts';
import { AuthCode } from '../../src/auth/codes.ts';
import { injector } from '../harness/inject.ts';

/** A port no refused request reaches. */
const unused = new Proxy({}, { get: () => { throw new Error('a refused request reached a port'); } }) as never;
const CALLER = '0x00000000000000000000000000000000000000a1';
const TOKEN = 'Bearer token';
const OPERATOR_KEY = 'k'.repeat(32);

const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));
const dispatch = gatewayDispatch({
  host: '127.0.0.1',
  port: 0,
  clock: () => 1_700_000_000_000,
  logger: pino({ level: 'silent' }),
  marketData: { markets, profile: PROFILES.testnet, typedData: () => ({}) } as never,
  history: unused,
  prices: unused,
  accounts: { accounts: { delegations: unused }, writes: unused, auth: { login: { tokens: { verifyHeader: async (header: string) => (header === TOKEN ? { ok: true, value: CALLER } : { ok: false, code: AuthCode.InvalidToken }) } }, domain: unused, recover: unused }, fills: unused, transfers: unused } as never,
  orders: unused,
  operator: { port: unused, key: OPERATOR_KEY },
  operations: { notReady: () => null, metrics: async () => '# no series\n', metricsContentType: 'text/plain; version=0.0.4' },
  cluster: { writeRefusal: () => null, headers: () => null, describe: () => ({ role: 'primary' }) },
  feedsDocument: () => ({}),
});
const inject = injector(dispatch.public);

let client = 0;
/** `endpoint` asked with `query`: a fresh source address each time, so no budget runs out. */
const ask = (endpoint: Endpoint, query: string, { symbol = 'BTC-USD-PERP', authorization = TOKEN, operatorKey = OPERATOR_KEY } = {}) =>
  inject({
    method: endpoint.method,
    path: endpoint.path.replace(/\{\w+\}/g, symbol),
    query,
    authorization,
    operatorKey,
    origin: '',
    acceptEncoding: '',
    remoteAddress: `10.0.${client >> 8}.${client++ & 255}`,
    body: null,
  });

const name = (e: Endpoint) => `${e.method.toUpperCase()} ${e.path}`;
const strict = ENDPOINTS.filter((e) => e.ignoresQuery !== true);

test('every declared route that reads its query refuses a parameter it does not declare, naming the ones it does', async () => {
  assert.ok(strict.length >= 40, 'the API routes, public, account, order and operator ones');
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

test('the probes, /metrics, the page, its files and /docs answer the same with a query string as without', async () => {
  const ignoring = ENDPOINTS.filter((e) => e.ignoresQuery === true).map(name);
  assert.deepEqual(ignoring.sort(), ['GET /', 'GET /app/app.js', 'GET /app/icon.svg', 'GET /app/page.css', 'GET /docs', 'GET /health', 'GET /metrics', 'GET /ready']);
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
