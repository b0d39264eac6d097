/**
 * Every byte of a record is written by the code: a record read from a ring slot or a reused
 * buffer equals its canonical encoding (the same record written into fresh zeroed memory),
 * whatever the slot held before. This is what lets replay compare a journaled book event with
 * the one it reproduces; stale padding once made restarts refuse with a divergence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BookEventWriter, RecordBuffer, recordLength, ringSink } from '../../src/transport/codec.ts';
import { describeEvent, differingFields, sameEvent } from '../../src/transport/event-fields.ts';
import { kRingSlotsOffset } from '../../src/transport/layout.ts';
import { ReplayDivergenceError } from '../../src/sequencer/recovery.ts';
import { Ring } from '../../src/transport/ring.ts';
import { replayCalls, type Call } from './fixtures/recorders.ts';
import { command, encode, event, type Command } from './fixtures/arbitrary-records.ts';
import { marketNo } from '../fixtures/ids.ts';
import type { MarketIndex } from '../../src/types/ids.ts';

/** The canonical bytes of one event: written alone into zeroed memory. */
function canonicalEvent(call: Call, market: MarketIndex): Uint8Array {
  const buffer = new RecordBuffer(256);
  replayCalls([call], new BookEventWriter(buffer, market));
  return buffer.contents().slice();
}

function canonicalCommand(c: Command): Uint8Array {
  const bytes = new Uint8Array(256);
  const length = encode(new DataView(bytes.buffer), bytes, 0, c);
  return bytes.slice(0, length);
}

/** A small ring whose slots start full of junk, so every record lands on bytes it must overwrite. */
function dirtyRing(slots: number): Ring {
  const ring = Ring.create(slots);
  ring.bytes.fill(0xa5, kRingSlotsOffset);
  return ring;
}

const slotBytes = (ring: Ring, offset: number) => ring.bytes.slice(offset, offset + recordLength(ring.view, offset));

test('book events read from a ring that wraps many times equal their canonical encoding', () => {
  const ring = dirtyRing(8);
  fc.assert(
    fc.property(fc.array(event, { minLength: 1, maxLength: 400 }), fc.integer({ min: 0, max: 0xffffffff }).map(marketNo), (calls, market) => {
      const writer = new BookEventWriter(ringSink(ring), market);
      let next = 0;
      // Publish in small batches so the ring (8 slots) wraps dozens of times per run.
      for (let i = 0; i < calls.length; i += 5) {
        replayCalls(calls.slice(i, i + 5), writer);
        ring.publish();
        ring.drain((view, offset) => {
          assert.deepEqual(slotBytes(ring, offset), canonicalEvent(calls[next], market), `record ${next}: ${calls[next][0]}`);
          next++;
        });
      }
      assert.equal(next, calls.length);
    }),
    { numRuns: 300, endOnFailure: true },
  );
});

test('commands read from a ring that wraps many times equal their canonical encoding', () => {
  const ring = dirtyRing(8);
  fc.assert(
    fc.property(fc.array(command, { minLength: 1, maxLength: 200 }), (commands) => {
      let next = 0;
      for (let i = 0; i < commands.length; i += 6) {
        for (const c of commands.slice(i, i + 6)) {
          encode(ring.view, ring.bytes, ring.tryClaim(), c);
          ring.commit();
        }
        ring.publish();
        ring.drain((view, offset) => {
          assert.deepEqual(slotBytes(ring, offset), canonicalCommand(commands[next]), `command ${next}: ${commands[next].kind}`);
          next++;
        });
      }
      assert.equal(next, commands.length);
    }),
    { numRuns: 300, endOnFailure: true },
  );
});

test('a reused RecordBuffer (replay reuses its own) writes canonical records after reset', () => {
  const buffer = new RecordBuffer(256);
  fc.assert(
    fc.property(fc.array(event, { minLength: 1, maxLength: 50 }), (calls) => {
      buffer.bytes.fill(0x5a);
      buffer.reset();
      const writer = new BookEventWriter(buffer, marketNo(3));
      for (const call of calls) {
        const at = buffer.length;
        replayCalls([call], writer);
        assert.deepEqual(buffer.bytes.slice(at, buffer.length), canonicalEvent(call, marketNo(3)));
      }
    }),
    { numRuns: 200, endOnFailure: true },
  );
});

test('journals written before records were canonical replay: stale padding is not a divergence, a changed field is', () => {
  const rested: Call = ['onRested', 7, 42, 3, 1, 123_456_789_012, 5, 1_700_000_000_000];
  const produced = canonicalEvent(rested, marketNo(0));
  const journaled = produced.slice();
  // What the old code left in a reused slot: bytes 60–63 (after `side`) from an earlier price.
  journaled.set([0xde, 0xad, 0xbe, 0xef], 60);
  const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
  assert.ok(sameEvent(view(produced), 0, view(journaled), 0));

  const moved = canonicalEvent(['onRested', 7, 42, 3, 1, 123_456_789_013, 5, 1_700_000_000_000], marketNo(0));
  assert.equal(sameEvent(view(produced), 0, view(moved), 0), false);
  const a = describeEvent(view(journaled), 0);
  const b = describeEvent(view(moved), 0);
  assert.deepEqual(differingFields(a, b), ['price']);

  const error = new ReplayDivergenceError(40311, marketNo(0), a, b, differingFields(a, b));
  assert.match(error.message, /journal seq 40311, market 0/);
  assert.match(error.message, /Rested \{"kind":"Rested","market":0,"seq":7,"orderId":42/);
  assert.match(error.message, /differing fields: price/);
  assert.match(error.message, /nothing acknowledged is lost/);
  assert.match(error.message, /To restore service/);
});
