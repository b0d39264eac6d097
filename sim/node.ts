/**
 * @module sim/node
 *
 * One simulated exchange process: the real `Exchange` and `Sequencer`, the real `Journal` on
 * `SimulatedJournalStorage`, market "threads" that are in-process `FastOrderBook`s behind
 * command and event buffers (the rings' binary records, handled when the simulator says so),
 * and snapshots kept in simulated storage. Start-up follows `startExchange` (src/pipeline.ts)
 * step for step: the newest snapshot that verifies and restores to its hash, `Journal.open`
 * (torn-tail repair), `recover` from the snapshot's seq, the rebuilt books handed to the market
 * threads, then the sequencer — without sockets, threads, LMDB or history.
 *
 * A crash is the end of a `SimNode`: nothing of it is used again; the next one starts from the
 * storage it left (`SimulatedJournalStorage.powerLoss`) and the snapshots that were saved.
 *
 * Time: the simulator's host clock and steady clock (`SimClock`), under the exchange's time as
 * the pipeline has it (sequencer/exchange-time, from the journal's last command time): `now()`
 * is what the node stamps commands with, the markets record of its start included.
 *
 * May import: src/ (app, sequencer, transport, journal, engine, config), sim/prng. No clock, no Math.random.
 */
import { marketsFileOf, type MarketSpec } from '../src/config/market.ts';
import { FastOrderBook } from '../src/engine/fast-book.ts';
import type { BookSnapshot, MarketIndex, OrderId, OwnerIndex, PlaceOrder } from '../src/engine/types.ts';
import { Journal, type JournalLogger } from '../src/journal/journal.ts';
import { SimulatedJournalStorage } from '../src/journal/simulated-storage.ts';
import { decodeSnapshotRecord, encodeSnapshotRecord, type Snapshot, type SnapshotTie } from '../src/journal/snapshots.ts';
import { chainsOf, newestTakenOf } from '../src/journal/snapshot-tie.ts';
import { BookEventWriter, RecordBuffer, decodeCommand, encodeCancel, encodeCancelAll, encodeExpire, encodePlace, recordLength, writeDone, type CommandHandler } from '../src/transport/codec.ts';
import { Exchange } from '../src/app/exchange.ts';
import { NO_ROUTER, type ExchangeListeners, type MarketRouter } from '../src/app/ports.ts';
import { recover } from '../src/sequencer/recovery.ts';
import { Sequencer, type HistorySink } from '../src/sequencer/sequencer.ts';
import { encodeSnapshot } from '../src/sequencer/snapshot-codec.ts';
import { startMarkets, startState } from '../src/sequencer/start-state.ts';
import { recordMarkets } from '../src/sequencer/markets-record.ts';
import { ExchangeTime, lastJournaledTime } from '../src/sequencer/exchange-time.ts';
import type { Prng } from './prng.ts';

/** A market thread in process: book commands wait in a buffer until `run` handles them. */
export class SimMarket implements CommandHandler {
  private readonly commands = new RecordBuffer(1 << 14);
  private read = 0;
  private readonly events = new RecordBuffer(1 << 14);
  private result = 0;

  readonly index: MarketIndex;
  readonly book: FastOrderBook;

  /** The market thread starts from the books start-up rebuilt (as a worker does, through their snapshots). */
  constructor(market: MarketSpec, from: FastOrderBook | undefined) {
    this.index = market.index;
    const writer = new BookEventWriter(this.events, market.index);
    const options = { minSizeLots: market.minSizeLots };
    this.book = from === undefined ? new FastOrderBook(market.index, writer, options) : FastOrderBook.restore(from.snapshot(), writer, options);
  }

  /** Book commands sent and not handled yet. */
  pending(): boolean {
    return this.read < this.commands.length;
  }

  enqueuePlace(cmd: PlaceOrder): void {
    const at = this.commands.reserve();
    this.commands.commit(encodePlace(this.commands.view, this.commands.bytes, at, this.index, cmd));
  }
  enqueueCancel(orderId: OrderId, owner: OwnerIndex, time: number): void {
    const at = this.commands.reserve();
    this.commands.commit(encodeCancel(this.commands.view, at, this.index, orderId, owner, time));
  }
  enqueueCancelAll(owner: OwnerIndex, time: number, reason: number): void {
    const at = this.commands.reserve();
    this.commands.commit(encodeCancelAll(this.commands.view, at, this.index, owner, time, reason));
  }
  enqueueExpire(time: number): void {
    const at = this.commands.reserve();
    this.commands.commit(encodeExpire(this.commands.view, at, this.index, time));
  }

