import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange } from './harness.ts';

/** 1,000 public requests at once from one client: over the budget of 200 a second even when a loaded machine takes a few seconds to send them. */
async function flood(get: (path: string, headers: Record<string, string>) => Promise<{ status: number }>, forwardedFor: string): Promise<number> {
  const replies = await Promise.all(Array.from({ length: 1000 }, () => get('/time', { 'x-forwarded-for': forwardedFor })));
  return replies.filter((r) => r.status === 429).length;
}

test('behind a trusted proxy (TRUSTED_PROXIES), each forwarded client has its own public budget', async () => {
  const ex = await startTestExchange({ trustedProxies: '127.0.0.1' });
  const get = (path: string, headers: Record<string, string>) => ex.request('GET', path, undefined, headers);
  assert.ok((await flood(get, '203.0.113.7')) > 0, 'one client over its budget is refused');
  assert.equal((await get('/time', { 'x-forwarded-for': '198.51.100.9' })).status, 200, 'another client is not');
  assert.equal((await get('/time', { 'x-forwarded-for': '198.51.100.9, 203.0.113.7' })).status, 429, 'the rightmost untrusted hop is the client, not what it wrote before');
});

test('without trusted proxies X-Forwarded-For is ignored: one socket address, one budget', async () => {
  const ex = await startTestExchange();
  const get = (path: string, headers: Record<string, string>) => ex.request('GET', path, undefined, headers);
  assert.ok((await flood(get, '203.0.113.7')) > 0);
  assert.equal((await get('/time', { 'x-forwarded-for': '198.51.100.9' })).status, 429, 'a made-up header buys no budget');
});
