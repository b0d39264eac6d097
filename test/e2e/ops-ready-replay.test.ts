/**
 * The exchange during its start-up replay, as a process manager, a load balancer and Prometheus
 * see it (issue 18): the listener is open before the replay, so a long replay is not a refused
 * connection. While it replays, GET /health answers 200, GET /ready 503 with the replay's
 * progress, GET /metrics the replay gauges moving; every other route (a write here) and a
 * WebSocket upgrade are refused 503 — nothing reaches the exchange before it has caught up —
 * and then /ready turns 200 with every earlier order there. A start that fails during the
 * replay (a record replays differently) lets go of the port and the data directory, and so does
 * one a process manager stops with SIGTERM while it replays (exit 0, the next start serves).
 *
 * The journal (ACCOUNTS accounts, each funded, holding a position and a resting order: about
 * nine records each) is written in-process straight through the sequencer
 * (bench/snapshot-population.ts); its replay took 1.6 s on a quiet 2-core machine, four times
 * the 0.35 s the checks made during it took (from the first answer to the last check), and
 * 2–4 s on a busy one.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadSettings } from '../../src/config/process.ts';
import { startExchange } from '../../src/pipeline.ts';
import { Journal } from '../../src/journal/journal.ts';
import { LmdbJournalStorage } from '../../src/journal/lmdb-storage.ts';
import { BookEventWriter, RecordBuffer } from '../../src/transport/codec.ts';
import { RecordKind } from '../../src/transport/layout.ts';
import { populate } from '../../bench/snapshot-population.ts';
import { apiClient, type ApiClient, type Reply } from './harness.ts';
import { spawnServerProcess, type StartingServerProcess } from './server-process.ts';
import { FeedClient } from './feed-client.ts';
import { scrape, value } from '../harness/prometheus.ts';
import { freePort } from '../replication/nats-servers.ts';
import { marketNo, orderNo, ownerNo } from '../fixtures/ids.ts';

const ACCOUNTS = 5_000;
/** No snapshot in the restarted process: every start replays the whole journal. */
const NO_SNAPSHOTS = { SNAPSHOT_INTERVAL_MS: '0' };
const REPLAYING = /^replaying journal \(seq (\d+) of (\d+)\)$/;