  // CommandHandler: what the market worker does with each command.
  place(cmd: PlaceOrder): void {
    this.result = this.book.place(cmd);
  }
  cancel(orderId: OrderId, owner: OwnerIndex, time: number): void {
    this.result = this.book.cancel(orderId, owner, time);
  }
  cancelAll(owner: OwnerIndex, time: number, reason: number): void {
    this.result = this.book.cancelAll(owner, time, reason);
  }
  expire(time: number): void {
    this.result = this.book.expire(time);
  }

  /**
   * The thread takes up to `max` commands (each followed by its `Done`), then the main thread
   * drains the event batch into `deliver`. Commands the events cause wait for the next run.
   */
  run(max: number, deliver: (view: DataView, bytes: Uint8Array, offset: number) => void): number {
    let handled = 0;
    while (handled < max && this.read < this.commands.length) {
      const at = this.read;
      this.read += recordLength(this.commands.view, at);
      decodeCommand(this.commands.view, this.commands.bytes, at, this);
      writeDone(this.events, this.index, this.result);
      handled++;
    }
    if (this.read === this.commands.length) {
      this.commands.reset();
      this.read = 0;
    }
    // Delivering may enqueue commands (triggered orders) but never writes events: copy-free.
    const events = this.events;
    const end = events.length;
    for (let at = 0; at < end; at += recordLength(events.view, at)) deliver(events.view, events.bytes, at);
    events.reset();
    return handled;
  }
}

/** The exchange's router to markets in process: each command waits in its market's buffer; `sent` hears that one came. */
export function simRouter(markets: readonly SimMarket[], sent: () => void = () => {}): MarketRouter {
  return {
    place: (market, cmd) => {
      markets[market].enqueuePlace(cmd);
      sent();
    },
    cancel: (market, orderId, owner, time) => {
      markets[market].enqueueCancel(orderId, owner, time);
      sent();
    },
    cancelAll: (market, owner, time, reason) => {
      markets[market].enqueueCancelAll(owner, time, reason);
      sent();
    },
    expire: (market, time) => {
      markets[market].enqueueExpire(time);
      sent();
    },
  };
}

/** Snapshots beside the journal, saved only when the simulator lets the write complete. */
export class SimSnapshots {
  /** Stored records by seq (as `Snapshots` stores them: checksummed, possibly torn by a crash). */
  private readonly stored = new Map<number, Uint8Array>();
  /** A save under way: captured, waiting for the journal flush and its own write. */
  pendingSave: { seq: number; record: Uint8Array } | null = null;
  saved = 0;
  interrupted = 0;

  /** `tie`: the journal's chain value of record `seq` (`journal.chainAt(seq)`), as the snapshot thread records it. */
  capture(seq: number, stateHash: string, bytes: Uint8Array, tie: SnapshotTie | undefined): void {
    this.pendingSave = { seq, record: encodeSnapshotRecord(seq, stateHash, bytes, tie) };
  }

  /** The save lands (production: `snapshots.save` then `prune(3)`). */
  complete(): void {
    if (this.pendingSave === null) return;
    this.stored.set(this.pendingSave.seq, this.pendingSave.record);
    this.pendingSave = null;
    this.saved++;
    const keys = [...this.stored.keys()].sort((a, b) => b - a);
    for (const key of keys.slice(3)) this.stored.delete(key);
  }

  /** A crash: a save under way is lost, or lands torn (a partial record that fails its checksum). */
  crash(rng: Prng): void {
    const save = this.pendingSave;
    this.pendingSave = null;
    if (save === null) return;
    this.interrupted++;
    if (rng.chance(0.5)) this.stored.set(save.seq, save.record.slice(0, rng.below(save.record.length)));
  }

  /** Valid snapshots, newest first (`Snapshots.validNewestFirst`). */
  *validNewestFirst(): Generator<Snapshot> {
    for (const key of [...this.stored.keys()].sort((a, b) => b - a)) {
      const snapshot = decodeSnapshotRecord(key, this.stored.get(key)!);
      if (snapshot) yield snapshot;
    }
  }
}

/** History is not simulated: it never refuses. */
const NO_HISTORY: HistorySink = {
  atEvent: () => {},
  behind: () => null,
  flushSoon: () => {},
};

