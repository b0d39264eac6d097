/**
 * @module bench/http/pool
 *
 * The baseline of every signed-order figure: the raw capacity of a SignaturePool with the
 * exchange's backend (native libsecp256k1 where it loads), flooded with the bench's own orders —
 * as the exchange uses it (EIP-712 digest + recovery per order) and recovery alone from
 * precomputed digests — and its CPU per order verified. Shared by bench/http.bench.ts and
 * bench/order-path.bench.ts.
 * May import: src/auth, ../load/generator (types).
 */
import { loadRecoveryBackend } from '../../src/auth/recovery.ts';
import { SignaturePool } from '../../src/auth/signature-pool.ts';
import { orderMessage, typedDataDigest, type Eip712Domain, type OrderMessage, type OrderRequest } from '../../src/auth/typed-data.ts';
import type { Presigned } from '../load/generator.ts';

export interface PoolCapacity {
  threads: number;
  /** EIP-712 digest + recovery per order, as the exchange asks it of the pool. */
  typed: { rate: number; micros: number };
  /** Recovery alone from precomputed digests. */
  raw: { rate: number; micros: number };
}

/** What the exchange verifies of one order: its EIP-712 message (by the exchange's own rules), digest and signature. */
export interface Verification {
  message: OrderMessage;
  digest: Uint8Array;
  signature: string;
}

export function verifications(domain: Eip712Domain, orders: readonly Presigned[]): Verification[] {
  return orders.map(({ body }) => {
    const message = orderMessage(body as OrderRequest);
    if (!message.ok) throw new Error(`the exchange refuses a bench order's message: ${JSON.stringify(message)}`);
    const digest = typedDataDigest(domain, 'Order', message.value);
    if (!digest.ok) throw new Error(`the exchange refuses a bench order's digest: ${JSON.stringify(digest)}`);
    return { message: message.value, digest: digest.value, signature: body.signatures[0] };
  });
}

/** Floods a pool of `threads` with `orders` (after `warmup`), the two ways the exchange could use it. */
export async function poolCapacity(threads: number, domain: Eip712Domain, warmup: Verification[], orders: Verification[]): Promise<PoolCapacity> {
  const backend = loadRecoveryBackend('native') !== undefined ? 'native' : 'noble';
  // A flood is the point here: no refusal however many wait.
  const pool = new SignaturePool({ backend, threads, maxWaiting: Number.POSITIVE_INFINITY });
  const flood = async (label: string, verify: (o: Verification) => Promise<unknown>): Promise<{ rate: number; micros: number }> => {
    await Promise.all(warmup.map(verify));
    const cpu = process.cpuUsage();
    const start = performance.now();
    await Promise.all(orders.map(verify));
    const rate = orders.length / ((performance.now() - start) / 1000);
    const used = process.cpuUsage(cpu);
    const micros = (used.user + used.system) / orders.length;
    console.log(`  signature pool (${backend}, ${threads} thread${threads === 1 ? '' : 's'}), ${label}: ${Math.round(rate)}/s, ${micros.toFixed(1)} µs CPU each`);
    return { rate, micros };
  };
  try {
    const typed = await flood('digest + recovery per order', async (o) => {
      const r = await pool.recoverTyped(domain, 'Order', o.message, o.signature);
      if (!r.ok) throw new Error('the pool refused a bench signature');
    });
    const raw = await flood('recovery alone (precomputed digests)', async (o) => {
      if ((await pool.recover(o.digest, o.signature)) === null) throw new Error('the pool refused a bench signature');
    });
    return { threads, typed, raw };
  } finally {
    await pool.close();
  }
}
