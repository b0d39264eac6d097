/**
 * Stopping the exchange as a process manager does: SIGTERM.
 *
 *  - Under load on keep-alive connections, every request sent before the signal gets an answer:
 *    200 or a 4xx, or 503 with `Retry-After` — never a 500, never a connection closed without
 *    one. Answers during the drain close their connection. Every order answered 200 is there
 *    after the restart.
 *  - `npm start` (the README's command) passes the signal to the exchange: the exchange stops
 *    cleanly (its `stopped` line, a snapshot) and no process is left listening.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiClient, fundedTraders, startTestExchange } from './harness.ts';
import { startServerProcess } from './server-process.ts';
import { alive, descendants } from './processes.ts';
import { encodeRequest, KeepAliveConnection, type KeptAliveAnswer } from './fuzz-http.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('SIGTERM under keep-alive load: every request sent before it is answered (200, 4xx or 503 with Retry-After), and every order answered 200 survives the restart', { timeout: 120_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-sigterm-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = await startServerProcess([], {}, dataDir);
  const traders = await fundedTraders(server.client, 3, '1000000');

  // Signed in advance, so the load is the server's work, not the client's signing.
  const ORDERS_PER_TRADER = 300;
  const queues = await Promise.all(
    traders.map(async (trader, index) => {
      const requests: Array<{ clientId: string; bytes: Buffer }> = [];
      for (let i = 0; i < ORDERS_PER_TRADER; i++) {
        const buy = (i + index) % 2 === 0;
        const clientId = `t${index}-${i}`;
        const body = await trader.signedOrder({ price: String(buy ? 95_000 + (i % 7) : 94_995 + (i % 7)), quantity: buy ? '0.001' : '-0.001', clientId });
        const bytes = encodeRequest({
          method: 'POST',
          target: '/account/order',
          headers: [
            ['Authorization', `Bearer ${trader.token}`],
            ['Content-Type', 'application/json'],
          ],
          body: Buffer.from(JSON.stringify(body)),
          keepAlive: true,
        });
        requests.push({ clientId, bytes });
      }
      return requests;
    }),
  );

  // The signal goes out the moment an order has been sent after 800 ms of load: that order is
  // then in flight when the signal comes (its answer cannot be read before), whatever the
  // machine's speed — the drain is always tested with a request in flight.
  const signalAfter = Date.now() + 800;
  let signalDue!: () => void;
  const signalling = new Promise<void>((resolve) => (signalDue = resolve));
  const orderSent = () => {
    if (Date.now() >= signalAfter) signalDue();
  };
  const answers: Array<KeptAliveAnswer & { trader: number; clientId: string }> = [];
  const CONNECTIONS_PER_TRADER = 3;
  const loops = queues.flatMap((queue, trader) =>
    Array.from({ length: CONNECTIONS_PER_TRADER }, async (_, lane) => {
      const connection = await KeepAliveConnection.open(server.port);
      for (let i = lane; i < queue.length; i += CONNECTIONS_PER_TRADER) {
        if (connection.closed) return;
        const answer = await connection.send(queue[i].bytes, orderSent);
        answers.push({ ...answer, trader, clientId: queue[i].clientId });
        if (answer.response === undefined) return;
        // Connection: close (the drain's answers): the client stops using this connection.
        if (answer.response.headers.get('connection') === 'close') return;
        await new Promise((resolve) => setTimeout(resolve, 8)); // inside the account's 200 requests/s
      }
      connection.close();
    }),
  );
  // Readers of the public book on their own connections, sending until the server closes them.
  const reads: KeptAliveAnswer[] = [];
  const readLoops = [0, 1].map(async () => {
    const connection = await KeepAliveConnection.open(server.port);
    const bytes = encodeRequest({ method: 'GET', target: '/book/BTC-USD-PERP', headers: [], keepAlive: true });
    while (!connection.closed) {
      const answer = await connection.send(bytes);
      reads.push(answer);
      if (answer.response === undefined || answer.response.headers.get('connection') === 'close') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    connection.close();
  });
  await signalling;
  const signalledAt = Date.now();
  await server.kill('SIGTERM');
  await Promise.all([...loops, ...readLoops]);

  assert.equal(server.exit(), 'exit code 0', `the exchange did not stop cleanly: ${server.stderr()}`);
  assert.ok(server.logged('stopped'), 'no `stopped` line');
  const count = (f: (a: (typeof answers)[number]) => boolean) => answers.filter(f).length;
  const ok = count((a) => a.response?.status === 200);
  const overloaded = count((a) => a.response?.status === 503);
  const unanswered = answers.filter((a) => a.response === undefined);
  t.diagnostic(`${answers.length} requests: ${ok} answered 200, ${overloaded} 503, ${count((a) => a.response !== undefined && a.response.status >= 400 && a.response.status < 500)} 4xx, ${unanswered.length} closed unanswered`);

  const readsUnanswered = reads.filter((a) => a.response === undefined).length;
  t.diagnostic(`${reads.length} reads: ${reads.filter((a) => a.response?.status === 200).length} answered 200, ${reads.filter((a) => a.response?.status === 503).length} 503, ${readsUnanswered} closed unanswered`);
  for (const a of [...answers, ...reads.map((r, i) => ({ ...r, trader: -1, clientId: `read ${i}` }))]) {
    if (a.response === undefined) {
      assert.ok(a.sentAt > signalledAt, `${a.clientId} was sent ${signalledAt - a.sentAt} ms before the SIGTERM and never answered`);
      continue;
    }
    const { status, headers, body } = a.response;
    assert.ok(status === 200 || (status >= 400 && status < 500) || status === 503, `${a.clientId}: ${status} ${body}`);
    if (status === 503) {
      assert.equal(body.toString(), 'Service overloaded: shutting down');
      assert.ok(Number(headers.get('retry-after')) >= 1, `${a.clientId}: 503 without Retry-After`);
      assert.equal(headers.get('connection'), 'close', `${a.clientId}: a drain's 503 leaves the connection open`);
    }
  }
  assert.ok(ok > 0, 'the load placed nothing before the signal');
  const acrossTheSignal = answers.filter((a) => a.sentAt <= signalledAt && a.answeredAt >= signalledAt);
  assert.ok(acrossTheSignal.length > 0, 'no order was in flight when the signal came: the load ended too early to test the drain');
  t.diagnostic(`${acrossTheSignal.length} orders in flight at the signal, answered ${[...new Set(acrossTheSignal.map((a) => a.response?.status ?? 'never'))].join(', ')}`);

  // Every order answered 200 is there after the restart: restarted in this process (the replay
  // is the same code in any process, on half the CPU of a new one), each trader's orders read
  // side by side, each trader within its account's budget.
  const restarted = await startTestExchange({ dataDir });
  try {
    await Promise.all(
      traders.map(async (trader, index) => {
        trader.ex = restarted;
        for (const a of answers) {
          if (a.trader !== index || a.response?.status !== 200) continue;
          const [order] = JSON.parse(a.response.body.toString());
          const found = await trader.get(`/account/order?orderId=${order.orderId}`);
          assert.equal(found.status, 200, `${a.clientId} (order ${order.orderId}) was answered 200 and is gone after the restart: ${found.text}`);
          assert.equal(found.json().clientId, a.clientId);
          await new Promise((resolve) => setTimeout(resolve, 6)); // inside the account's budget
        }
      }),
    );
  } finally {
    await restarted.stop();
  }
});

/** Whether something accepts connections on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

test('SIGTERM to `npm start` stops the exchange cleanly: a snapshot, its stopped line, nothing left listening', { timeout: 60_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-npm-start-'));
  let started: number[] = [];
  try {
    const npm = spawn('npm', ['start', '--silent', '--', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log: Record<string, any>[] = [];
    let stderr = '';
    npm.stderr.on('data', (chunk) => (stderr += chunk));
    // 'exit', not 'close': an orphaned exchange would hold the pipes open.
    const exited = new Promise<string>((resolve) => npm.once('exit', (code, signal) => resolve(signal ?? `exit code ${code}`)));
    const ready = await new Promise<Record<string, any>>((resolve, reject) => {
      let buffered = '';
      npm.stdout.on('data', (chunk) => {
        buffered += chunk;
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          if (!line.startsWith('{')) continue;
          const entry = JSON.parse(line);
          log.push(entry);
          if (entry.msg === 'exchange ready') resolve(entry);
        }
      });
      exited.then((how) => reject(new Error(`npm start ended (${how}) before the exchange was ready: ${stderr}`)));
    });
    // A write, so the stop has something to snapshot.
    const deposit = await apiClient(`http://127.0.0.1:${ready.port}`).operator('POST', '/operator/deposit', { account: '0x00000000000000000000000000000000000000aa', subaccountIndex: 0, amount: '5' });
    assert.equal(deposit.status, 200, deposit.text);
    started = descendants(npm.pid!);
    assert.ok(started.length > 0, 'npm started no process');
    npm.kill('SIGTERM');
    await exited;
    for (let i = 0; i < 50 && started.some(alive); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(started.filter(alive), [], 'processes npm started outlived it');
    assert.equal(await listening(ready.port), false, `something still listens on ${ready.port}`);
    assert.ok(log.some((e) => e.msg === 'snapshot saved'), `the exchange took no snapshot on its way out: ${stderr}`);
    assert.ok(log.some((e) => e.msg === 'stopped'), `the exchange did not log its clean stop: ${stderr}`);
  } finally {
    for (const pid of started.filter(alive)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
