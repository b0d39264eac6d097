import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { SlotIndex } from '../../src/engine/slot-index.ts';

const key = fc.oneof(
  fc.integer({ min: 0, max: 64 }),
  fc.integer({ min: 1, max: 64 }).map((n) => 3 * 2 ** 40 + n),
  fc.integer({ min: -5, max: 2 ** 53 - 1 }),
);
const op = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key, value: fc.integer({ min: 0, max: 1_000_000 }) }),
  fc.record({ kind: fc.constant('delete' as const), key }),
);

test('SlotIndex answers like a Map under random sets and deletes, through growth', () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
      const index = new SlotIndex(4);
      const model = new Map<number, number>();
      for (const o of ops) {
        if (o.kind === 'set') {
          index.set(o.key, o.value);
          model.set(o.key, o.value);
        } else {
          index.delete(o.key);
          model.delete(o.key);
        }
        assert.equal(index.size, model.size);
        assert.equal(index.get(o.key), model.get(o.key) ?? -1);
      }
      for (const [k, v] of model) assert.equal(index.get(k), v);
      const seen = new Map<number, number>();
      index.forEach((k, v) => seen.set(k, v));
      assert.deepEqual([...seen].sort((a, b) => a[0] - b[0]), [...model].sort((a, b) => a[0] - b[0]));
    }),
    { numRuns: 300 },
  );
});

test('SlotIndex keeps every key findable after deleting from the middle of a probe run', () => {
  const index = new SlotIndex(4);
  for (let k = 0; k < 2_000; k++) index.set(k * 1024, k);
  for (let k = 0; k < 2_000; k += 3) index.delete(k * 1024);
  for (let k = 0; k < 2_000; k++) assert.equal(index.get(k * 1024), k % 3 === 0 ? -1 : k);
});
