/**
 * Every setting the machine cannot honour stops the real process with one line naming it and
 * exit status 2 — never a stack trace: a host that is not an address, an address this machine
 * does not have, a port (or operator port) in use, a data directory that is a file, an unknown
 * log level. A port another process takes during the start-up replay (after the check, before
 * the listener) ends the start the same way, and the data directory is let go: no LOCK left.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServerProcess, startServerProcess } from './server-process.ts';
import { freePort } from '../replication/nats-servers.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the exchange with `args` and `env` until it exits; it must not get as far as serving. */
function start(args: string[], env: Record<string, string> = {}): { status: number | null; stderr: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-startup-'));
  try {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: run.status, stderr: run.stderr };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function assertOneLine(run: { status: number | null; stderr: string }, line: string | RegExp): void {
  assert.equal(run.status, 2, run.stderr);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line, no stack trace:\n${run.stderr}`);
  if (typeof line === 'string') assert.equal(lines[0], line);
  else assert.match(lines[0], line);
}

test('a host that is not an IP address', () => {
  assertOneLine(start(['--host', 'exchange.example']), 'Cannot start: HOST: must be an IP address to listen on (127.0.0.1 for this machine only, 0.0.0.0 for every interface) or localhost, got "exchange.example"');
});

test('an address this machine does not have', () => {
  // 192.0.2.0/24 is reserved for documentation: never an address of this machine. Binding sends nothing.
  assertOneLine(start(['--host', '192.0.2.1']), 'Cannot start: HOST: must be an address of this machine (127.0.0.1 for this machine only, 0.0.0.0 for every interface), got "192.0.2.1"');
});

test('a port another process listens on', async (t) => {
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  t.after(() => other.close());
  const port = (other.address() as AddressInfo).port;
  assertOneLine(start(['--port', String(port)]), `Cannot start: PORT: must be a free port: another process listens on 127.0.0.1:${port}, got ${port}`);
});

test('an operator port another process listens on', async (t) => {
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  t.after(() => other.close());
  const port = (other.address() as AddressInfo).port;
  assertOneLine(start(['--operator-port', String(port)]), `Cannot start: OPERATOR_PORT: must be a free port: another process listens on 127.0.0.1:${port}, got ${port}`);
});

test('a data directory that is a file, left as it was', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'perp-startup-file-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'data');
  writeFileSync(file, 'not a directory');
  assertOneLine(start(['--data-dir', file]), `Cannot start: DATA_DIR: must be a directory, but it is a file, got ${JSON.stringify(file)}`);
  assert.equal(readFileSync(file, 'utf8'), 'not a directory');
  // A data directory whose journal/ is a file.
  const holder = join(dir, 'holder');
  mkdirSync(holder);
  writeFileSync(join(holder, 'journal'), '');
  assertOneLine(start(['--data-dir', holder]), `Cannot start: DATA_DIR: must hold journal/ as a directory, but ${join(holder, 'journal')} is a file, got ${JSON.stringify(holder)}`);
  // Below a file nothing can be made either.
  assertOneLine(start(['--data-dir', join(file, 'below')]), /^Cannot start: DATA_DIR: must be a directory the exchange can create \(ENOTDIR: /);
});

test('an unknown log level', () => {
  assertOneLine(start([], { LOG_LEVEL: 'loud' }), 'Cannot start: LOG_LEVEL: must be one of trace, debug, info, warn, error, fatal, silent, got "loud"');
});

test('a port another process takes during the start-up replay: one line, exit 2 within 5 s, the data directory let go', { timeout: 120_000 }, async (t) => {
  const port = await freePort();
  const starting = spawnServerProcess(['--port', String(port)]);
  t.after(() => rmSync(starting.dataDir, { recursive: true, force: true }));
  // Held (SIGSTOP) as its replay starts — it checked the port, its threads and journal are
  // open, its listener comes after the replay — while another process takes the port.
  await new Promise<void>((resolve) =>
    starting.onLog((entry) => {
      if (entry.msg !== 'replaying journal') return;
      process.kill(starting.pid, 'SIGSTOP');
      resolve();
    }),
  );
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
  t.after(() => other.close());
  const resumed = Date.now();
  process.kill(starting.pid, 'SIGCONT');
  await assert.rejects(starting.ready, /exited \(exit code 2\)/, 'it got as far as listening: the port was taken too late to test anything');
  assert.ok(Date.now() - resumed < 5_000, `exited ${Date.now() - resumed} ms after it went on`);
  const lines = starting.stderr().trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line, no stack trace:\n${starting.stderr()}`);
  assert.match(lines[0], new RegExp(`^Cannot start: PORT: must be a free port on 127\\.0\\.0\\.1 .*, got ${port}$`));
  assert.equal(existsSync(join(starting.dataDir, 'LOCK')), false, 'the LOCK is removed');
  // The same data directory serves once the port is free again.
  await new Promise((resolve) => other.close(resolve));
  const again = await startServerProcess(['--port', String(port)], {}, starting.dataDir);
  assert.equal((await again.client.request('GET', '/ready')).status, 200);
  await again.stop(true);
});
