/**
 * Every setting the machine cannot honour stops the real process with one line naming it and
 * exit status 2 — never a stack trace: a host that is not an address, an address this machine
 * does not have, a port (or operator port) in use, a data directory that is a file, an unknown
 * log level. From the start-up replay on the port is the exchange's: another process can no
 * longer take it (a start that fails during the replay: test/e2e/ops-ready-replay.test.ts).
 * `--help` prints what a start takes and exits 0 (it was `Cannot start: Unknown option '--help'`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServerProcess } from './server-process.ts';
import { freePort } from '../replication/nats-servers.ts';
import { nodeArgsFor } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the exchange with `args` and `env` until it exits; it must not get as far as serving. */
function start(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-startup-'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgsFor('src/main.ts'), '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, ...args],
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'info', ...env }, encoding: 'utf8', timeout: 60_000 },
      (error, stdout, stderr) => {
        rmSync(dataDir, { recursive: true, force: true });
        resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
      },
    );
  });
}

function assertOneLine(run: { status: number | null; stderr: string }, line: string | RegExp): void {
  assert.equal(run.status, 2, run.stderr);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line, no stack trace:\n${run.stderr}`);
  if (typeof line === 'string') assert.equal(lines[0], line);
  else assert.match(lines[0], line);
}

test('--help: what a start takes, every flag named, exit 0, nothing started', async () => {
  const run = await start(['--help']);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr, '');
  assert.match(run.stdout, /^usage: npm start -- \[flags\]/);
  for (const flag of ['--port <value>', '--data-dir <value>', '--markets <value>', '--access-log', '--nats <value>']) assert.ok(run.stdout.includes(flag), `${flag} in:\n${run.stdout}`);
});

test('a host that is not an IP address', async () => {
  assertOneLine(await start(['--host', 'exchange.example']), 'Cannot start: HOST: must be an IP address to listen on (127.0.0.1 for this machine only, 0.0.0.0 for every interface) or localhost, got "exchange.example"');
});

test('an address this machine does not have', async () => {
  // 192.0.2.0/24 is reserved for documentation: never an address of this machine. Binding sends nothing.
  assertOneLine(await start(['--host', '192.0.2.1']), 'Cannot start: HOST: must be an address of this machine (127.0.0.1 for this machine only, 0.0.0.0 for every interface), got "192.0.2.1"');
});

test('a port another process listens on', async (t) => {
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  t.after(() => other.close());
  const port = (other.address() as AddressInfo).port;
  assertOneLine(await start(['--port', String(port)]), `Cannot start: PORT: must be a free port: another process listens on 127.0.0.1:${port}, got ${port}`);
});

test('an operator port another process listens on', async (t) => {
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  t.after(() => other.close());
  const port = (other.address() as AddressInfo).port;
  assertOneLine(await start(['--operator-port', String(port)]), `Cannot start: OPERATOR_PORT: must be a free port: another process listens on 127.0.0.1:${port}, got ${port}`);
});

test('a data directory that is a file, left as it was', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'perp-startup-file-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'data');
  writeFileSync(file, 'not a directory');
  // A data directory whose journal/ is a file.
  const holder = join(dir, 'holder');
  mkdirSync(holder);
  writeFileSync(join(holder, 'journal'), '');
  // ... and one whose snapshots/ is.
  const snapshotsHolder = join(dir, 'snapshots-holder');
  mkdirSync(snapshotsHolder);
  writeFileSync(join(snapshotsHolder, 'snapshots'), '');
  // The starts side by side: none touches what another is given.
  const [onFile, onHolder, onSnapshotsHolder, belowFile] = await Promise.all([start(['--data-dir', file]), start(['--data-dir', holder]), start(['--data-dir', snapshotsHolder]), start(['--data-dir', join(file, 'below')])]);
  assertOneLine(onFile, `Cannot start: DATA_DIR: must be a directory, but it is a file, got ${JSON.stringify(file)}`);
  assert.equal(readFileSync(file, 'utf8'), 'not a directory');
  assertOneLine(onHolder, `Cannot start: DATA_DIR: must hold journal/ as a directory, but ${join(holder, 'journal')} is a file, got ${JSON.stringify(holder)}`);
  assertOneLine(onSnapshotsHolder, `Cannot start: DATA_DIR: must hold snapshots/ as a directory, but ${join(snapshotsHolder, 'snapshots')} is a file, got ${JSON.stringify(snapshotsHolder)}`);
  // Below a file nothing can be made either.
  assertOneLine(belowFile, /^Cannot start: DATA_DIR: must be a directory the exchange can create \(ENOTDIR: /);
});

test('an unknown log level', async () => {
  assertOneLine(await start([], { LOG_LEVEL: 'loud' }), 'Cannot start: LOG_LEVEL: must be one of trace, debug, info, warn, error, fatal, silent, got "loud"');
});

test('during the start-up replay the port is already the exchange\'s: another process cannot take it, and the start goes on to serve', { timeout: 120_000 }, async (t) => {
  const port = await freePort();
  const starting = spawnServerProcess(['--port', String(port)]);
  t.after(() => starting.kill('SIGKILL').then(() => rmSync(starting.dataDir, { recursive: true, force: true })));
  // Held (SIGSTOP) as its replay starts, while another process tries the port.
  await new Promise<void>((resolve) =>
    starting.onLog((entry) => {
      if (entry.msg !== 'replaying journal') return;
      process.kill(starting.pid, 'SIGSTOP');
      resolve();
    }),
  );
  const other = createServer();
  const refused = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    other.once('error', resolve);
    other.listen(port, '127.0.0.1', () => resolve(null));
  });
  other.close();
  process.kill(starting.pid, 'SIGCONT');
  assert.equal(refused?.code, 'EADDRINUSE', 'the exchange listens before its replay');
  const server = await starting.ready;
  assert.equal(server.port, port);
  assert.equal((await server.client.request('GET', '/ready')).status, 200);
  await server.stop(true);
});
