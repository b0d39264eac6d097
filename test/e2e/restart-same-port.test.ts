/**
 * Restarting on the same port, as a process manager does: the connections of the old process
 * wait in TIME_WAIT on the port for a minute, and the new process must listen at once anyway —
 * after a SIGTERM (the exchange closed the connections) and after kill -9 (the kernel did). Each
 * test first checks that TIME_WAIT entries are really there, or it would prove nothing.
 *
 * And while the exchange listens, no other program can listen on its port beside it:
 * uWebSockets.js sets SO_REUSEPORT unless told not to, and the kernel then splits new
 * connections between every listener of the port — a stray test server or a second exchange
 * would silently take a share of the clients.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type * as Uws from '@btc-vision/uwebsockets.js';
import { uwsNative } from '../../src/http/uws-native.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';
import { encodeRequest, KeepAliveConnection } from './fuzz-http.ts';
import { freePort } from '../replication/nats-servers.ts';

/** Sockets in TIME_WAIT (state 06 of /proc/net/tcp) whose local port is `port`. */
function timeWaitOn(port: number): number {
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1]?.endsWith(local) && fields[3] === '06').length;
}

/** Several keep-alive clients that each made requests and keep their connection open. */
async function keptAliveClients(port: number, count: number): Promise<KeepAliveConnection[]> {
  const request = encodeRequest({ method: 'GET', target: '/markets', headers: [], keepAlive: true });
  return Promise.all(
    Array.from({ length: count }, async () => {
      const connection = await KeepAliveConnection.open(port);
      for (let i = 0; i < 3; i++) assert.equal((await connection.send(request)).response?.status, 200);
      return connection;
    }),
  );
}

/** Ends an exchange with `end`, then starts a new one on its port; resolves with the new one, still running. */
async function restartsOnItsPort(end: (server: ServerProcess) => Promise<void>): Promise<ServerProcess> {
  const port = await freePort();
  const first = await startServerProcess(['--port', String(port)]);
  const clients = await keptAliveClients(port, 8);
  await end(first);
  assert.ok(timeWaitOn(port) > 0, 'the old connections wait in TIME_WAIT on the port');
  const second = await startServerProcess(['--port', String(port)]);
  try {
    assert.equal(second.port, port);
    assert.equal((await second.client.request('GET', '/ready')).status, 200);
    assert.ok(clients.every((c) => c.closed), 'the old connections were closed');
  } catch (error) {
    await second.stop();
    throw error;
  }
  return second;
}

/** The exchange the kill -9 test started on its port, still running: the last test's (a process start fewer). */
let handedOn: ServerProcess | undefined;
after(() => handedOn?.stop());

test('after SIGTERM, a new exchange listens at once on the port whose connections wait in TIME_WAIT', { timeout: 120_000 }, async () => {
  await (await restartsOnItsPort((server) => server.stop())).stop();
});

test('after kill -9, a new exchange listens at once on the port whose connections wait in TIME_WAIT', { timeout: 120_000 }, async () => {
  handedOn = await restartsOnItsPort(async (server) => {
    await server.kill('SIGKILL');
    // The closing handshakes reach TIME_WAIT a moment later (the check after this fails if never).
    for (let i = 0; i < 200 && timeWaitOn(server.port) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  });
});

test('no other program can listen on the port the exchange listens on (no SO_REUSEPORT sharing)', { timeout: 60_000 }, async () => {
  const server = handedOn ?? (await startServerProcess(['--port', String(await freePort())]));
  try {
    // Another uWebSockets.js server with its default options: SO_REUSEPORT, the way a port is shared.
    const { uws } = uwsNative();
    const app = uws.App();
    const socket = await new Promise<Uws.us_listen_socket | false>((resolve) => app.listen('127.0.0.1', server.port, resolve));
    if (socket !== false) uws.us_listen_socket_close(socket);
    assert.equal(socket, false, 'a second listener got the exchange port');
  } finally {
    await server.stop();
  }
});