const dataDir = mkdtempSync(join(tmpdir(), 'perp-ready-replay-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));
/** What the exchange that wrote the journal reported when it stopped. */
let written: { books: unknown; lastSeq: number };

before(async () => {
  const settings = loadSettings(['--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, '--snapshot-interval-ms', '0'], {});
  const exchange = await startExchange(settings, pino({ level: 'silent' }), { tickMs: 3_600_000 });
  await populate(exchange.sequencer, ACCOUNTS, Date.now());
  written = (await apiClient(`http://127.0.0.1:${exchange.port}`).operator('GET', '/operator/state-hash')).json();
  await exchange.stop({ snapshot: false });
});

/**
 * The first answer to GET `path` once the process listens. Until then a connection is refused,
 * or reset: the start's port check (config/preflight) listens for a moment and closes.
 */
async function firstAnswer(client: ApiClient, path: string, starting: StartingServerProcess): Promise<Reply> {
  for (;;) {
    try {
      return await client.request('GET', path);
    } catch (error) {
      if (starting.exit() !== undefined) throw new Error(`the server exited (${starting.exit()}) before it answered: ${starting.stderr()}`);
      if (!['ECONNREFUSED', 'ECONNRESET'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

test(`during a start-up replay of ${ACCOUNTS * 9} records the probes answer, everything else is refused 503, then every order is back`, { timeout: 120_000 }, async (t) => {
  const port = await freePort();
  const starting = spawnServerProcess(['--port', String(port)], NO_SNAPSHOTS, dataDir);
  t.after(() => starting.kill('SIGKILL'));
  const client = apiClient(`http://127.0.0.1:${port}`);

  const health = await firstAnswer(client, '/health', starting);
  assert.equal(health.status, 200);
  assert.equal(health.text, 'ok');
  const ready = await client.request('GET', '/ready');
  assert.equal(ready.status, 503, `the listener opened only once the journal was replayed (/ready: ${ready.status} ${ready.text})`);
  const [, at, of] = ready.text.replace(/^Not ready: /, '').match(REPLAYING) ?? assert.fail(`/ready during the replay: ${ready.text}`);
  assert.equal(Number(of), written.lastSeq);
  assert.ok(Number(at) < written.lastSeq);
  assert.equal(ready.headers.get('retry-after'), '1');

  const first = await scrape(client);
  assert.equal(value(first, 'perp_replay_records_expected'), written.lastSeq);
  // A write: refused as a drain refuses, before anything reads it.
  const order = await client.request('POST', '/account/order', { symbol: 'BTC-USD-PERP' });
  assert.equal(order.status, 503);
  assert.match(order.text.replace(/^Service overloaded: /, ''), REPLAYING);
  assert.equal(order.headers.get('retry-after'), '1');
  // The feeds' WebSocket too.
  await assert.rejects(FeedClient.connect(client.url), /Unexpected server response: 503/);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const second = await scrape(client);
  assert.ok(
    value(second, 'perp_replay_records') > value(first, 'perp_replay_records'),
    `the replayed records gauge moves: ${value(first, 'perp_replay_records')}, then ${value(second, 'perp_replay_records')}`,
  );
  assert.match((await client.request('GET', '/ready')).text, /^Not ready: /, 'all of the above during the replay');

  const server = await starting.ready;
  assert.equal((await client.request('GET', '/ready')).text, 'ready');
  const restarted = (await client.operator('GET', '/operator/state-hash')).json();
  // The books' hashes cover every resting order (the exchange's own moves with the testnet's index feed from the first tick).
  assert.deepEqual(restarted.books, written.books, 'every order is back');
  assert.equal(restarted.problem, null);
  const done = await scrape(client);
  assert.equal(value(done, 'perp_replay_records'), written.lastSeq);
  assert.equal(value(done, 'perp_fills_total'), 0, 'the replayed trades are not counted as this process\'s');
  // Killed (no shutdown snapshot): the next start replays the whole journal again.
  await server.kill('SIGKILL');
});

test('SIGTERM during the start-up replay stops the process cleanly: exit 0, the port and the LOCK freed, the next start serves everything', { timeout: 120_000 }, async (t) => {
  const port = await freePort();
  const starting = spawnServerProcess(['--port', String(port)], NO_SNAPSHOTS, dataDir);
  t.after(() => starting.kill('SIGKILL'));
  const client = apiClient(`http://127.0.0.1:${port}`);
  await firstAnswer(client, '/health', starting);
  assert.match((await client.request('GET', '/ready')).text, /^Not ready: replaying journal/);
  const sent = performance.now();
  await starting.kill('SIGTERM');
  assert.equal(starting.exit(), 'exit code 0', `exit status after SIGTERM during the replay (stderr: ${starting.stderr()})`);
  assert.ok(performance.now() - sent < 10_000, 'it stopped at the replay\'s next pause, not after the replay');
  assert.ok(starting.log.some((e) => e.msg === 'start cancelled: stopped before serving'), 'it says why it stopped');
  assert.ok(!starting.log.some((e) => e.msg === 'exchange ready'), 'it never served');
  assert.equal(existsSync(join(dataDir, 'LOCK')), false, 'the LOCK is removed');
  const other = createServer();
  await new Promise<void>((resolve, reject) => other.once('error', reject).listen(port, '127.0.0.1', resolve));
  other.close();

  const again = spawnServerProcess(['--port', String(port)], NO_SNAPSHOTS, dataDir);
  t.after(() => again.kill('SIGKILL'));
  const server = await again.ready;
  assert.deepEqual((await client.operator('GET', '/operator/state-hash')).json().books, written.books, 'every order is back');
  await server.kill('SIGKILL');
});

test('a start that fails during the replay (a record that replays differently) lets go of the port and the data directory', { timeout: 120_000 }, async (t) => {
  // A fill in BTC-USD-PERP that no command produced, with a valid checksum and hash chain.
  const journal = await Journal.open(LmdbJournalStorage.open(join(dataDir, 'journal')), { logger: { info: () => {}, error: () => {} } });
  const buffer = new RecordBuffer();
  new BookEventWriter(buffer, marketNo(0)).onFill(1, orderNo(2), orderNo(3), ownerNo(7), ownerNo(9), 1, 950_000, 1, 10, 0, Date.now());
  const seq = journal.append(RecordKind.Fill, buffer.bytes, 0, buffer.length);
  await journal.close();

  const port = await freePort();
  const starting = spawnServerProcess(['--port', String(port)], NO_SNAPSHOTS, dataDir);
  t.after(() => starting.kill('SIGKILL'));
  const client = apiClient(`http://127.0.0.1:${port}`);
  assert.equal((await firstAnswer(client, '/health', starting)).status, 200, 'it served its probes during the replay');
  await assert.rejects(starting.ready, /exited \(exit code 1\)/);
  assert.match(starting.stderr(), new RegExp(`^Cannot start: replay diverged at journal seq ${seq}, market 0: `));
  assert.equal(existsSync(join(dataDir, 'LOCK')), false, 'the LOCK is removed');
  const other = createServer();
  await new Promise<void>((resolve, reject) => other.once('error', reject).listen(port, '127.0.0.1', resolve));
  other.close();
});
