/**
 * The market page's copy of a book (src/web/book.ts) holds exactly what the feed sent and
 * refuses what would make it wrong: its checksum recipe (crc-32 in the browser) gives the
 * server's (node:zlib) on books of every shape, a delta that does not chain on the copy and a
 * checksum that differs are refused (the page then subscribes again for a fresh snapshot).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LocalBook, type BookMessage, type Level } from '../../src/web/book.ts';
import { bookChecksum } from '../../src/ws/messages.ts';

/** Distinct price levels of one side, best first, as the feed writes them. */
const side = (best: 'high' | 'low') =>
  fc.uniqueArray(fc.tuple(fc.integer({ min: 1, max: 99_999 }), fc.integer({ min: 1, max: 5000 })), { selector: ([p]) => p, maxLength: 40 }).map((levels) =>
    levels
      .sort(([a], [b]) => (best === 'high' ? b - a : a - b))
      .map(([p, q]): Level => [(p / 10).toString(), (q / 100).toString()]),
  );

test('a snapshot is taken whole and its checksum is the server recipe', () => {
  fc.assert(
    fc.property(side('high'), side('low'), (bids, asks) => {
      const book = new LocalBook();
      assert.equal(book.apply({ type: 'snapshot', sequence_number: 7, bids, asks, checksum: bookChecksum(bids, asks) }), true);
      assert.deepEqual(book.best('bids', 100), bids);
      assert.deepEqual(book.best('asks', 100), asks);
    }),
  );
});

test('deltas set new totals, "0" removes a level, and each must chain on the copy', () => {
  const book = new LocalBook();
  const bids: Level[] = [['100.5', '2'], ['100', '1']];
  const asks: Level[] = [['101', '3']];
  assert.equal(book.apply({ type: 'snapshot', sequence_number: 10, bids, asks, checksum: bookChecksum(bids, asks) }), true);
  const after = { bids: [['100.5', '2']] as Level[], asks: [['101', '1'], ['102', '4']] as Level[] };
  const delta: BookMessage = {
    type: 'delta', previous_sequence_number: 10, sequence_number: 12,
    bids: [['100', '0']], asks: [['101', '1'], ['102', '4']], checksum: bookChecksum(after.bids, after.asks),
  };
  assert.equal(book.apply(delta), true);
  assert.deepEqual(book.best('bids', 10), after.bids);
  assert.deepEqual(book.best('asks', 10), after.asks);
  assert.equal(book.sequence, 12);
  // The same delta again starts from 10, not from the copy's 12: a gap.
  assert.equal(book.apply(delta), false);
});

test('a checksum that differs from the copy is refused', () => {
  const book = new LocalBook();
  const bids: Level[] = [['100', '1']];
  assert.equal(book.apply({ type: 'snapshot', sequence_number: 1, bids, asks: [], checksum: bookChecksum(bids, []) + 1 }), false);
});
