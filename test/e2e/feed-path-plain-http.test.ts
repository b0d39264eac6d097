/**
 * The feeds' path asked over plain HTTP (docs/feeds.md): a GET without an upgrade is answered 426
 * with `Upgrade: websocket` and a text that names the endpoint, where it was `404 Route not
 * found: /ws` — which told someone trying the URL in a browser or with curl that the feeds did
 * not exist. Another method is 405 with the methods the path has. The upgrade itself still opens.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestExchange } from './harness.ts';
import { FeedClient } from './feed-client.ts';

test('GET /ws without an upgrade: 426 naming the WebSocket endpoint; POST /ws 405; the upgrade opens', async () => {
  const ex = await startTestExchange();
  try {
    const plain = await fetch(`${ex.url}/ws`);
    assert.equal(plain.status, 426);
    assert.equal(plain.headers.get('upgrade'), 'websocket');
    assert.equal(await plain.text(), 'Upgrade required: /ws is the WebSocket endpoint of the feeds; connect with a WebSocket client (docs/feeds.md)');
    assert.equal((await fetch(`${ex.url}/ws`, { method: 'HEAD' })).status, 426);
    const posted = await fetch(`${ex.url}/ws`, { method: 'POST', body: '{}' });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get('allow'), 'GET, HEAD, OPTIONS');
    assert.equal(await posted.text(), 'Method POST not allowed on this route');
    const feed = await FeedClient.connect(ex.url);
    await feed.close();
  } finally {
    await ex.stop();
  }
});
