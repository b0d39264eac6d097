/**
 * HEAD on every GET route (the headers and length of the GET, no body), and large bodies
 * compressed with brotli or gzip when the client's Accept-Encoding asks — read raw with
 * node:http, which does not decompress behind the test's back. Over a real listener (`listen`):
 * compression and HEAD are the socket's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One exchange for the file: both tests only read, a handful of requests each. */
const ex = await (await startInProcessExchange()).listen();

function raw(url: string, method: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('large bodies go brotli or gzip as Accept-Encoding asks; small ones and clients that do not ask get them as they are', async () => {
  const url = `${ex.url}/openapi.json`;
  const plain = await raw(url, 'GET');
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.headers.vary, 'Accept-Encoding', 'a cache keeps one answer per encoding');
  assert.ok(plain.body.length > 10_000, `the document is large (${plain.body.length} bytes)`);

  const br = await raw(url, 'GET', { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.headers['content-encoding'], 'br', 'brotli wins a tie');
  assert.deepEqual(brotliDecompressSync(br.body), plain.body);
  assert.ok(br.body.length < plain.body.length / 3, `${br.body.length} of ${plain.body.length} bytes`);

  const gzip = await raw(url, 'GET', { 'accept-encoding': 'gzip' });
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  assert.deepEqual(gunzipSync(gzip.body), plain.body);
  assert.equal((await raw(url, 'GET', { 'accept-encoding': 'br;q=0, gzip;q=0.5' })).headers['content-encoding'], 'gzip', 'q=0 refuses brotli');
  assert.equal((await raw(url, 'GET', { 'accept-encoding': 'identity' })).headers['content-encoding'], undefined);

  const small = await raw(`${ex.url}/time`, 'GET', { 'accept-encoding': 'br' });
  assert.equal(small.headers['content-encoding'], undefined, 'a few bytes are not worth compressing');
  assert.doesNotThrow(() => JSON.parse(small.body.toString()));
  // A refusal is never compressed: its text is short and read by people.
  const refused = await raw(`${ex.url}/book/NOPE-USD-PERP`, 'GET', { 'accept-encoding': 'br' });
  assert.equal(refused.headers['content-encoding'], undefined);
  assert.equal(refused.body.toString(), 'Symbol not found');
});

test('HEAD answers every GET route with its status, headers and length, and no body', async () => {
  for (const path of ['/markets', '/book/BTC-USD-PERP?depth=5', '/config', '/health']) {
    const get = await raw(ex.url + path, 'GET');
    const head = await raw(ex.url + path, 'HEAD');
    assert.equal(head.status, get.status, path);
    assert.equal(head.headers['content-type'], get.headers['content-type'], path);
    assert.equal(Number(head.headers['content-length']), get.body.length, path);
    assert.equal(head.body.length, 0, path);
  }
  const compressed = await raw(`${ex.url}/openapi.json`, 'HEAD', { 'accept-encoding': 'br' });
  const sent = await raw(`${ex.url}/openapi.json`, 'GET', { 'accept-encoding': 'br' });
  assert.equal(compressed.headers['content-encoding'], 'br');
  assert.equal(Number(compressed.headers['content-length']), sent.body.length);
  // HEAD of a missing market is its 404, headers only.
  const missing = await raw(`${ex.url}/book/NOPE-USD-PERP`, 'HEAD');
  assert.equal(missing.status, 404);
  assert.equal(missing.body.length, 0);
});
