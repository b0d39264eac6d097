/**
 * The feeds' connection limit per source address (docs/feeds.md "Limits"): the upgrade beyond
 * it is refused 429 with the documented text and a `Retry-After`, and a slot freed by a close
 * is taken by the next connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startTestExchange } from './harness.ts';
import { FeedClient } from './feed-client.ts';

/** The answer to an upgrade the server refuses: its status, Retry-After and body. */
function refusedUpgrade(url: string): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url.replace(/^http/, 'ws') + '/ws');
    socket.once('open', () => reject(new Error('the upgrade beyond the limit was accepted')));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body }));
    });
    socket.once('error', () => {});
  });
}

test('an upgrade beyond the connections per address is refused 429 with Retry-After, and a closed one frees its slot', async () => {
  const ex = await startTestExchange({ feedLimits: { connectionsPerAddress: 3 } });
  const open = await Promise.all([1, 2, 3].map(() => FeedClient.connect(ex.url)));
  const refused = await refusedUpgrade(ex.url);
  assert.deepEqual(refused, { status: 429, retryAfter: '1', body: 'Too many connections: at most 3 per source address' });
  await open[0].close();
  // The server learns of the close a moment after the client's close resolves.
  let next: FeedClient | undefined;
  for (let attempt = 0; next === undefined && attempt < 50; attempt++) {
    next = await FeedClient.connect(ex.url).catch(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return undefined;
    });
  }
  assert.ok(next !== undefined, 'no connection accepted after one of the three closed');
  await Promise.all([...open.slice(1), next].map((c) => c.close()));
  await ex.stop();
});
