import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fnv1a64 } from '../../src/ledger/hash.ts';

/** FNV-1a 64 as its definition reads, in BigInt: what snapshots recorded before the limb form. */
function reference(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

test('the ledger hash is FNV-1a 64 digit for digit (published vectors and any UTF-16 text)', () => {
  assert.equal(fnv1a64(''), 'cbf29ce484222325');
  assert.equal(fnv1a64('a'), 'af63dc4c8601ec8c');
  assert.equal(fnv1a64('foobar'), '85944171f73967e8');
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => fnv1a64(text) === reference(text)), { numRuns: 500 });
  const long = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ owner: i, collateral: `${i * 7919}n` })));
  assert.equal(fnv1a64(long), reference(long));
});
