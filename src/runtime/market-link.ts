/**
 * @module runtime/market-link
 *
 * The main thread's end of one market thread: it encodes book commands into the command ring
 * and hands every record of the event ring to a callback, in order. A full command ring is
 * reported before anything is changed (`hasRoom`), so the sequencer can answer 503 and drop
 * nothing it accepted.
 */
import type { Worker } from 'node:worker_threads';
import type { MarketSpec } from '../config/market.ts';
import type { BookSnapshot, PlaceOrder } from '../engine/types.ts';
import { Ring } from './ring.ts';
import { encodeCancel, encodeCancelAll, encodeCancelByClientId, encodeExpire, encodePlace } from './codec.ts';
import { spawnTsWorker } from './spawn-worker.ts';
import type { MarketThreadData } from './market-worker.ts';

export type RecordHandler = (view: DataView, bytes: Uint8Array, offset: number) => void;

const COMMAND_SLOTS = 4096;
const EVENT_SLOTS = 16384;

export class MarketLink {
  private readonly commands = Ring.create(COMMAND_SLOTS);
  private readonly events = Ring.create(EVENT_SLOTS);
  private readonly worker: Worker;
  private readonly pending = new Map<number, (value: unknown) => void>();
  private nextRequest = 1;
  /** False once the thread is terminated: the drain loop stops without waiting for it. */
  private running = true;
  private readonly drained: Promise<void>;

  constructor(
    readonly markets: readonly MarketSpec[],
    snapshots: ReadonlyMap<number, BookSnapshot>,
    private readonly onRecord: RecordHandler,
    /** Called after each batch of records, so the caller can flush what the batch produced. */
    private readonly onBatch: () => void,
  ) {
    const data: MarketThreadData = {
      commands: this.commands.buffer,
      events: this.events.buffer,
      markets: markets.map((m) => ({ index: m.index, minSizeLots: m.minSizeLots, snapshot: snapshots.get(m.index) ?? null })),
    };
    this.worker = spawnTsWorker(new URL('./market-worker.ts', import.meta.url), { workerData: data });
    this.worker.on('message', (message: { id: number; value: unknown }) => {
      this.pending.get(message.id)?.(message.value);
      this.pending.delete(message.id);
    });
    this.drained = this.drain();
  }

  /** Whether `count` more commands fit in the command ring now. */
  hasRoom(count: number): boolean {
    return this.commands.freeSlots() >= count;
  }

  private claim(): number {
    const offset = this.commands.tryClaim();
    // The sequencer checked hasRoom before changing any state; a full ring here is a bug.
    if (offset < 0) throw new Error('market-link: command ring full after hasRoom');
    return offset;
  }

  private send(): void {
    this.commands.commit();
    this.commands.publish();
  }

  place(market: number, cmd: PlaceOrder): void {
    encodePlace(this.commands.view, this.commands.bytes, this.claim(), market, cmd);
    this.send();
  }

  cancel(market: number, orderId: number, owner: number, time: number): void {
    encodeCancel(this.commands.view, this.claim(), market, orderId, owner, time);
    this.send();
  }

  cancelByClientId(market: number, account: number, clientId: string, time: number): void {
    encodeCancelByClientId(this.commands.view, this.commands.bytes, this.claim(), market, account, clientId, time);
    this.send();
  }

  cancelAll(market: number, owner: number, time: number, reason: number): void {
    encodeCancelAll(this.commands.view, this.claim(), market, owner, time, reason);
    this.send();
  }

  expire(market: number, time: number): void {
    encodeExpire(this.commands.view, this.claim(), market, time);
    this.send();
  }

  /** The books' snapshots, as of every command sent before this call. */
  snapshots(): Promise<BookSnapshot[]> {
    return this.request('snapshot') as Promise<BookSnapshot[]>;
  }

  stateHashes(): Promise<{ market: number; hash: string }[]> {
    return this.request('stateHash') as Promise<{ market: number; hash: string }[]>;
  }

  private request(kind: 'snapshot' | 'stateHash'): Promise<unknown> {
    const id = this.nextRequest++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, kind });
    });
  }

  private async drain(): Promise<void> {
    const ring = this.events;
    const handle = (view: DataView, offset: number) => this.onRecord(view, ring.bytes, offset);
    for (;;) {
      if (ring.available() === 0) {
        // The worker closes its event ring as it exits: nothing more will come.
        if (ring.isClosed() || !this.running) break;
        await ring.waitForRecordsAsync(100);
      }
      if (ring.drain(handle) > 0) this.onBatch();
    }
  }

  /** Stops the thread after it has handled every command sent, and delivers its last events. */
  async close(): Promise<void> {
    this.commands.close();
    await this.drained;
    this.running = false;
    await new Promise<void>((resolve) => (this.worker.threadId < 0 ? resolve() : this.worker.once('exit', () => resolve())));
  }

  /** Ends the thread at once (a crash in tests, or after a fatal error). */
  async terminate(): Promise<void> {
    this.running = false;
    this.commands.close();
    await this.worker.terminate();
  }
}
