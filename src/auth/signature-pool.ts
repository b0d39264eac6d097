/**
 * @module auth/signature-pool
 *
 * Signer recovery off the main thread: a piscina pool of `signature-worker.ts` threads. Calls
 * are collected and sent at the end of the event-loop turn (setImmediate) as tasks of at most
 * `batchSize`, spread over the threads. Each thread has at most `tasksPerThread` tasks in
 * flight (default 2: one running, the next already in its port, so a finishing thread starts
 * again without waiting for this thread to hand it work); what arrives beyond that waits and
 * leaves with the next task a finishing thread is handed. Each post costs the main thread a
 * message and a wake-up whatever its size, so under load tasks fill up instead of multiplying,
 * and tasks of a few dozen let results stream back while the next ones are verified (measured
 * with bench/http.bench.ts: docs/benchmarks.md). `recover` tasks travel in a SharedArrayBuffer
 * (no copy, no per-signature message): `count × (digest 32 ‖ signature 65)` followed by
 * `count × (flag 1 ‖ address 20)` that the worker fills in.
 *
 * May import: piscina, node:os, transport/source-bundle, ./address, ./signature, ./recovery, ./codes, ./typed-data (types), ./signature-tasks.
 *
 * Invariants: every promise settles (null for an invalid signature, the lowercase address
 * otherwise); a malformed hex signature is answered on the main thread without a task;
 * results are exactly what `RecoveryBackend.recover` returns for the chosen backend.
 * TypeScript workers: from source, the pool's threads start on the worker's esbuild bundle
 * (transport/source-bundle; test/auth/signature-pool.test.ts runs it);
 * compiled to dist/, on the compiled worker beside this file (`WORKER`).
 * A thread that dies holding a task (piscina starts another in its place) costs its callers
 * nothing: recovery is pure, so the task runs once more; a task that fails twice rejects the
 * promises of its batch.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { execArgvWithoutTsx, isCompiled, runnableModule } from '../transport/source-bundle.ts';
import { bytesToHex, type Address } from './address.ts';
import { loadRecoveryBackend, type BackendName } from './recovery.ts';
import { signatureBytes } from './signature.ts';
import { encodeTypedBatch, ITEM_BYTES, RESULT_BYTES, typedAuthResult, type RecoverBatchTask, type RecoverTypedTask, type TypedBatch, type TypedResult } from './signature-tasks.ts';
import { AuthCode, refused, type AuthResult } from './codes.ts';
import type { Eip712Domain, MessageOf, PrimaryType } from './typed-data.ts';

interface WaitingTyped {
  domain: Eip712Domain;
  item: TypedBatch['items'][number];
  resolve(result: AuthResult<Address>): void;
  reject(error: unknown): void;
}

export interface SignaturePoolOptions {
  /** Default 'noble'. 'native' throws at construction where libsecp256k1 does not load. */
  backend?: BackendName;
  /** Worker threads; default every core (`os.availableParallelism()`). */
  threads?: number;
  /** Most signatures per task; default 32. */
  batchSize?: number;
  /** Tasks in flight per thread; default 2. */
  tasksPerThread?: number;
  /**
   * Typed messages that may wait for a thread (beyond those in flight) before new ones are
   * refused with `VerifierBehind` (503) instead of queueing without bound; default 10,000.
   */
  maxWaiting?: number;
}

interface Waiting {
  digest: Uint8Array;
  signature: Uint8Array;
  resolve(signer: Address | null): void;
  reject(error: unknown): void;
}

/** The worker module beside this one: `.ts` from source, `.js` compiled (transport/spawn-worker's rule). */
const WORKER = new URL(import.meta.url.endsWith('.js') ? './signature-worker.js' : './signature-worker.ts', import.meta.url);

export class SignaturePool {
  readonly backend: BackendName;
  readonly threads: number;
  readonly batchSize: number;
  readonly tasksPerThread: number;
  readonly maxWaiting: number;
  private readonly piscina: Piscina;
  private waiting: Waiting[] = [];
  private waitingTyped: WaitingTyped[] = [];
  private flushScheduled = false;
  private closed = false;
  /** Tasks posted and not yet finished: at most `tasksPerThread` per thread. */
  private inFlight = 0;
  /** Signatures whose tasks have finished. */
  private done = 0;
  /** Set by `close`: called once the last task has finished and nothing waits. */
  private drained: (() => void) | null = null;

  constructor(options: SignaturePoolOptions = {}) {
    this.backend = options.backend ?? 'noble';
    if (loadRecoveryBackend(this.backend) === undefined) throw new Error(`recovery backend ${this.backend} is not available`);
    this.threads = Math.max(1, options.threads ?? availableParallelism());
    this.batchSize = Math.max(1, options.batchSize ?? 32);
    this.tasksPerThread = Math.max(1, options.tasksPerThread ?? 2);
    this.maxWaiting = Math.max(1, options.maxWaiting ?? 10_000);
    this.piscina = new Piscina({
      // From source, the threads start on the worker's bundle, without tsx (transport/source-bundle).
      filename: runnableModule(WORKER).href,
      ...(isCompiled(WORKER) ? {} : { execArgv: execArgvWithoutTsx() }),
      minThreads: this.threads,
      maxThreads: this.threads,
      // Tasks beyond the running one wait in the thread's own port, not in piscina's queue.
      concurrentTasksPerWorker: this.tasksPerThread,
      // Nothing reads piscina's run- and wait-time histograms: not timing every task saves the
      // main thread two histogram updates per task and the worker a clock read (bench:order-path).
      recordTiming: false,
    });
  }

