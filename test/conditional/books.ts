/**
 * Runs each case against the book with its fast trigger index and with the naive reference
 * index: `conditionalTest('…', ({ book, events }) => …)` registers one node:test test per index
 * and checks the book's invariants after the case.
 */
import { test } from 'node:test';
import { ConditionalBook } from '../../src/conditional/conditional-book.ts';
import type { ConditionalBookOptions } from '../../src/conditional/conditional-book.ts';
import { RecordingListener } from './recording-listener.ts';
import { marketNo } from '../fixtures/ids.ts';

export const MARKET = marketNo(0);
export const INDEXES = ['fast', 'naive'] as const;

export interface ConditionalCase {
  book: ConditionalBook;
  events: RecordingListener;
  index: 'fast' | 'naive';
}

export function conditionalTest(title: string, body: (c: ConditionalCase) => void, options: ConditionalBookOptions = {}): void {
  for (const index of INDEXES) {
    test(`${title} [${index}]`, () => {
      const events = new RecordingListener();
      const book = new ConditionalBook(MARKET, events, { ...options, index });
      body({ book, events, index });
      book.validateInternalState();
    });
  }
}
