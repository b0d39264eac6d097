/**
 * @module transport/market-link
 *
 * The main thread's end of one market thread: it encodes book commands into the command ring
 * and hands every record of the event ring to a callback, in order. A full command ring is
 * reported before anything is changed (`hasRoom`), so the sequencer can answer 503 and drop
 * nothing it accepted. Book commands that arise while events are handled (triggered stops, the
 * next iceberg slice) cannot be refused: when the ring is full they wait, in order, in an
 * overflow buffer that drains into the ring as the thread frees slots.
 *
 * A thread that ends on its own (it threw, ran out of memory, exited) is reported once to
 * `onStopped` with a reason naming its markets; from then on `problem()` says it, the drain
 * loop ends and requests to it fail at once — nothing waits on a thread that is gone. So is a
 * record whose handler throws: the link stops there. An end asked for (`close`, `terminate`)
 * is not reported.
 *
 * `spawnMarketLinks` starts an exchange's market threads; `routerOver` is the application's
 * `MarketRouter` (app/ports) over them, by shape: the thread transport knows the books, not
 * the application that is handed it.
 */
import type { Worker } from 'node:worker_threads';
import type { MarketSpec } from '../config/market.ts';
import type { BookSnapshot, PlaceOrder } from '../engine/types.ts';
import { Ring } from './ring.ts';
import { RecordBuffer, encodeCancel, encodeCancelAll, encodeExpire, encodePlace, recordLength } from './codec.ts';
import { siblingModule, spawnWorker } from './spawn-worker.ts';
import type { MarketThreadData } from './market-worker.ts';
import type { MarketIndex, OrderId, OwnerIndex } from '../types/ids.ts';

export type RecordHandler = (view: DataView, bytes: Uint8Array, offset: number) => void;

const COMMAND_SLOTS = 4096;
const EVENT_SLOTS = 16384;

/** How often a request not yet answered wakes its thread again (ms). */
const REQUEST_REWAKE_MS = 5;

export class MarketLink {
  private readonly commands = Ring.create(COMMAND_SLOTS);
  private readonly events = Ring.create(EVENT_SLOTS);
  private readonly worker: Worker;
  /** Requests waiting for the thread's answer: settled with the answer, or an Error if the thread ends. */
  private readonly pending = new Map<number, (value: unknown) => void>();
  private nextRequest = 1;
  /** False once the thread is terminated: the drain loop stops without waiting for it. */
  private running = true;
  private readonly drained: Promise<void>;
  /** Commands waiting for ring slots, oldest first; `overflowRead` is where the next one starts. */
  private readonly overflow = new RecordBuffer(4096);
  private overflowRead = 0;
  /** A wake of a sleeping market thread is due at the end of this turn (one per turn). */
  private wakeScheduled = false;
  /** Why the thread is no longer running (it exited or threw), or null while it runs. */
  private stopped: string | null = null;
  /** `close` or `terminate` was called: the thread's end is expected. */
  private ending = false;

  constructor(
    readonly markets: readonly MarketSpec[],
    snapshots: ReadonlyMap<number, BookSnapshot>,
    private readonly onRecord: RecordHandler,
    /** Called after each batch of records, so the caller can flush what the batch produced. */
    private readonly onBatch: () => void,
    /** Called once if the thread ends without being asked to, with the reason (its markets named). */
    private readonly onStopped: (reason: string) => void = () => {},
  ) {
    const data: MarketThreadData = {
      commands: this.commands.buffer,
      events: this.events.buffer,
      markets: markets.map((m) => ({ index: m.index, minSizeLots: m.minSizeLots, snapshot: snapshots.get(m.index) ?? null })),
    };
    this.worker = spawnWorker(siblingModule('./market-worker.ts', import.meta.url), { workerData: data });
    this.worker.on('message', (message: { id: number; value: unknown }) => {
      this.pending.get(message.id)?.(message.value);
      this.pending.delete(message.id);
    });
    const name = `market thread of ${markets.map((m) => m.symbol).join(', ')}`;
    this.worker.on('error', (error) => this.stop(`${name} failed: ${error.message}`));
    this.worker.on('exit', (code) => this.stop(`${name} exited (code ${code})`));
    // A record the main thread cannot handle (its journal failed under it, say) stops the link
    // like its thread's death, reported, instead of ending the process with an unhandled
    // rejection and no log line (test/e2e/disk-full).
    this.drained = this.drain().catch((error: unknown) => this.stop(`events of the ${name} could not be handled: ${error instanceof Error ? error.message : String(error)}`));
  }

