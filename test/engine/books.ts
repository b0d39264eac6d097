/**
 * Runs each test case against both implementations: `bookTest('…', ({ book, events }) => …)`
 * registers one node:test test per book, and checks the book's invariants after the case.
 */
import { test } from 'node:test';
import { FastOrderBook } from '../../src/engine/fast-book.ts';
import { NaiveOrderBook } from '../../src/engine/naive-book.ts';
import type { BookListener, BookOptions, BookSnapshot, OrderBook } from '../../src/engine/types.ts';
import { RecordingListener } from './recording-listener.ts';
import { marketNo } from '../fixtures/ids.ts';

export const MARKET = marketNo(0);

export interface Implementation {
  name: string;
  create(listener: BookListener, options?: BookOptions): OrderBook;
  restore(snapshot: BookSnapshot, listener: BookListener, options?: BookOptions): OrderBook;
}

export const IMPLEMENTATIONS: Implementation[] = [
  {
    name: 'FastOrderBook',
    create: (listener, options) => new FastOrderBook(MARKET, listener, options),
    restore: (snapshot, listener, options) => FastOrderBook.restore(snapshot, listener, options),
  },
  {
    name: 'NaiveOrderBook',
    create: (listener, options) => new NaiveOrderBook(MARKET, listener, options),
    restore: (snapshot, listener, options) => NaiveOrderBook.restore(snapshot, listener, options),
  },
];

export interface BookCase {
  book: OrderBook;
  events: RecordingListener;
  impl: Implementation;
}

export function bookTest(title: string, body: (c: BookCase) => void, options?: BookOptions): void {
  for (const impl of IMPLEMENTATIONS) {
    test(`${title} [${impl.name}]`, () => {
      const events = new RecordingListener();
      const book = impl.create(events, options);
      body({ book, events, impl });
      book.validateInternalState();
    });
  }
}

/** Places every command, asserting nothing; returns the book for chaining. */
export function placeAll(book: OrderBook, ...commands: Parameters<OrderBook['place']>[0][]): OrderBook {
  for (const cmd of commands) book.place(cmd);
  return book;
}
