/**
 * bench:http's fast path of `npm run load`: orders signed with libsecp256k1 (`--signer native`)
 * and sent by autocannon from a child process (`--sender autocannon`). The exchange must accept
 * every one of those signatures and acknowledge every order, and the orders the generator reads
 * back must be the ones autocannon sent (its replies are matched to bodies by connection, so a
 * mix-up shows as mismatches). The native signer must sign exactly as viem does: the bench's
 * bodies are meant to be what any client sends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ExchangeClient } from '../../src/client/index.ts';
import type { LoadReport } from '../../bench/load/generator.ts';
import { nativeSigner, signerBackend } from '../../bench/load/native-signer.ts';
import { startTestExchange } from './harness.ts';
import { nodeArgsFor } from './processes.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const ex = await startTestExchange();

test('the native signer signs an order and a login exactly as viem does, with the types from GET /config', async () => {
  assert.equal(signerBackend, 'native', 'the libsecp256k1 binding did not load: the generator would fall back to noble');
  const key = generatePrivateKey();
  const order = { symbol: 'BTC-USD-PERP', price: '95000', quantity: '-0.001', clientId: 'fast-1', nonce: 1_700_000_000_000_001 };
  const native = await new ExchangeClient({ url: ex.url, signer: nativeSigner(key) }).signOrder(order);
  const viem = await new ExchangeClient({ url: ex.url, wallet: privateKeyToAccount(key) }).signOrder(order);
  assert.deepEqual(native, viem);
  const message = 'sign in, please';
  assert.equal(await nativeSigner(key).signMessage(message), await privateKeyToAccount(key).signMessage({ message }));
});

test('120 orders signed natively and sent by autocannon: every one acknowledged and read back as sent', async () => {
  const args = ['--orders', '120', '--accounts', '6', '--concurrency', '8', '--signer', 'native', '--sender', 'autocannon', '--url', ex.url, '--json'];
  // `npm run load`'s code from its bundle (test/e2e/processes), without the 2 s of CPU tsx spends loading it.
  const { stdout } = await promisify(execFile)(process.execPath, [...nodeArgsFor('bench/load/main.ts'), ...args], { cwd: ROOT, timeout: 120_000 });
  const report = JSON.parse(stdout) as LoadReport;
  assert.equal(report.signer, 'native');
  assert.equal(report.sender, 'autocannon');
  assert.deepEqual(report.statuses, { '200': 120 });
  assert.deepEqual(report.mismatches, []);
  assert.equal(report.readBack, 120);
  assert.ok(report.rate > 0 && report.latencyMs.p50 > 0 && report.latencyMs.p50 <= report.latencyMs.p99 && report.latencyMs.p99 <= report.latencyMs.max);
});