/** Counts what the journal reports (a torn tail repaired) without printing it. */
export class CountingLogger implements JournalLogger {
  tornTails = 0;
  info(): void {}
  error(_fields: Record<string, unknown>, message: string): void {
    if (message.startsWith('TORN TAIL')) this.tornTails++;
  }
}

export interface StartHooks {
  /** Before journal record `seq` is applied in recovery (MAX_SAFE_INTEGER: after the last). */
  onRecord?(seq: number, exchange: Exchange): void;
  /** A snapshot verified by its checksum whose restored state does not match its hash. */
  onBadSnapshot?(seq: number, differ: string[]): void;
  /** A snapshot skipped as not taken of the journal (journal/snapshot-tie), with the line start-up logs. */
  onForeignSnapshot?(seq: number, message: string): void;
}

export interface StartReport {
  snapshotSeq: number;
  /** The markets record this start journaled (its markets file differed from the journal's, or the journal was empty), or null. */
  marketsSeq: number | null;
  /** The journal's last seq after opening it (torn tail removed), before recovered events were appended. */
  openedSeq: number;
  recoveredEvents: number;
  replayedRecords: number;
}

/** The exchange as the simulated server configures it (the faucet on, as on testnet). */
export const LEDGER_OPTIONS = { ledger: { faucet: true } };

/**
 * The newest snapshot that verifies and restores to its recorded hash, restored: its seq, the
 * exchange, the books. Null when none does. `startExchange`'s choice by its own code
 * (sequencer/start-state), with no history that must have caught up with it; a snapshot that
 * verifies but does not restore, which start-up logs, goes to `onBadSnapshot`. As in
 * production it is restored under the markets it carries (`marketsOf`), and an empty start
 * under the markets record `journal` begins with (`startMarkets`); `inUse` — the markets file
 * the last start ran under, production's storage/markets-in-use — stands in for either only
 * where they are missing.
 */
export function restoreNewest(
  inUse: readonly MarketSpec[],
  journal: Pick<Journal, 'range' | 'lastSeq' | 'chainAt'>,
  snapshots: SimSnapshots,
  listeners: ExchangeListeners,
  hooks: Pick<StartHooks, 'onBadSnapshot' | 'onForeignSnapshot'> = {},
): { seq: number; exchange: Exchange; books: BookSnapshot[] } | { seq: 0; exchange: Exchange; books: [] } {
  const { exchange, start } = startState(snapshots, journal, Number.MAX_SAFE_INTEGER, startMarkets(journal, inUse), listeners, LEDGER_OPTIONS, {
    error: (fields, message) => (fields.notTakenOf === true ? hooks.onForeignSnapshot?.(fields.seq as number, message) : hooks.onBadSnapshot?.(fields.seq as number, fields.differ as string[])),
  });
  return start === undefined ? { seq: 0, exchange, books: [] } : { seq: start.seq, exchange, books: start.saved.books };
}

/** The markets as a markets file writes them, one string: equal markets, equal text. */
export function marketsText(markets: readonly MarketSpec[]): string {
  return JSON.stringify(marketsFileOf(markets));
}

/** Quiet: `recordMarkets`' warning names the parameters a markets record changed, the exchange's time a step of the host's clock. */
const NO_WARNINGS = { warn: () => {}, info: () => {} };

/** A simulated machine's clocks (ms): the host's, which a fault may step back, and the steady one, which only moves on. A number: both stand there. */
export type SimClock = number | { host(): number; steady(): number };

export class SimNode {
  readonly markets: SimMarket[];
  readonly sequencer: Sequencer;

  private constructor(
    readonly specs: readonly MarketSpec[],
    readonly storage: SimulatedJournalStorage,
    readonly journal: Journal,
    readonly exchange: Exchange,
    books: FastOrderBook[],
    /** The exchange's time now (sequencer/exchange-time): what this node stamps commands with. */
    readonly now: () => number,
  ) {
    this.markets = specs.map((m) => new SimMarket(m, books[m.index]));
    const room = specs.map(() => ({ hasRoom: () => true, problem: () => null }));
    this.sequencer = new Sequencer(exchange, journal, room, NO_HISTORY);
    exchange.routeTo(simRouter(this.markets));
  }