  /** Tasks the workers have finished so far (each carries every signature waiting when it left). */
  get tasks(): number {
    return this.piscina.completed;
  }

  /** Signatures waiting for a thread (not yet in a task). */
  get queued(): number {
    return this.waiting.length + this.waitingTyped.length;
  }

  /** Signatures recovered so far (valid or not). */
  get recovered(): number {
    return this.done;
  }

  /** The signer of `digest`, or null when `signature` (`0x` + 130 hex) is invalid. */
  recover(digest: Uint8Array, signature: string): Promise<Address | null> {
    if (this.closed) return Promise.reject(new Error('signature pool is closed'));
    const sig = signatureBytes(signature);
    if (sig === undefined || digest.length !== 32) return Promise.resolve(null);
    return new Promise<Address | null>((resolve, reject) => {
      this.waiting.push({ digest, signature: sig, resolve, reject });
      this.flushSoon();
    });
  }

  /**
   * The signer of a typed message: the worker computes the EIP-712 digest and recovers, so the
   * calling thread only serializes a small object. Batched like `recover`; refused with
   * `VerifierBehind` when `maxWaiting` messages already wait.
   */
  recoverTyped = <T extends PrimaryType>(domain: Eip712Domain, primaryType: T, message: MessageOf[T], signature: string): Promise<AuthResult<Address>> => {
    if (this.closed) return Promise.reject(new Error('signature pool is closed'));
    if (this.waitingTyped.length >= this.maxWaiting) return Promise.resolve(refused(AuthCode.VerifierBehind));
    return new Promise<AuthResult<Address>>((resolve, reject) => {
      this.waitingTyped.push({ domain, item: { primaryType, message, signature }, resolve, reject });
      this.flushSoon();
    });
  };

  private flushSoon(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(this.flush);
  }

  /** Sends what is waiting, then stops the workers once every task has finished. */
  async close(): Promise<void> {
    this.closed = true;
    this.flush();
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    await this.piscina.close();
  }

  /** Hands what is waiting to the threads, up to `tasksPerThread` tasks each: typed messages first, then raw digests. */
  private readonly flush = (): void => {
    this.flushScheduled = false;
    this.flushTyped();
    while (this.waiting.length > 0 && this.hasRoom()) this.runRaw(this.waiting.splice(0, this.batchSize));
  };

  /** Whether a thread can take another task (at most `tasksPerThread` each in flight). */
  private hasRoom(): boolean {
    return this.inFlight < this.threads * this.tasksPerThread;
  }

  /** Posts a task; `settle` hands its result to the callers, a failure rejects them all. */
  private dispatch<R>(task: RecoverBatchTask | RecoverTypedTask, callers: readonly { reject(error: unknown): void }[], settle: (result: R) => void): void {
    this.inFlight++;
    const run = () => this.piscina.run(task) as Promise<R>;
    run().catch(run).then(
      (result) => {
        this.done += callers.length;
        settle(result);
        this.finished();
      },
      (error: unknown) => {
        for (const caller of callers) caller.reject(error);
        this.finished();
      },
    );
  }

  /** A task finished: its thread takes whatever waits. */
  private readonly finished = (): void => {
    this.inFlight--;
    this.flush();
    if (this.inFlight === 0) this.drained?.();
  };

  private runRaw(batch: Waiting[]): void {
    const count = batch.length;
    const buffer = new SharedArrayBuffer(count * (ITEM_BYTES + RESULT_BYTES));
    const bytes = new Uint8Array(buffer);
    for (let i = 0; i < count; i++) {
      bytes.set(batch[i].digest, i * ITEM_BYTES);
      bytes.set(batch[i].signature, i * ITEM_BYTES + 32);
    }
    this.dispatch<number>({ buffer, count, backend: this.backend }, batch, () => {
      const results = count * ITEM_BYTES;
      for (let i = 0; i < count; i++) {
        const slot = results + i * RESULT_BYTES;
        batch[i].resolve(bytes[slot] === 1 ? (`0x${bytesToHex(bytes.subarray(slot + 1, slot + RESULT_BYTES))}` as Address) : null);
      }
    });
  }

  /**
   * Typed messages of one domain per task (in practice there is one: the deployment's), split
   * evenly over the threads with room, so a turn's signatures are recovered in parallel.
   */
  private flushTyped(): void {
    while (this.waitingTyped.length > 0 && this.hasRoom()) {
      const domain = this.waitingTyped[0].domain;
      const same = this.waitingTyped.filter((w) => w.domain === domain);
      this.waitingTyped = this.waitingTyped.filter((w) => w.domain !== domain);
      const tasks = Math.min(Math.max(1, this.threads - this.inFlight), same.length);
      const chunk = Math.min(this.batchSize, Math.ceil(same.length / tasks));
      let at = 0;
      for (; at < same.length && this.hasRoom(); at += chunk) this.runTyped(domain, same.slice(at, at + chunk));
      if (at < same.length) this.waitingTyped.unshift(...same.slice(at));
    }
  }

  private runTyped(domain: Eip712Domain, waiting: WaitingTyped[]): void {
    const batch = encodeTypedBatch({ domain, items: waiting.map((w) => w.item) });
    this.dispatch<TypedResult[]>({ kind: 'typed', backend: this.backend, batch }, waiting, (results) => {
      results.forEach((r, i) => waiting[i].resolve(typedAuthResult(r)));
    });
  }
}
