/**
 * Signer recovery throughput: recoveries per second of each backend on one thread (tinybench),
 * and through the worker pool (every core, batches of 64) with many signatures in flight, plus
 * the EIP-712 order digest (ours vs viem). Baseline: noble on one thread, measured in this run.
 * Workload: 256 distinct (keccak digest, 65-byte signature) pairs from 16 keys, cycled.
 * Runs in about 35 s on 2 cores. The pool shares the cores with the main thread and with
 * whatever else runs: on a loaded machine its figures fall first (compare the 1-thread pool,
 * which isolates the batching and messaging overhead, with the 1-thread baseline).
 */
import { availableParallelism } from 'node:os';
import { Bench } from 'tinybench';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hashTypedData } from 'viem';
import { bytesToHex } from '../src/auth/address.ts';
import { loadRecoveryBackend, nobleBackend, type BackendName, type RecoveryBackend } from '../src/auth/recovery.ts';
import { SignaturePool } from '../src/auth/signature-pool.ts';
import { typedDataDigest, TYPES, type Eip712Domain, type OrderMessage } from '../src/auth/typed-data.ts';
import { PROFILES } from '../src/config/profile.ts';
import { eip712Domain } from '../src/auth/typed-data.ts';
import { report, type Figure } from './report.ts';

const SAMPLES = 256;
const digests: Uint8Array[] = [];
const signatures: Uint8Array[] = [];
const hexSignatures: string[] = [];
for (let i = 0; i < SAMPLES; i++) {
  const key = new Uint8Array(32).fill((i % 16) + 1);
  const digest = new Uint8Array(32).fill(i);
  const sig = secp256k1.sign(digest, key, { prehash: false, format: 'recovered' });
  const bytes = new Uint8Array(65);
  bytes.set(sig.subarray(1));
  bytes[64] = sig[0] + 27;
  digests.push(digest);
  signatures.push(bytes);
  hexSignatures.push(`0x${bytesToHex(bytes)}`);
}

async function singleThread(backend: RecoveryBackend, timeMs: number): Promise<number> {
  let i = 0;
  const bench = new Bench({ time: timeMs, warmupTime: 300 });
  bench.add(backend.name, () => {
    const k = i++ & (SAMPLES - 1);
    if (backend.recover(digests[k], signatures[k]) === null) throw new Error('recovery failed');
  });
  await bench.run();
  const result = bench.tasks[0].result;
  if (result.state !== 'completed') throw new Error(`${backend.name}: ${result.state}`);
  return result.throughput.mean;
}

async function throughPool(backend: BackendName, count: number, threads?: number): Promise<number> {
  const pool = new SignaturePool({ backend, threads });
  try {
    // Warm-up: every worker loads tsx and the backend.
    await Promise.all(Array.from({ length: pool.threads * 64 }, (_, k) => pool.recover(digests[k & 255], hexSignatures[k & 255])));
    const start = performance.now();
    const results = await Promise.all(Array.from({ length: count }, (_, k) => pool.recover(digests[k & 255], hexSignatures[k & 255])));
    const seconds = (performance.now() - start) / 1000;
    if (results.some((r) => r === null)) throw new Error('pool recovery failed');
    return count / seconds;
  } finally {
    await pool.close();
  }
}

const ORDER: OrderMessage = {
  account: '0x1111111111111111111111111111111111111111', subaccountIndex: 0, symbol: 'BTC-USD-PERP', orderType: 'limit',
  price: '65000.5', quantity: '-0.25', nonce: 1_700_000_000_000, expiresAt: 1_700_000_060_000, ioc: false, postOnly: true,
  reduceOnly: false, originator: '0x2222222222222222222222222222222222222222', originatorFee: 0, clientId: 'bot-42',
  triggerPrice: '', parentOrderId: '', period: 0, trailingPercent: '',
};

/**
 * Orders as a market maker sends them: one symbol and order type, 500 prices, 50 quantities, a
 * clientId and a nonce of their own each. typed-data remembers the hashes of the strings orders
 * repeat, so one order digested over and over would measure a cache, not a digest.
 */
const ORDERS: OrderMessage[] = Array.from({ length: 20_000 }, (_, i) => ({
  ...ORDER,
  price: `${64_750 + ((i * 7_919) % 500)}.5`,
  quantity: `-0.${String(1 + (i % 50)).padStart(2, '0')}`,
  nonce: 1_700_000_000_000 + i,
  clientId: `bot-${i}`,
}));

async function digests712(domain: Eip712Domain): Promise<{ ours: number; viem: number }> {
  const bench = new Bench({ time: 1500, warmupTime: 200 });
  let next = 0;
  bench.add('ours', () => {
    if (!typedDataDigest(domain, 'Order', ORDERS[next++ % ORDERS.length]).ok) throw new Error('digest refused');
  });
  const viemMessages = ORDERS.map((o) => ({ ...o, nonce: BigInt(o.nonce), expiresAt: BigInt(o.expiresAt), originatorFee: 0n, period: 0n }));
  bench.add('viem', () => hashTypedData({ domain, types: TYPES, primaryType: 'Order', message: viemMessages[next++ % ORDERS.length] as never }));
  await bench.run();
  const [ours, viem] = bench.tasks.map((t) => (t.result.state === 'completed' ? t.result.throughput.mean : NaN));
  return { ours, viem };
}

const native = loadRecoveryBackend('native');
const nobleOne = await singleThread(nobleBackend, 4000);
const baseline = { name: 'noble, 1 thread', value: nobleOne };
const figures: Figure[] = [{ name: 'noble, 1 thread', value: nobleOne, unit: 'recoveries/s' }];
if (native !== undefined) figures.push({ name: 'native libsecp256k1, 1 thread', value: await singleThread(native, 3000), unit: 'recoveries/s', baseline });
/** noble on the main thread for ~1.5 s, just before a pool figure: the load on this shared box drifts. */
function nobleNow(): { name: string; value: number } {
  const start = performance.now();
  let k = 0;
  while (performance.now() - start < 1500) nobleBackend.recover(digests[k & (SAMPLES - 1)], signatures[k++ & (SAMPLES - 1)]);
  return { name: 'noble, 1 thread, just before', value: k / ((performance.now() - start) / 1000) };
}
const threads = availableParallelism();
let before = nobleNow();
figures.push({ name: 'noble, pool of 1 thread (pool overhead)', value: await throughPool('noble', 1500, 1), unit: 'recoveries/s', baseline: before });
before = nobleNow();
figures.push({ name: `noble, pool of ${threads} threads`, value: await throughPool('noble', 4000), unit: 'recoveries/s', baseline: before });
if (native !== undefined) {
  before = nobleNow();
  figures.push({ name: `native, pool of ${threads} threads`, value: await throughPool('native', 60_000), unit: 'recoveries/s', baseline: before });
}
const digest = await digests712(eip712Domain(PROFILES.testnet));
figures.push({ name: 'EIP-712 Order digest (ours)', value: digest.ours, unit: 'digests/s', baseline: { name: 'viem hashTypedData', value: digest.viem } });
report('signatures', figures);
