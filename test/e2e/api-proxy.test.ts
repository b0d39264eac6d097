import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange } from './harness.ts';

type Get = (path: string, headers: Record<string, string>) => Promise<{ status: number }>;

/**
 * 1,000 public requests at once from one client (over the budget of 200 a second even when a
 * loaded machine takes a few seconds to send them); `probe` runs as soon as the first is
 * refused, while the rest are still arriving: a refused client stays refused for a second after
 * its last refusal, so the probe meets the spent budget however slow the machine is.
 */
async function flood<T>(get: Get, forwardedFor: string, probe: () => Promise<T>): Promise<{ refused: number; probed: T }> {
  let firstRefusal!: () => void;
  const refusedOnce = new Promise<void>((resolve) => (firstRefusal = resolve));
  const replies = Promise.all(
    Array.from({ length: 1000 }, async () => {
      const reply = await get('/time', { 'x-forwarded-for': forwardedFor });
      if (reply.status === 429) firstRefusal();
      return reply;
    }),
  );
  const probed = await Promise.race([refusedOnce.then(probe), replies.then(() => assert.fail('none of 1,000 requests in a burst was refused'))]);
  return { refused: (await replies).filter((r) => r.status === 429).length, probed };
}

test('behind a trusted proxy (TRUSTED_PROXIES), each forwarded client has its own public budget', async () => {
  const ex = await startTestExchange({ trustedProxies: '127.0.0.1' });
  const get: Get = (path, headers) => ex.request('GET', path, undefined, headers);
  const { refused, probed } = await flood(get, '203.0.113.7', async () => [
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
  const { refused, probed } = await flood(get, '203.0.113.7', async () => (await get('/time', { 'x-forwarded-for': '198.51.100.9' })).status);
  assert.ok(refused > 0);
  assert.equal(probed, 429, 'a made-up header buys no budget');
});
