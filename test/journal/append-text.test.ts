/**
 * `appendText` (the sequencer's way of journaling a command: its JSON encoded straight into the
 * journal's buffer) writes the record `append` writes of the same text's UTF-8 bytes: the same
 * payload, checksums and chain, for any text — multi-byte characters and lone surrogates included, and
 * across the end of a slab — and a reopened journal reads them back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Journal } from '../../src/journal/journal.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { CapturingLogger, readAll } from './fixtures/journal-fixtures.ts';

const encoder = new TextEncoder();

test('a text appended is the record its UTF-8 bytes appended would be, and reads back', async () => {
  await fc.assert(
    // Any UTF-16 code units, lone surrogates included (both ways write them as U+FFFD).
    fc.asyncProperty(fc.array(fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 40_000 }), { minLength: 1, maxLength: 60 }), async (texts) => {
      const logger = new CapturingLogger();
      const asText = await Journal.open(new SimulatedJournalStorage({ autoFlush: true }), { logger });
      const asBytes = await Journal.open(new SimulatedJournalStorage({ autoFlush: true }), { logger });
      for (const t of texts) assert.equal(asText.appendText(3, t), asBytes.append(3, encoder.encode(t)));
      const written = readAll(asText);
      assert.deepEqual(written, readAll(asBytes));
      assert.deepEqual(written.map(([, , payload]) => new TextDecoder().decode(payload)), texts.map((t) => new TextDecoder().decode(encoder.encode(t))));
    }),
    { numRuns: 40 },
  );
});