  private stop(reason: string): void {
    if (this.stopped !== null) return;
    this.stopped = reason;
    this.running = false;
    for (const settle of this.pending.values()) settle(new Error(reason));
    this.pending.clear();
    if (!this.ending) this.onStopped(reason);
  }

  /** Why this market thread is not running, or null while it runs (GET /ready). */
  problem(): string | null {
    return this.stopped;
  }

  /** The command ring's slots in use and capacity, and commands waiting beyond it (metrics). */
  occupancy(): { used: number; capacity: number; overflow: number } {
    const capacity = this.commands.capacity;
    let waiting = 0;
    for (let at = this.overflowRead; at < this.overflow.length; at += recordLength(this.overflow.view, at)) waiting++;
    return { used: capacity - this.commands.freeSlots(), capacity, overflow: waiting };
  }

  /** Whether `count` more commands fit in the command ring now (and none are waiting). */
  hasRoom(count: number): boolean {
    return this.overflow.length === 0 && this.commands.freeSlots() >= count;
  }

  /**
   * Where to encode the next command: a ring slot, or — when the ring is full or older commands
   * already wait — the end of the overflow buffer. `commit` keeps it in either case.
   */
  private target(): { view: DataView; bytes: Uint8Array; offset: number; ring: boolean } {
    if (this.overflow.length === 0) {
      const offset = this.commands.tryClaim();
      if (offset >= 0) return { view: this.commands.view, bytes: this.commands.bytes, offset, ring: true };
    }
    const offset = this.overflow.reserve();
    return { view: this.overflow.view, bytes: this.overflow.bytes, offset, ring: false };
  }

  private commit(slot: { view: DataView; offset: number; ring: boolean }): void {
    if (slot.ring) {
      this.commands.commit();
      // Visible at once to a thread that is awake; a sleeping one is woken once per turn.
      if (this.commands.publishWithoutWake() && !this.wakeScheduled) {
        this.wakeScheduled = true;
        setImmediate(this.wakeThread);
      }
    } else {
      this.overflow.commit(recordLength(slot.view, slot.offset));
    }
  }

  private readonly wakeThread = (): void => {
    this.wakeScheduled = false;
    this.commands.wake();
  };

  /** Moves waiting commands into the ring while it has room. */
  private drainOverflow(): void {
    if (this.overflow.length === 0) return;
    while (this.overflowRead < this.overflow.length) {
      const length = recordLength(this.overflow.view, this.overflowRead);
      if (!this.commands.tryWrite(this.overflow.bytes.subarray(this.overflowRead, this.overflowRead + length), length)) break;
      this.overflowRead += length;
    }
    if (this.overflowRead === this.overflow.length) {
      this.overflow.reset();
      this.overflowRead = 0;
    }
  }

  place(market: MarketIndex, cmd: PlaceOrder): void {
    const slot = this.target();
    encodePlace(slot.view, slot.bytes, slot.offset, market, cmd);
    this.commit(slot);
  }

  cancel(market: MarketIndex, orderId: OrderId, owner: OwnerIndex, time: number): void {
    const slot = this.target();
    encodeCancel(slot.view, slot.offset, market, orderId, owner, time);
    this.commit(slot);
  }

  cancelAll(market: MarketIndex, owner: OwnerIndex, time: number, reason: number): void {
    const slot = this.target();
    encodeCancelAll(slot.view, slot.offset, market, owner, time, reason);
    this.commit(slot);
  }

