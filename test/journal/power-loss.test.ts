import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Journal } from '../../src/journal/journal.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { CapturingLogger, KIND_OF, payloadFor, readAll } from './fixtures/journal-fixtures.ts';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One step of a run: append some records in one turn, or flush some pending writes. */
const step = fc.oneof(
  fc.record({ append: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ flush: fc.integer({ min: 0, max: 30 }) }),
);

test('after a power cut at a random point no acknowledged record is lost and no unflushed one appears', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { minLength: 1, maxLength: 25 }),
      fc.nat({ max: 40 }),
      fc.option(fc.nat({ max: 200 }), { nil: undefined }),
      async (steps, survivingWrites, tornBytes) => {
        const disk = new SimulatedJournalStorage();
        const journal = await Journal.open(disk, { logger: new CapturingLogger() });
        let acked = 0;
        let n = 0;
        let flushedWrites = 0; // what the disk flushed (it may be ahead of what the journal knows)
        for (const s of steps) {
          if ('append' in s) {
            let seq = 0;
            for (let k = 0; k < s.append; k++) seq = journal.append(KIND_OF(++n), payloadFor(n));
            void journal.durable(seq).then(() => (acked = Math.max(acked, seq)), () => {});
          } else {
            const count = Math.min(s.flush, disk.unflushedWrites());
            disk.flush(count);
            flushedWrites += count;
          }
          await turn();
          await turn();
        }
        const flushedBeforeCut = journal.flushedSeq();
        assert.ok(acked <= flushedBeforeCut, 'an ack never runs ahead of the flush');

        const after = disk.powerLoss({ survivingWrites, tornBytes });
        const logger = new CapturingLogger();
        const recovered = await Journal.open(after, { logger });
        const records = readAll(recovered);
        // Every acknowledged record is there, intact, in order.
        assert.ok(recovered.lastSeq() >= acked, `acked ${acked}, recovered ${recovered.lastSeq()}`);
        records.forEach(([seq, kind, payload], i) => {
          assert.equal(seq, i + 1);
          assert.equal(kind, KIND_OF(seq));
          assert.deepEqual(payload, payloadFor(seq));
        });
        // Nothing beyond what reached the platter: flushed writes plus the surviving prefix
        // (plus the torn write when the tear happened to keep all of its bytes).
        const reached = flushedWrites + survivingWrites + (tornBytes === undefined ? 0 : 1);
        assert.ok(recovered.lastSeq() <= Math.min(n, reached), `recovered ${recovered.lastSeq()}, reached ${reached}`);
        // The recovered journal accepts the next record in sequence.
        assert.equal(recovered.append(1, payloadFor(0)), recovered.lastSeq());
      },
    ),
    { numRuns: 150 },
  );
});
