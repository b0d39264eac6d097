/**
 * The `perp` command line against a real exchange, run as a user runs it (its own process):
 * its help, bad input is one line and exit status 2 (every command's help and refusal:
 * test/cli/usage.test.ts, in process); a refusal is the exchange's status and text and exit 1;
 * a resting order is listed and cancelled, in a table or as JSON; `feed follow` prints the
 * account's events as they arrive and outlives a dropped connection; the operator's deposit,
 * index price and snapshot take effect; `journal inspect` and `journal replay` are the journal tool's.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ExchangeClient } from '../../src/client/index.ts';
import { readKey } from '../../src/cli/wallet-files.ts';
import { startTestExchange } from './harness.ts';
import { startRelay } from './tcp-relay.ts';

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
  // Independent runs, side by side.
  const [help, cancelHelp, bad] = await Promise.all([perp('--help'), perp('order', 'cancel', '--help'), perp('order', 'list', '--subaccount', '-1')]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: perp <command>/);
  assert.match(help.stdout, /order place SYMBOL buy\|sell QUANTITY/);
  assert.match(cancelHelp.stdout, /^usage: perp order cancel/);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^perp: [^\n]+\n$/);
});

test('a key, a resting order listed and cancelled, JSON for scripts, a refusal with exit 1', async () => {
  assert.equal((await perp('key', 'create')).code, 0);
  // Side by side where neither needs the other's result: the second key creation reads the key
  // file the faucet reads too, and writes nothing.
  const [again, faucet] = await Promise.all([perp('key', 'create'), perp('faucet')]);
  assert.equal(again.code, 2, 'an existing key is not replaced');
  assert.equal(faucet.code, 0); // logs in by itself
  const placed = JSON.parse((await perp('order', 'place', 'BTC', 'buy', '0.001', '--price', '90000', '--post-only', '--json')).stdout);
  assert.equal(placed.status, 'new');
  const list = await perp('order', 'list');
  assert.match(list.stdout, /^orderId\s+symbol\s+side\s+quantity\s+price\s+filled\s+status\s+type\n/);
  assert.match(list.stdout, new RegExp(`${placed.orderId}\\s+BTC-USD-PERP\\s+buy\\s+0\\.001\\s+90000\\s+0\\s+new\\s+limit`));
  const [cancelled, refused] = await Promise.all([perp('order', 'cancel', placed.orderId), perp('order', 'place', 'BTC', 'buy', '0.00001', '--price', '90000')]);
  assert.match(cancelled.stdout, /cancelled/);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^perp: POST \/account\/order: 400 /);
});

test('feed follow prints the account’s events as they arrive', async () => {
  const following = perp('feed', 'follow', 'account', '--since', '0', '--count', '2', '--json');
  const lines = (await following).stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((m) => [m.type, m.sequence]), [['balance', 1], ['order', 2]], 'the faucet credit, then the order, from the account’s history');
});

/**
 * An order of the CLI's own account, placed through the client library the CLI is built on:
 * the follower test needs many, and `perp order place` (checked above) would start a process
 * for each.
 */
let trader: ExchangeClient | undefined;
function placeOrder(): Promise<unknown> {
  trader ??= new ExchangeClient({ url: ex.url, wallet: readKey(join(home, 'key')).account });
  return trader.placeOrder({ symbol: 'BTC-USD-PERP', price: '90000', quantity: '0.001', postOnly: true });
}

test('feed follow outlives a dropped connection: it reconnects, resumes without a gap, and ends on Ctrl-C with 0', { timeout: 90_000 }, async () => {
  const relay = await startRelay(Number(new URL(ex.url).port));
  after(() => relay.close());
  const follower = spawn(process.execPath, [join(ROOT, 'bin/perp.js'), 'feed', 'follow', 'account', '--json', '--url', relay.url], { cwd: home, env });
  let out = '';
  follower.stdout.on('data', (chunk: Buffer) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => follower.on('close', resolve));
  const orders = () => out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)).filter((m) => m.type === 'order');
  const placeUntil = async (what: string, done: () => boolean) => {
    for (let i = 0; i < 60 && !done() && follower.exitCode === null; i++) {
      await placeOrder();
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    assert.equal(follower.exitCode, null, `${what}: the follower is still running`);
    assert.ok(done(), what);
  };
  // Live from its start: orders until the follower has shown one.
  await placeUntil('the follower shows an order', () => orders().length >= 1);
  const before = orders().length;
  const refused = relay.refused();
  relay.cut(); // its connection drops, and reconnecting fails for a while
  await placeOrder(); // while it is away
  await refused; // it has tried to reconnect and failed
  relay.restore();
  await placeUntil('the follower reconnects and shows the orders since', () => orders().length >= before + 2);
  follower.kill('SIGINT');
  assert.equal(await exited, 0, 'Ctrl-C ends it with 0');
  const numbered = out.trim().split('\n').map((l) => JSON.parse(l)).filter((m) => ['order', 'fill', 'position', 'balance'].includes(m.type));
  const sequences = numbered.map((m) => m.sequence as number);
  assert.ok(sequences.every((n, i) => i === 0 || n === sequences[i - 1] + 1), `numbered without a gap or a repeat across the drop: ${sequences.join(', ')}`);
});

test('operator commands: deposit, index price, snapshot; journal inspect and replay', async () => {
  const account = '0x00000000000000000000000000000000000000aa';
  // Side by side: none needs another's effect; the journal is read once the deposit is in it.
  const [deposit, indexPrice, snapshot, wrongKey] = await Promise.all([perp('deposit', account, '250'), perp('index-price', 'ETH-USD-PERP', '3000'), perp('snapshot'), perp('snapshot', '--operator-key', 'nope')]);
  assert.equal(deposit.code, 0);
  assert.equal(indexPrice.code, 0);
  const client = new ExchangeClient({ url: ex.url });
  assert.equal((await client.prices({ symbol: 'ETH-USD-PERP' })).prices[0].indexPrice, '3000');
  assert.match(snapshot.stdout, /^snapshot taken at journal sequence \d+/);
  assert.equal(wrongKey.code, 1);
  const [inspect, replay] = await Promise.all([perp('journal', 'inspect', '--data-dir', join(ex.dataDir, 'journal')), perp('journal', 'replay', '--data-dir', ex.dataDir)]);
  assert.equal(inspect.code, 0, inspect.stderr);
  assert.match(inspect.stdout, /OperatorDeposit|Deposit/);
  assert.equal(replay.code, 0, replay.stderr);
  assert.match(replay.stdout, /checksums, sequence and hash chain OK\nreplay: final state hash [0-9a-f]{64}/);
});

test.after(() => rmSync(home, { recursive: true, force: true }));