  expire(market: MarketIndex, time: number): void {
    const slot = this.target();
    encodeExpire(slot.view, slot.offset, market, time);
    this.commit(slot);
  }

  /** The books' snapshots, as of every command sent before this call. */
  snapshots(): Promise<BookSnapshot[]> {
    return this.request('snapshot') as Promise<BookSnapshot[]>;
  }

  stateHashes(): Promise<{ market: MarketIndex; hash: string }[]> {
    return this.request('stateHash') as Promise<{ market: MarketIndex; hash: string }[]>;
  }

  private request(kind: 'snapshot' | 'stateHash'): Promise<unknown> {
    if (this.stopped !== null) return Promise.reject(new Error(this.stopped));
    const id = this.nextRequest++;
    return new Promise((resolve, reject) => {
      // The thread polls its port between batches and sleeps on an empty ring: it is woken now,
      // and again every REQUEST_REWAKE_MS until it answers (a wake that lands between its poll
      // and its sleep finds no sleeper and is lost).
      const rewake = setInterval(() => this.commands.wake(), REQUEST_REWAKE_MS);
      this.pending.set(id, (value) => {
        clearInterval(rewake);
        if (value instanceof Error) reject(value);
        else resolve(value);
      });
      this.worker.postMessage({ id, kind });
      this.commands.wake();
    });
  }

  private async drain(): Promise<void> {
    const ring = this.events;
    // No spinning on the main thread: it has requests to serve while the market thread works,
    // and a wake-up costs it nothing but the event-loop turn that delivers it.
    ring.spinMicros = 0;
    const handle = (view: DataView, offset: number) => this.onRecord(view, ring.bytes, offset);
    for (;;) {
      if (ring.available() === 0) {
        // The worker closes its event ring as it exits: nothing more will come.
        if (ring.isClosed() || !this.running) break;
        await ring.waitForRecordsAsync(100);
      }
      if (ring.drain(handle) > 0) this.onBatch();
      // The thread took commands off its ring: waiting ones can follow.
      this.drainOverflow();
    }
  }

  /** Stops the thread after it has handled every command sent, and delivers its last events. */
  async close(): Promise<void> {
    this.ending = true;
    this.commands.close();
    await this.drained;
    this.running = false;
    await new Promise<void>((resolve) => (this.worker.threadId < 0 ? resolve() : this.worker.once('exit', () => resolve())));
  }

  /** Ends the thread at once (a crash in tests, or after a fatal error). */
  async terminate(): Promise<void> {
    this.ending = true;
    this.running = false;
    this.commands.close();
    await this.worker.terminate();
  }
}

/**
 * The market threads of an exchange: `markets` split over `threads` threads round-robin, each
 * starting from its books in `startBooks`, all handing their records to one sink.
 */
export function spawnMarketLinks(
  markets: readonly MarketSpec[],
  threads: number,
  startBooks: ReadonlyMap<number, BookSnapshot>,
  onRecord: RecordHandler,
  onBatch: () => void,
  onStopped: (reason: string) => void,
): MarketLink[] {
  const groups: MarketSpec[][] = Array.from({ length: Math.max(1, Math.min(threads, markets.length)) }, () => []);
  markets.forEach((m, i) => groups[i % groups.length].push(m));
  return groups.map((group) => new MarketLink(group, startBooks, onRecord, onBatch, onStopped));
}

/** The application's `MarketRouter` over the threads: each book command to the thread of its market. */
export function routerOver(links: readonly MarketLink[]): Pick<MarketLink, 'place' | 'cancel' | 'cancelAll' | 'expire'> {
  const linkOf: MarketLink[] = [];
  for (const link of links) for (const m of link.markets) linkOf[m.index] = link;
  return {
    place: (market, cmd) => linkOf[market].place(market, cmd),
    cancel: (market, orderId, owner, time) => linkOf[market].cancel(market, orderId, owner, time),
    cancelAll: (market, owner, time, reason) => linkOf[market].cancelAll(market, owner, time, reason),
    expire: (market, time) => linkOf[market].expire(market, time),
  };
}
