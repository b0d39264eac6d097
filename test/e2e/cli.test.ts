/**
 * The `perp` command line against a real exchange, run as a user runs it (its own process):
 * `--help` on every command; bad input is one line and exit status 2; a refusal is the
 * exchange's status and text and exit 1; a resting order is listed and cancelled, in a table or
 * as JSON; `feed follow` prints the account's events as they arrive; the operator's deposit,
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
import { COMMANDS } from '../../src/cli/commands.ts';
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

test('--help on every command', async () => {
  // Three processes at a time: a shared 2-core machine starts each in a second or more.
  for (let i = 0; i < COMMANDS.length; i += 3) {
    const batch = COMMANDS.slice(i, i + 3);
    const helps = await Promise.all(batch.map((c) => perp(...c.name.split(' '), '--help')));
    helps.forEach((h, j) => {
      assert.equal(h.code, 0, batch[j].name);
      assert.match(h.stdout, new RegExp(`^usage: perp ${batch[j].name}`), batch[j].name);
    });
  }
  assert.match((await perp('--help')).stdout, /order place SYMBOL buy\|sell QUANTITY/);
});

test('bad input: one line, exit status 2', async () => {
  for (const args of [['order', 'place', 'BTC', 'hold', '1'], ['order', 'place', 'BTC', 'buy', '1e3'], ['book', 'BTC', '--depth', 'ten'], ['frobnicate'], ['order'], ['positions', '--nope']]) {
    const run = await perp(...args);
    assert.equal(run.code, 2, args.join(' '));
    assert.match(run.stderr, /^perp: [^\n]+\n$/, args.join(' '));
  }
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
