import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange } from './harness.ts';
import { encodeRequest, pipeline } from './fuzz-http.ts';

type Get = (path: string, headers: Record<string, string>) => Promise<{ status: number }>;

const BURST = 1000;

/**
 * 1,000 public requests from one client (`X-Forwarded-For: forwardedFor`) written at once on
 * one connection, HTTP/1.1 pipelining: the server reads them in one burst, far over the budget of
 * 200 a second however loaded the machine is (a client sending them one fetch at a time, short
 * of CPU beside another test, once took 13 s and spent none of it). `probe` runs as soon as they
 * are answered: a refused client stays refused for a second after its last refusal.
 */
async function flood<T>(port: number, forwardedFor: string, probe: () => Promise<T>): Promise<{ refused: number; probed: T }> {
  const request = encodeRequest({ method: 'GET', target: '/time', headers: [['X-Forwarded-For', forwardedFor]], keepAlive: true });
  const { responses } = await pipeline(port, [Buffer.concat(Array.from({ length: BURST }, () => request))], { expect: BURST, timeoutMs: 30_000 });
  assert.equal(responses.length, BURST, 'every request of the burst is answered');
  const probed = await probe();
  return { refused: responses.filter((r) => r.status === 429).length, probed };
}

test('behind a trusted proxy (TRUSTED_PROXIES), each forwarded client has its own public budget', async () => {
  const ex = await startTestExchange({ args: ['--trusted-proxies', '127.0.0.1'] });
  const get: Get = (path, headers) => ex.request('GET', path, undefined, headers);
  const { refused, probed } = await flood(ex.exchange.port, '203.0.113.7', async () => [
    (await get('/time', { 'x-forwarded-for': '198.51.100.9' })).status,
    (await get('/time', { 'x-forwarded-for': '198.51.100.9, 203.0.113.7' })).status,
  ]);
  assert.ok(refused > 0, 'one client over its budget is refused');
  assert.equal(probed[0], 200, 'another client is not');
  assert.equal(probed[1], 429, 'the rightmost untrusted hop is the client, not what it wrote before');
});

test('without trusted proxies X-Forwarded-For is ignored: one socket address, one budget', async () => {
  const ex = await startTestExchange();
  const get: Get = (path, headers) => ex.request('GET', path, undefined, headers);
  const { refused, probed } = await flood(ex.exchange.port, '203.0.113.7', async () => (await get('/time', { 'x-forwarded-for': '198.51.100.9' })).status);
  assert.ok(refused > 0);
  assert.equal(probed, 429, 'a made-up header buys no budget');
});
