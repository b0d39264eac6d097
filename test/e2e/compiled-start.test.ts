/**
 * `npm start` runs the compiled exchange: `node --enable-source-maps dist/main.js`, no tsx and
 * no esbuild process under it, every worker thread (market threads, signature pool, history,
 * snapshots) loaded from dist/ — a signed order goes through all of them — and a source file
 * newer than the build is compiled before the start (prestart).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiClient, fundedTraders } from './harness.ts';
import { alive, commandLine, descendants } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('npm start runs dist/main.js with source maps, its threads from dist/, and rebuilds a stale build first', { timeout: 120_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-compiled-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  // A source file newer than the build: prestart must compile before the start.
  const source = join(ROOT, 'src', 'log.ts');
  const touched = new Date();
  utimesSync(source, touched, touched);

  const npm = spawn('npm', ['start', '--silent', '--', '--port', '0', '--data-dir', dataDir], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  npm.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<string>((resolve) => npm.once('exit', (code, signal) => resolve(signal ?? `exit code ${code}`)));
  const log: Record<string, any>[] = [];
  const ready = await new Promise<Record<string, any>>((resolve, reject) => {
    let buffered = '';
    npm.stdout.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines.filter((l) => l.startsWith('{'))) {
        const entry = JSON.parse(line);
        log.push(entry);
        if (entry.msg === 'exchange ready') resolve(entry);
      }
    });
    exited.then((how) => reject(new Error(`npm start ended (${how}) before the exchange was ready: ${stderr}`)));
  });
  const started = descendants(npm.pid!);
  t.after(() => {
    for (const pid of started.filter(alive)) process.kill(pid, 'SIGKILL');
  });
  assert.ok(statSync(join(ROOT, 'dist', '.tsbuildinfo')).mtimeMs >= touched.getTime() - 1000, 'the stale build was compiled again before the start');
  assert.equal(ready.host, '127.0.0.1', 'a testnet listens on loopback by default');

  const commands = started.map(commandLine);
  const exchange = commands.filter((c) => c.includes('dist/main.js'));
  assert.equal(exchange.length, 1, commands.join('\n'));
  assert.match(exchange[0], /node --enable-source-maps dist\/main\.js/);
  assert.deepEqual(commands.filter((c) => /tsx|esbuild/.test(c)), [], 'nothing compiles TypeScript at run time');

  // An order passes the signature pool, a market thread and the history thread, all compiled.
  const api = apiClient(`http://127.0.0.1:${ready.port}`);
  const [trader] = await fundedTraders(api, 1, '1000');
  const placed = await trader.place({ price: '95000', quantity: '0.01' });
  assert.equal(placed.status, 200, placed.text);
  const listed = await trader.get(`/account/order?orderId=${placed.json()[0].orderId}`);
  assert.equal(listed.status, 200, listed.text);
  assert.equal((await api.request('GET', '/ready')).text, 'ready');

  npm.kill('SIGTERM');
  assert.equal(await exited, 'exit code 0', stderr);
  assert.ok(log.some((e) => e.msg === 'snapshot saved'), 'the snapshot thread ran from dist/ too');
});
