/** History batches cross to the projection thread packed, one stream per thread: every record comes back as it left. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { batchPacker, batchUnpacker } from '../../src/history/history-wire.ts';
import type { HistoryBatch, HistoryWrite } from '../../src/history/batch.ts';
import type { OrderRecord } from '../../src/history/types.ts';
import { marketNo, orderNo, ownerNo } from '../fixtures/ids.ts';

const FILL_WITH_HUGE_PNL: HistoryWrite = {
  kind: 'fill',
  record: {
    owner: ownerNo(7), marketIndex: marketNo(0), seq: 123_456, time: 1_764_000_000_000, orderId: orderNo(9_007_199_254_740_991), price: 9_500_000, quantity: -3,
    realizedExposure: -(2n ** 90n), realizedFunding: 0n, realizedPnl: 2n ** 64n + 1n, realizedPoints: -1n,
  },
};

test('a fill with bigints beyond 64 bits, an order with undefined and null fields: unchanged after the trip', () => {
  const order: HistoryWrite = {
    kind: 'accountEvents',
    // Fields the wire must carry whatever they hold (undefined, null, non-ASCII), not a whole order.
    events: [
      {
        owner: ownerNo(3), seq: 5, kind: 'order',
        order: { orderId: 42, owner: 3, marketIndex: 1, status: 'new', orderType: 'limit', createdAt: 1, updatedAt: 2, trailingPercent: null, triggerPrice: undefined, clientId: 'ü-1' } as unknown as OrderRecord,
      },
      { owner: ownerNo(3), seq: 6, kind: 'balance', balance: { delta: '-1', collateral: '99', reason: 'fill', time: 2 } },
    ],
  };
  const batch: HistoryBatch = { seq: 99, transferCount: 4, writes: [FILL_WITH_HUGE_PNL, order, FILL_WITH_HUGE_PNL] };
  const back = batchUnpacker()(batchPacker()(batch));
  assert.deepStrictEqual(back, batch);
  const events = (back.writes[1] as Extract<HistoryWrite, { kind: 'accountEvents' }>).events;
  assert.ok('triggerPrice' in (events[0] as { order: object }).order, 'an undefined field stays a field');
});

test('property: any stream of batches of records made of numbers, strings, booleans, null, undefined and bigints survives packing, batch by batch, however many shapes it defines', () => {
  const value = fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
    fc.string(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }),
  );
  const record = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }).filter((k) => k !== '__proto__'), value, { maxKeys: 12, noNullPrototype: true });
  const write = fc.record({ kind: fc.constantFrom('order', 'trade', 'fill', 'fundingRate', 'transfer'), record }, { noNullPrototype: true });
  const batch = fc.record({ seq: fc.nat(), transferCount: fc.nat(), writes: fc.array(write, { maxLength: 30 }) }, { noNullPrototype: true });
  fc.assert(
    fc.property(fc.array(batch, { minLength: 1, maxLength: 12 }), (batches) => {
      // One thread's stream: shapes defined by earlier batches are referred to by later ones.
      const pack = batchPacker();
      const unpack = batchUnpacker();
      for (const b of batches) assert.deepStrictEqual(unpack(pack(b as unknown as HistoryBatch)), b);
    }),
    { numRuns: 300 },
  );
});

test('each packed batch owns its buffer, so it can be transferred', () => {
  const pack = batchPacker();
  const a = pack({ seq: 1, transferCount: 0, writes: [FILL_WITH_HUGE_PNL] });
  const b = pack({ seq: 2, transferCount: 0, writes: [] });
  assert.equal(a.byteOffset, 0);
  assert.equal(a.buffer.byteLength, a.length);
  assert.notEqual(a.buffer, b.buffer);
  assert.equal(batchUnpacker()(a).seq, 1);
});

test('a shape is defined once per stream: the second batch with it is smaller, and an unpacker that missed the first cannot read it (a thread gets its own pair)', () => {
  const pack = batchPacker();
  const first = pack({ seq: 1, transferCount: 0, writes: [FILL_WITH_HUGE_PNL] });
  const second = pack({ seq: 2, transferCount: 0, writes: [FILL_WITH_HUGE_PNL] });
  assert.ok(second.length < first.length, `the shapes travel with the first batch only (${first.length} then ${second.length} bytes)`);
  assert.throws(() => batchUnpacker()(second));
  const unpack = batchUnpacker();
  unpack(first);
  assert.deepStrictEqual(unpack(second).writes, [FILL_WITH_HUGE_PNL]);
});
