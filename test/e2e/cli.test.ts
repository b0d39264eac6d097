/**
 * The `perp` command line against a real exchange, run as a user runs it (its own process):
 * its help, bad input is one line and exit status 2 (every command's help and refusal:
 * test/cli/usage.test.ts, in process); a refusal is the exchange's status and text and exit 1;
 * a resting order is listed and cancelled, in a table or as JSON; `feed follow` prints the account's events as they arrive; the operator's deposit,
 * index price and snapshot take effect; `journal inspect` is the journal tool's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ExchangeClient } from '../../src/client/index.ts';
import { startTestExchange } from './harness.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const ex = await startTestExchange();
const home = mkdtempSync(join(tmpdir(), 'perp-cli-'));
const env = { ...process.env, PERP_URL: ex.url, PERP_KEY_FILE: join(home, 'key') };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `perp ARGS` (bin/perp.js, as installed), its exit code and output. */
async function perp(...args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(ROOT, 'bin/perp.js'), ...args], { cwd: home, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('the process: --help, and bad input is one line with exit status 2', async () => {
  // Every command's help and every refusal of bad input: test/cli/usage.test.ts, in process.
  // Here, that the installed command prints them and ends with the status.
  const help = await perp('--help');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: perp <command>/);
  assert.match(help.stdout, /order place SYMBOL buy\|sell QUANTITY/);
  assert.match((await perp('order', 'cancel', '--help')).stdout, /^usage: perp order cancel/);
  const bad = await perp('order', 'list', '--subaccount', '-1');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^perp: [^\n]+\n$/);
});

test('a key, a resting order listed and cancelled, JSON for scripts, a refusal with exit 1', async () => {
  assert.equal((await perp('key', 'create')).code, 0);
  assert.equal((await perp('key', 'create')).code, 2, 'an existing key is not replaced');
  assert.equal((await perp('faucet')).code, 0); // logs in by itself
  const placed = JSON.parse((await perp('order', 'place', 'BTC', 'buy', '0.001', '--price', '90000', '--post-only', '--json')).stdout);
  assert.equal(placed.status, 'new');
  const list = await perp('order', 'list');
  assert.match(list.stdout, /^orderId\s+symbol\s+side\s+quantity\s+price\s+filled\s+status\s+type\n/);
  assert.match(list.stdout, new RegExp(`${placed.orderId}\\s+BTC-USD-PERP\\s+buy\\s+0\\.001\\s+90000\\s+0\\s+new\\s+limit`));
  const cancelled = await perp('order', 'cancel', placed.orderId);
  assert.match(cancelled.stdout, /cancelled/);
  const refused = await perp('order', 'place', 'BTC', 'buy', '0.00001', '--price', '90000');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^perp: POST \/account\/order: 400 /);
});

test('feed follow prints the account’s events as they arrive', async () => {
  const following = perp('feed', 'follow', 'account', '--since', '0', '--count', '2', '--json');
  const lines = (await following).stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((m) => [m.type, m.sequence]), [['balance', 1], ['order', 2]], 'the faucet credit, then the order, from the account’s history');
});

test('operator commands: deposit, index price, snapshot; journal inspect', async () => {
  const account = '0x00000000000000000000000000000000000000aa';
  assert.equal((await perp('deposit', account, '250')).code, 0);
  assert.equal((await perp('index-price', 'ETH-USD-PERP', '3000')).code, 0);
  const client = new ExchangeClient({ url: ex.url });
  assert.equal((await client.prices({ symbol: 'ETH-USD-PERP' })).prices[0].indexPrice, '3000');
  assert.match((await perp('snapshot')).stdout, /^snapshot taken at journal sequence \d+/);
  const wrongKey = await perp('snapshot', '--operator-key', 'nope');
  assert.equal(wrongKey.code, 1);
  const inspect = await perp('journal', 'inspect', '--data-dir', join(ex.dataDir, 'journal'));
  assert.equal(inspect.code, 0, inspect.stderr);
  assert.match(inspect.stdout, /OperatorDeposit|Deposit/);
});

test.after(() => rmSync(home, { recursive: true, force: true }));
