/**
 * A request's body reaches its handler as the UTF-8 text the client sent, however the bytes
 * arrive: in one piece, or in pieces that split a multi-byte character between two of them (a
 * slow client, a large body over several TCP segments); bytes that are not UTF-8 read as U+FFFD.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startHttpServer, type HttpServer } from '../../src/http/uws.ts';
import type { HttpRequest } from '../../src/http/uws-types.ts';

/** A server whose one route answers the body it read, as JSON text. */
async function echoServer(t: { after(fn: () => void): void }): Promise<HttpServer> {
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    routes: [{ method: 'post', pattern: '/echo', handler: (req: HttpRequest) => ({ status: 200, body: JSON.stringify({ body: req.body }) }) }],
    fallback: () => ({ status: 404, body: 'Route not found' }),
    onHandlerError: (error) => {
      throw error;
    },
    maxBodyBytes: 64 * 1024,
    shuttingDown: { status: 503, body: 'shutting down' },
  });
  t.after(() => server.close());
  return server;
}

/** POSTs `body` to /echo in pieces cut at `cuts` (byte offsets), pausing between them; the answer's body text. */
async function postInPieces(port: number, body: Buffer, cuts: number[]): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const received: Buffer[] = [];
  socket.on('data', (d) => received.push(d));
  const ended = new Promise((resolve) => socket.once('end', resolve));
  socket.write(`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
  let at = 0;
  for (const cut of [...cuts, body.length]) {
    await sleep(30); // each piece its own segment, read by the server apart from the next
    socket.write(body.subarray(at, cut));
    at = cut;
  }
  await ended;
  const answer = Buffer.concat(received).toString('utf8');
  assert.match(answer, /^HTTP\/1\.1 200/);
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).body;
}

test('a body in one piece, and in pieces that split a character, arrives as the text sent', async (t) => {
  const { port } = await echoServer(t);
  const text = '{"clientId":"süß-€-𝄞","n":1}';
  const bytes = Buffer.from(text, 'utf8');
  const inside = [bytes.indexOf(Buffer.from('ü')) + 1, bytes.indexOf(Buffer.from('€')) + 2, bytes.indexOf(Buffer.from('𝄞')) + 3];
  assert.equal(await postInPieces(port, bytes, []), text);
  for (const cut of inside) assert.equal(await postInPieces(port, bytes, [cut]), text, `cut at byte ${cut}`);
  assert.equal(await postInPieces(port, bytes, inside), text, 'cut inside every multi-byte character');
});

test('bytes that are not UTF-8 read as U+FFFD', async (t) => {
  const { port } = await echoServer(t);
  assert.equal(await postInPieces(port, Buffer.from([0x7b, 0xff, 0xc3, 0x7d]), []), '{\uFFFD\uFFFD}');
  assert.equal(await postInPieces(port, Buffer.from([0x7b, 0xff, 0xc3, 0x7d]), [2]), '{\uFFFD\uFFFD}');
});
