import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatDecimal, parseDecimal } from '../../src/numeric/decimal.ts';

test('parseDecimal reads exact scaled integers and refuses what it cannot hold exactly', () => {
  assert.deepEqual(parseDecimal('1.5', 2), { ok: true, value: 150n });
  assert.deepEqual(parseDecimal('-0.25', 2), { ok: true, value: -25n });
  assert.deepEqual(parseDecimal('1.500', 1), { ok: true, value: 15n });
  assert.deepEqual(parseDecimal('1.55', 1), { ok: false, problem: 'tooPrecise' });
  for (const bad of ['', '1e5', '+1', '1.', '.5', ' 1', '1 ', 'NaN', 'Infinity', '0x10', '1,5', '--1', '١']) {
    assert.deepEqual(parseDecimal(bad, 8), { ok: false, problem: 'notDecimal' }, bad);
  }
  assert.deepEqual(parseDecimal('1000', 0, 999n), { ok: false, problem: 'tooLarge' });
});

test('formatDecimal and parseDecimal round-trip every scaled integer', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }), (value, scale) => {
      const text = formatDecimal(value, scale);
      assert.doesNotMatch(text, /e|E/);
      assert.deepEqual(parseDecimal(text, scale), { ok: true, value });
    }),
    { numRuns: 2000 },
  );
  assert.equal(formatDecimal(0n, 6), '0');
  assert.equal(formatDecimal(-5n, 1), '-0.5');
});