  /**
   * Start-up as `startExchange` does it, on what `storage` and `snapshots` hold, with the
   * operator's markets file `file`: the journal opened (verified from after the newest snapshot
   * that verifies), the state restored under the journal's markets (`restoreNewest`) and
   * replayed, then a markets record journaled when `file` differs from the markets the replay
   * ended under (`recordMarkets`, as `replayJournal` in src/pipeline.ts) and made durable before
   * the market threads start under `file` and any command runs. `inUse` is the file the last
   * start ran under; `clock` the machine's, under the exchange's time the node reads (`now`).
   */
  static async start(
    file: readonly MarketSpec[],
    inUse: readonly MarketSpec[],
    storage: SimulatedJournalStorage,
    snapshots: SimSnapshots,
    listeners: ExchangeListeners,
    logger: CountingLogger,
    clock: SimClock,
    hooks: StartHooks = {},
  ): Promise<{ node: SimNode; report: StartReport }> {
    const { newest } = newestTakenOf(snapshots, chainsOf(storage));
    const journal = await Journal.open(storage, { logger, verifyFrom: newest + 1 });
    const openedSeq = journal.lastSeq();
    const restored = restoreNewest(inUse, journal, snapshots, listeners, hooks);
    const startSeq = restored.seq;
    const exchange = restored.exchange;
    const replayed = recover(exchange, journal, {
      from: startSeq + 1,
      books: restored.books,
      onRecord: hooks.onRecord === undefined ? undefined : (seq) => hooks.onRecord!(seq, exchange),
    });
    const { host, steady } = typeof clock === 'number' ? { host: () => clock, steady: () => clock } : clock;
    const time = new ExchangeTime({ host, steady, from: lastJournaledTime(journal), logger: NO_WARNINGS });
    const marketsSeq = recordMarkets(exchange, replayed.replay, journal, file, time.now(), NO_WARNINGS);
    await settle(storage, journal.durable(journal.lastSeq()));
    const node = new SimNode([...exchange.markets], storage, journal, exchange, replayed.books, time.now);
    return {
      node,
      report: { snapshotSeq: startSeq, marketsSeq, openedSeq, recoveredEvents: replayed.recoveredEvents, replayedRecords: replayed.commands + replayed.events },
    };
  }

  /** The fresh exchange on empty storage. */
  static async fresh(specs: readonly MarketSpec[], listeners: ExchangeListeners, logger: CountingLogger, clock: SimClock): Promise<SimNode> {
    const { node } = await SimNode.start(specs, specs, new SimulatedJournalStorage(), new SimSnapshots(), listeners, logger, clock);
    return node;
  }

  /** Book commands waiting in any market. */
  busy(): boolean {
    for (const m of this.markets) if (m.pending()) return true;
    return false;
  }

  /** Lets market `market` handle up to `max` commands and hands their events to the sequencer. */
  runMarket(market: number, max: number): void {
    const sequencer = this.sequencer;
    if (this.markets[market].run(max, sequencer.onRecord) > 0) sequencer.onBatch();
  }

  /** Every market runs until nothing is left (the sequencer's `idle`, synchronously). */
  quiesce(): void {
    while (this.busy()) for (const m of this.markets) this.runMarket(m.index, Number.MAX_SAFE_INTEGER);
  }

  /** A snapshot as `takeSnapshot` captures it: at a quiescent point, the exchange and every book. */
  captureSnapshot(snapshots: SimSnapshots): { seq: number; hash: string; books: string[]; markets: string } {
    this.quiesce();
    const seq = this.journal.lastSeq();
    const books = this.markets.map((m) => m.book.snapshot());
    const hashes = this.exchange.stateHashes();
    const hash = this.exchange.stateHash(hashes);
    // As the snapshot thread writes it (sequencer/snapshot-replica): with the markets it was taken under.
    snapshots.capture(seq, hash, encodeSnapshot({ exchange: this.exchange.snapshot(), books, hashes, markets: marketsFileOf(this.exchange.markets).markets }), this.journal.chainAt(seq));
    return { seq, hash, books: this.markets.map((m) => m.book.stateHash()), markets: marketsText(this.exchange.markets) };
  }
}

/** Flushes the simulated disk turn by turn until `done` settles (a start-up's own writes). */
export async function settle(storage: SimulatedJournalStorage, done: Promise<unknown>): Promise<void> {
  let finished = false;
  done.then(
    () => (finished = true),
    () => (finished = true),
  );
  for (let turns = 0; !finished; turns++) {
    if (turns > 1000) throw new Error('sim: a start-up write never became durable');
    await nextTurn();
    storage.flush();
    await nextTurn();
  }
  await done;
}

/** One event-loop turn: the journal's end-of-turn flush request runs, promises settle. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
