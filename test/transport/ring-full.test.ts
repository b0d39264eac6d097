import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ring } from '../../src/transport/ring.ts';

const RECORD = Uint8Array.of(1, 2, 3, 4);

test('a full ring refuses a write, and accepts again once the consumer frees a slot', () => {
  const ring = Ring.create(4, 64);
  for (let i = 0; i < 4; i++) assert.equal(ring.tryWrite(RECORD), true, `write ${i}`);
  assert.equal(ring.tryWrite(RECORD), false);
  assert.equal(ring.tryClaim(), -1);
  assert.equal(ring.freeSlots(), 0);
  assert.equal(ring.drain(() => {}, 1), 1);
  assert.equal(ring.freeSlots(), 1);
  assert.equal(ring.tryWrite(RECORD), true);
  assert.equal(ring.tryWrite(RECORD), false);
  assert.equal(ring.available(), 4);
});

test('claimed but unpublished slots are invisible to the consumer and count against space', () => {
  const ring = Ring.create(4, 64);
  for (let i = 0; i < 4; i++) {
    assert.ok(ring.tryClaim() >= 0);
    ring.commit();
  }
  assert.equal(ring.available(), 0);
  assert.equal(ring.tryClaim(), -1);
  ring.publish();
  assert.equal(ring.available(), 4);
});

test('claimWait gives up after its timeout on a ring nobody drains', () => {
  const ring = Ring.create(2, 64);
  ring.spinMicros = 0;
  assert.ok(ring.tryWrite(RECORD));
  assert.ok(ring.tryWrite(RECORD));
  assert.equal(ring.claimWait(20), -1);
});

test('a record larger than a slot is refused loudly', () => {
  const ring = Ring.create(2, 64);
  assert.throws(() => ring.tryWrite(new Uint8Array(65)), RangeError);
});
