/**
 * The operator API's door (issue 13, item 8): an address that guesses `X-Operator-Key` is locked
 * out after a few failures (429 with Retry-After, even for the right key), other addresses are
 * not, and mainnet refuses to start with a short or published key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { TESTNET_OPERATOR_KEY } from '../../src/config/process.ts';
import { OPERATOR_KEY_FAILURES } from '../../src/http/operator-key.ts';
import { startInProcessExchange } from '../harness/in-process-exchange.ts';
import { nodeArgsFor } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const stateHash = (ex: { request: Function }, key: string, from: string) =>
  ex.request('GET', '/operator/state-hash', undefined, { 'x-operator-key': key, 'x-forwarded-for': from }) as Promise<{ status: number; text: string; headers: Headers }>;

test('guessing the operator key: a few 401s, then 429 with Retry-After for that address only, whatever key it sends', async () => {
  // The address a guess comes from is the listener's to tell (behind a trusted proxy, X-Forwarded-For).
  const ex = await (await startInProcessExchange({ args: ['--trusted-proxies', '127.0.0.1'] })).listen();
  const guesser = '203.0.113.7';
  const guesses = await Promise.all(Array.from({ length: 200 }, (_, i) => stateHash(ex, `guess-${i}-${'x'.repeat(i % 40)}`, guesser)));
  const statuses = guesses.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 401).length, OPERATOR_KEY_FAILURES, 'only the first few guesses are even checked');
  assert.equal(statuses.filter((s) => s === 429).length, 200 - OPERATOR_KEY_FAILURES);
  const locked = guesses.find((r) => r.status === 429)!;
  assert.match(locked.text, /^Too many wrong operator keys from this address, retry after \d+ s$/);
  assert.ok(Number(locked.headers.get('retry-after')) >= 30, `Retry-After ${locked.headers.get('retry-after')}`);

  const right = await stateHash(ex, TESTNET_OPERATOR_KEY, guesser);
  assert.equal(right.status, 429, 'a locked-out address is not told which key was right');
  assert.equal((await stateHash(ex, TESTNET_OPERATOR_KEY, '198.51.100.9')).status, 200, 'the operator elsewhere is not locked out');
  assert.equal((await stateHash(ex, 'wrong', '198.51.100.9')).status, 401);
});

async function startMain(args: string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [...nodeArgsFor('src/main.ts'), '--port', '0', '--data-dir', '/nonexistent/never-created', ...args], {
    cwd: ROOT,
    timeout: 30_000,
    env: { ...process.env, OPERATOR_KEY: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [status] = await once(child, 'close');
  return { status, stderr };
}

test('mainnet refuses to start with the published testnet key or a short one: exit 2, one line naming OPERATOR_KEY, the key not echoed', async () => {
  // The three starts side by side: each only reads its settings and exits.
  const keys = [TESTNET_OPERATOR_KEY, '12345678', 'a'.repeat(31)];
  const runs = await Promise.all(keys.map((key) => startMain(['--profile', 'mainnet', '--operator-key', key])));
  for (const [i, run] of runs.entries()) {
    const key = keys[i];
    assert.equal(run.status, 2, `${key}: ${run.stderr}`);
    assert.equal(
      run.stderr,
      'Cannot start: OPERATOR_KEY: must be a secret of 32 characters or more on mainnet, not a published one such as the testnet default (try: openssl rand -hex 32), got "(hidden)"\n',
    );
  }
});
