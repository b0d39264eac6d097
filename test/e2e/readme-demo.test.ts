/**
 * Must show (issue 17): the README's "Try it: the live demo", followed literally. The demo is
 * started (on a free port and a temporary data directory), then every `npm run cli -- …` line of
 * the README's second-terminal block runs as written, in a shell, as a newcomer types it — the
 * only additions are $PERP_URL (the demo's port) and $PERP_KEY_FILE (a temporary key file). It
 * creates a key, logs in, takes faucet funds, places a signed order that trades against the demo
 * market maker, and shows the position; the position is then checked through the API.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { privateKeyToAccount } from 'viem/accounts';
import { ExchangeClient } from '../../src/client/index.ts';
import { startDemo } from './demo-process.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** The command lines of the README's second-terminal block, comments removed. */
function readmeCommands(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Try it: the live demo'), readme.indexOf('## Two commands'));
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 2, 'the demo, then the second terminal');
  assert.match(blocks[0], /^npm ci && npm run demo/);
  return blocks[1].split('\n').filter((l) => l.trim() !== '').map((l) => l.replace(/\s+#.*$/, ''));
}

test("the README's demo walk-through: key, login, faucet, an order filled by the market maker, the position", async (t) => {
  const commands = readmeCommands();
  assert.deepEqual(commands.map((c) => /^npm run cli -- (key create|login|faucet|order place|positions)/.exec(c)?.[1]), ['key create', 'login', 'faucet', 'order place', 'positions']);
  const home = mkdtempSync(join(tmpdir(), 'perp-readme-'));
  const keyFile = join(home, 'key');
  const demo = await startDemo();
  t.after(async () => {
    await demo.stop();
    rmSync(home, { recursive: true, force: true });
  });
  const env = { ...process.env, PERP_URL: demo.url, PERP_KEY_FILE: keyFile };
  const outputs: string[] = [];
  for (const command of commands) {
    // The demo's book fills within a second or two of `demo ready`; the order waits for it.
    if (command.includes('order place')) await waitForAsks(demo.url);
    const { stdout } = await promisify(execFile)('sh', ['-c', command], { cwd: ROOT, env, timeout: 60_000 });
    outputs.push(stdout);
  }
  const [created, login, faucet, order, positions] = outputs;
  const address = privateKeyToAccount(readFileSync(keyFile, 'utf8').trim() as `0x${string}`).address;
  assert.equal(statSync(keyFile).mode & 0o777, 0o600, 'the key file is private');
  assert.match(created, new RegExp(`address\\s+${address}`));
  assert.doesNotMatch(created, /0x[0-9a-fA-F]{64}/, 'the private key is not printed');
  assert.match(login, new RegExp(`logged in as ${address.toLowerCase()}`));
  assert.match(faucet, /collateral 10000 USD/);
  assert.match(order, /BTC-USD-PERP\s+buy\s+0\.001\s+\S+\s+0\.001\s+filled/, order);
  assert.match(positions, /BTC-USD-PERP\s+0\.001\s/, positions);
  // What the command line showed is what the exchange holds.
  const me = new ExchangeClient({ url: demo.url, wallet: privateKeyToAccount(readFileSync(keyFile, 'utf8').trim() as `0x${string}`) });
  const { positions: held } = await me.positions();
  assert.deepEqual(held.map((p) => [p.symbol, p.quantity]), [['BTC-USD-PERP', '0.001']]);
});

async function waitForAsks(url: string): Promise<void> {
  const client = new ExchangeClient({ url });
  for (let i = 0; i < 100; i++) {
    if ((await client.book('BTC-USD-PERP')).asks.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the demo never quoted BTC-USD-PERP');
}
