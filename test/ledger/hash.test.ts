/**
 * The ledger's state hash is FNV-1a 64 exactly: snapshots and journals written by earlier
 * builds carry these hashes, so the fast 32-bit-halves version must equal the textbook
 * BigInt definition on every string, including code units above 0x7f and 0xffff surrogates.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fnv1a64 } from '../../src/ledger/hash.ts';
import { Prng } from '../../sim/prng.ts';

function reference(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

test('fnv1a64 equals the BigInt definition on random strings of every code-unit range', () => {
  const rng = new Prng(12);
  assert.equal(fnv1a64(''), 'cbf29ce484222325');
  assert.equal(fnv1a64('a'), reference('a'));
  for (let n = 0; n < 500; n++) {
    const top = [0x80, 0x800, 0x10000][n % 3];
    const text = String.fromCharCode(...Array.from({ length: rng.between(1, 200) }, () => rng.below(top)));
    assert.equal(fnv1a64(text), reference(text), `string #${n}`);
  }
});
