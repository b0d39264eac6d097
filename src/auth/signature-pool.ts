/**
 * @module auth/signature-pool
 *
 * Signer recovery off the main thread: a piscina pool of `signature-worker.ts` threads. Calls
 * to `recover` are collected until `batchSize` are waiting or the event loop turns
 * (setImmediate), then sent as one task in a SharedArrayBuffer (no copy, no per-signature
 * message): `count × (digest 32 ‖ signature 65)` followed by `count × (flag 1 ‖ address 20)`
 * that the worker fills in.
 *
 * May import: piscina, node:os, ./address, ./signature, ./recovery (type), ./signature-worker (types).
 *
 * Invariants: every promise settles (null for an invalid signature, the lowercase address
 * otherwise); a malformed hex signature is answered on the main thread without a task;
 * results are exactly what `RecoveryBackend.recover` returns for the chosen backend.
 * TypeScript workers: worker threads inherit `process.execArgv`, so under `node --import tsx`
 * the worker file loads through tsx as well (test/auth/signature-pool.test.ts proves it).
 * Limits: a task failure (a worker crash) rejects the promises of that batch.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { bytesToHex, type Address } from './address.ts';
import { loadRecoveryBackend, type BackendName } from './recovery.ts';
import { signatureBytes } from './signature.ts';
import { ITEM_BYTES, RESULT_BYTES, type RecoverBatchTask } from './signature-worker.ts';

export interface SignaturePoolOptions {
  /** Default 'noble'. 'native' throws at construction where libsecp256k1 does not load. */
  backend?: BackendName;
  /** Worker threads; default every core (`os.availableParallelism()`). */
  threads?: number;
  /** Most signatures per task; default 64. */
  batchSize?: number;
}

interface Waiting {
  digest: Uint8Array;
  signature: Uint8Array;
  resolve(signer: Address | null): void;
  reject(error: unknown): void;
}

export class SignaturePool {
  readonly backend: BackendName;
  readonly threads: number;
  readonly batchSize: number;
  private readonly piscina: Piscina;
  private waiting: Waiting[] = [];
  private flushScheduled = false;
  private closed = false;

  constructor(options: SignaturePoolOptions = {}) {
    this.backend = options.backend ?? 'noble';
    if (loadRecoveryBackend(this.backend) === undefined) throw new Error(`recovery backend ${this.backend} is not available`);
    this.threads = Math.max(1, options.threads ?? availableParallelism());
    this.batchSize = Math.max(1, options.batchSize ?? 64);
    this.piscina = new Piscina({
      filename: new URL('./signature-worker.ts', import.meta.url).href,
      minThreads: this.threads,
      maxThreads: this.threads,
    });
  }

  /** The signer of `digest`, or null when `signature` (`0x` + 130 hex) is invalid. */
  recover(digest: Uint8Array, signature: string): Promise<Address | null> {
    if (this.closed) return Promise.reject(new Error('signature pool is closed'));
    const sig = signatureBytes(signature);
    if (sig === undefined || digest.length !== 32) return Promise.resolve(null);
    return new Promise<Address | null>((resolve, reject) => {
      this.waiting.push({ digest, signature: sig, resolve, reject });
      if (this.waiting.length >= this.batchSize) this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Sends what is waiting, then stops the workers once every task has finished. */
  async close(): Promise<void> {
    this.flush();
    this.closed = true;
    await this.piscina.close();
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    const count = batch.length;
    const buffer = new SharedArrayBuffer(count * (ITEM_BYTES + RESULT_BYTES));
    const bytes = new Uint8Array(buffer);
    for (let i = 0; i < count; i++) {
      bytes.set(batch[i].digest, i * ITEM_BYTES);
      bytes.set(batch[i].signature, i * ITEM_BYTES + 32);
    }
    const task: RecoverBatchTask = { buffer, count, backend: this.backend };
    this.piscina.run(task).then(
      () => {
        const results = count * ITEM_BYTES;
        for (let i = 0; i < count; i++) {
          const slot = results + i * RESULT_BYTES;
          batch[i].resolve(bytes[slot] === 1 ? (`0x${bytesToHex(bytes.subarray(slot + 1, slot + RESULT_BYTES))}` as Address) : null);
        }
      },
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
  }
}
