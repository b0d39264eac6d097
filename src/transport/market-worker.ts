/**
 * @module transport/market-worker
 *
 * A market thread: owns the order books of its markets, takes binary commands from its
 * command ring, and writes every book event — then a `Done` record with the book's result —
 * to its event ring. One ring each way, single producer and single consumer, so no locks.
 *
 * The loop sleeps in `Atomics.wait` when there is nothing to do (Ring.waitForRecords), so an
 * idle market costs no CPU on a 2-core machine. Events of a batch of commands are published
 * together: one release for many records.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { FastOrderBook } from '../engine/fast-book.ts';
import type { BookSnapshot, PlaceOrder } from '../engine/types.ts';
import { Ring } from './ring.ts';
import { BookEventWriter, decodeCommand, ringSink, writeDone, recordMarket, type CommandHandler } from './codec.ts';
import type { MarketIndex } from '../types/ids.ts';

export interface MarketThreadData {
  commands: SharedArrayBuffer;
  events: SharedArrayBuffer;
  markets: { index: MarketIndex; minSizeLots: number; snapshot: BookSnapshot | null }[];
}

const data = workerData as MarketThreadData;
const commands = Ring.attach(data.commands);
const events = Ring.attach(data.events);
const sink = ringSink(events);

const books: FastOrderBook[] = [];
for (const m of data.markets) {
  const writer = new BookEventWriter(sink, m.index);
  books[m.index] = m.snapshot === null ? new FastOrderBook(m.index, writer, { minSizeLots: m.minSizeLots }) : FastOrderBook.restore(m.snapshot, writer, { minSizeLots: m.minSizeLots });
}

let book: FastOrderBook;
let result = 0;
const handler: CommandHandler = {
  place(cmd: PlaceOrder) {
    result = book.place(cmd);
  },
  cancel(orderId, owner, time) {
    result = book.cancel(orderId, owner, time);
  },
  cancelAll(owner, time, reason) {
    result = book.cancelAll(owner, time, reason);
  },
  expire(time) {
    result = book.expire(time);
  },
};

const onCommand = (view: DataView, offset: number): void => {
  const market = recordMarket(view, offset);
  book = books[market];
  decodeCommand(view, commands.bytes, offset, handler);
  writeDone(sink, market, result);
};

// Snapshots and hashes are asked for on the message port. The loop below never yields to the
// event loop, so requests are polled synchronously between batches: an answer reflects every
// command taken from the ring before it.
function answerRequests(): void {
  for (let message = receiveMessageOnPort(parentPort!); message !== undefined; message = receiveMessageOnPort(parentPort!)) {
    const { id, kind } = message.message as { id: number; kind: 'snapshot' | 'stateHash' };
    const value = books.filter(Boolean).map((b) => (kind === 'snapshot' ? b.snapshot() : { market: b.marketIndex, hash: b.stateHash() }));
    parentPort!.postMessage({ id, value });
  }
}

/**
 * The longest the loop sleeps with nothing to do (ms). A request's sender wakes it (MarketLink
 * `request` notifies the command ring's cursor word, again every few ms until answered): this
 * bound is a last resort, not how requests are noticed.
 */
const IDLE_WAKE_MS = 250;

for (;;) {
  if (commands.waitForRecords(IDLE_WAKE_MS)) {
    commands.drain(onCommand);
    events.publish();
  } else if (commands.isClosed()) break;
  answerRequests();
}
events.publish();
events.close();
// tsx's loader hooks keep this thread's event loop alive: end the thread explicitly.
process.exit(0);
