import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ring } from '../../src/transport/ring.ts';
import { kRingConsumerCursor, kRingProducerCursor } from '../../src/transport/layout.ts';
import { checkRecord, writeRecord } from './fixtures/ring-records.ts';

/** Writes `total` records in batches of varying size and drains them in other sizes; returns what came out. */
function pump(ring: Ring, total: number): number[] {
  const seen: number[] = [];
  let next = 0;
  let round = 0;
  while (seen.length < total) {
    const batch = 1 + (round * 7) % ring.capacity;
    for (let k = 0; k < batch && next < total; k++) {
      const offset = ring.tryClaim();
      if (offset < 0) break;
      writeRecord(ring.view, offset, next++);
      ring.commit();
    }
    ring.publish();
    ring.drain((view, offset) => {
      assert.ok(checkRecord(view, offset, seen.length) >= 0, `record ${seen.length} intact`);
      seen.push(view.getUint32(offset, true));
    }, 1 + (round * 5) % ring.capacity);
    round++;
  }
  return seen;
}

test('records come out in order and intact across many wraps of an 8-slot ring', () => {
  const ring = Ring.create(8, 128);
  const seen = pump(ring, 1000);
  assert.deepEqual(seen, Array.from({ length: 1000 }, (_, i) => i));
  assert.equal(ring.available(), 0);
  assert.equal(ring.freeSlots(), 8);
});

test('the int32 cursors wrap past 2^31 and 2^32 without losing a record', () => {
  for (const start of [0x7ffffff0, -16]) {
    const fresh = Ring.create(16, 128);
    const header = new Int32Array(fresh.buffer);
    header[kRingProducerCursor >> 2] = start;
    header[kRingConsumerCursor >> 2] = start;
    const ring = Ring.attach(fresh.buffer);
    const seen = pump(ring, 200);
    assert.deepEqual(seen, Array.from({ length: 200 }, (_, i) => i), `start ${start}`);
    assert.equal(ring.available(), 0);
  }
});

test('a ring attached to the same buffer sees what the creator published', () => {
  const producer = Ring.create(4, 64);
  const consumer = Ring.attach(producer.buffer);
  assert.equal(consumer.capacity, 4);
  assert.equal(consumer.slotBytes, 64);
  assert.ok(producer.tryWrite(Uint8Array.of(7, 0, 0, 0)));
  let value = -1;
  assert.equal(consumer.drain((view, offset) => (value = view.getUint8(offset))), 1);
  assert.equal(value, 7);
});

test('create refuses a capacity that is not a power of two, attach refuses a foreign buffer', () => {
  assert.throws(() => Ring.create(12), RangeError);
  assert.throws(() => Ring.create(8, 100), RangeError);
  assert.throws(() => Ring.attach(new SharedArrayBuffer(1024)), /bad magic/);
});
