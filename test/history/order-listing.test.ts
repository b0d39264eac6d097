/**
 * Listing a subaccount's orders and fills from history (history/reader over history/store's
 * timeline): the answer equals a naive filter of each order's latest state, however the changes
 * were batched; a listing reads an order's record only for an entry it may list; a filter that
 * matches little in a long history stops at the search limit instead of reading all of it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ALICE_BUY_20_AT_95000_OPEN } from '../fixtures/orders.ts';
import { HistoryReader, SearchTooBroad } from '../../src/history/reader.ts';
import type { OrderQuery, OrderRecord } from '../../src/history/types.ts';
import type { OrderStatus } from '../../src/types/orders.ts';
import { isTerminal } from '../../src/app/order-registry.ts';
import { openTempHistory, type TempHistory } from './temp-store.ts';
import { marketNo, orderNo, ownerNo } from '../fixtures/ids.ts';

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);
const OWNER = ownerNo(7);

function order(orderId: number, status: OrderStatus, createdAt: number, updatedAt: number, marketIndex = 0, orderType: OrderRecord['orderType'] = 'limit'): OrderRecord {
  return { ...ALICE_BUY_20_AT_95000_OPEN, orderId: orderNo(orderId), owner: OWNER, market: marketNo(marketIndex), orderType, status, createdAt, updatedAt, price: 10, remaining: 1 };
}

/** What a listing should answer: each order's latest state, filtered, newest first (time, then orderId), `limit` of them. */
function naive(latest: Iterable<OrderRecord>, q: OrderQuery): number[] {
  const at = (o: OrderRecord) => (q.by === 'created' ? o.createdAt : o.updatedAt);
  return [...latest]
    .filter((o) => (q.from === undefined || at(o) >= q.from) && (q.to === undefined || at(o) < q.to))
    .filter((o) => (q.statuses === undefined || q.statuses.has(o.status)) && (q.marketIndex === undefined || o.market === q.marketIndex) && (q.orderTypes === undefined || q.orderTypes.has(o.orderType)))
    .sort((a, b) => at(b) - at(a) || b.orderId - a.orderId)
    .slice(0, q.limit)
    .map((o) => o.orderId);
}

const OPEN_STATUSES: OrderStatus[] = ['new', 'partiallyFilled', 'untriggered', 'triggered'];
const FINAL: OrderStatus[] = ['filled', 'cancelled', 'expired', 'rejected'];

/** One order's life: open changes at non-decreasing times (often the same ms), maybe a terminal one. */
const lifeArb = fc.record({
  createdAt: fc.integer({ min: 0, max: 30 }),
  market: fc.integer({ min: 0, max: 2 }),
  type: fc.constantFrom('limit', 'twap', 'stopLoss') as fc.Arbitrary<OrderRecord['orderType']>,
  steps: fc.array(fc.record({ dt: fc.constantFrom(0, 0, 1, 3, 7), status: fc.constantFrom(...OPEN_STATUSES) }), { minLength: 1, maxLength: 4 }),
  end: fc.option(fc.record({ dt: fc.constantFrom(0, 1, 5), status: fc.constantFrom(...FINAL) })),
});

const statusFilterArb = fc.constantFrom<ReadonlySet<OrderStatus> | undefined>(
  undefined,
  new Set(['new', 'partiallyFilled']),
  new Set(['new', 'partiallyFilled', 'untriggered']),
  new Set(['filled']),
  new Set(FINAL),
);
const queryArb = fc.record(
  {
    by: fc.constantFrom<'created' | 'updated'>('created', 'updated'),
    from: fc.integer({ min: T0 - 1, max: T0 + 45 }),
    to: fc.integer({ min: T0, max: T0 + 50 }),
    limit: fc.integer({ min: 1, max: 12 }),
    statuses: statusFilterArb,
    marketIndex: fc.integer({ min: 0, max: 2 }).map(marketNo),
    orderTypes: fc.constantFrom<ReadonlySet<OrderRecord['orderType']>>(new Set(['limit']), new Set(['twap', 'stopLoss'])),
  },
  { requiredKeys: ['limit', 'by'] },
);

test('property: every listing equals a naive filter of the orders\' latest states, however the changes were batched', () => {
  fc.assert(
    fc.property(fc.array(lifeArb, { minLength: 1, maxLength: 25 }), fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 20 }), fc.array(queryArb, { minLength: 8, maxLength: 8 }), (lives, batchSizes, queries) => {
      const h = openTempHistory();
      // Each order's changes in time order; orders interleaved as the exchange would report them.
      const changes: OrderRecord[] = [];
      const latest = new Map<number, OrderRecord>();
      lives.forEach((life, i) => {
        const created = T0 + life.createdAt;
        let t = created;
        for (const step of life.steps) {
          t += step.dt;
          changes.push(order(i + 1, step.status, created, t, life.market, life.type));
        }
        if (life.end !== null) changes.push(order(i + 1, life.end.status, created, t + life.end.dt, life.market, life.type));
        latest.set(i + 1, changes[changes.length - 1]);
      });
      changes.sort((a, b) => a.updatedAt - b.updatedAt);
      for (let at = 0, b = 0; at < changes.length; b++) {
        const size = batchSizes[b % batchSizes.length];
        const batch = changes.slice(at, at + size);
        h.write((w) => batch.forEach((o) => w.onOrderUpdate(o)));
        at += size;
      }
      for (const q of queries) assert.deepEqual(h.reader.orders(OWNER, q).map((o) => o.orderId), naive(latest.values(), q), JSON.stringify({ ...q, statuses: q.statuses && [...q.statuses], orderTypes: q.orderTypes && [...q.orderTypes] }));
      h.root.close();
    }),
    { numRuns: 150 },
  );
});

/** `count` cancelled limit orders on market 0, then `filled` filled ones on market 1, one fill each, oldest first. */
function longHistory(h: TempHistory, count: number, filled: number): void {
  for (let done = 0; done < count; done += 1000) {
    h.write((w) => {
      for (let i = done; i < Math.min(count, done + 1000); i++) {
        w.onOrderUpdate(order(i + 1, 'new', T0 + i, T0 + i));
        w.onOrderUpdate(order(i + 1, 'cancelled', T0 + i, T0 + i + 1));
      }
    });
  }
  h.write((w) => {
    for (let k = 0; k < filled; k++) {
      const id = count + k + 1;
      const t = T0 + count + 10 * k;
      w.onOrderUpdate(order(id, 'new', t, t, 1));
      w.onFill({ owner: OWNER, marketIndex: marketNo(1), seq: k + 1, time: t + 2, orderId: orderNo(id), price: 10, quantity: 1, realizedExposure: 0n, realizedFunding: 0n, realizedPnl: 0n, realizedPoints: 0n });
      w.onOrderUpdate(order(id, 'filled', t, t + 2, 1));
    }
  });
}

/** The reader over `h` with `searchLimit`, counting the order records it reads. */
function countingReader(h: TempHistory, searchLimit?: number): { reader: HistoryReader; records: () => number } {
  let records = 0;
  const orders = h.dbs.orders;
  const counted = Object.create(orders, { get: { value: (id: number) => (records++, orders.get(id)) } });
  return { reader: new HistoryReader({ ...h.dbs, orders: counted }, searchLimit), records: () => records };
}

test('a market maker\'s few filled orders among 20,000 cancelled ones: the listing reads their records only, and its fills alone', () => {
  const h = openTempHistory();
  longHistory(h, 20_000, 5);
  const { reader, records } = countingReader(h, 10_000);
  const filled = reader.orders(OWNER, { limit: 500, statuses: new Set(['filled']) });
  assert.deepEqual(filled.map((o) => o.orderId), [20_005, 20_004, 20_003, 20_002, 20_001]);
  assert.ok(filled.every((o) => o.status === 'filled' && isTerminal(o.status)));
  assert.equal(records(), 5, 'one record read per order listed: the 40,000 entries of the cancelled orders were skipped by their keys');
  assert.deepEqual(reader.orders(OWNER, { limit: 500, statuses: new Set(['filled', 'cancelled', 'expired', 'rejected']) }).length, 500, 'closed: the ranges of the four final statuses merged');
  assert.equal(records(), 505);
  assert.equal(reader.orders(OWNER, { limit: 5, marketIndex: marketNo(1) }).length, 5);
  assert.equal(records(), 510, 'a market filter skips by key, and an order\'s superseded entry is skipped without its record');
  // The fills are a range of their own: the five are found without reading the orders' entries.
  assert.equal(reader.fills(OWNER, { limit: 5000 }).length, 5);
  // Unfiltered, the newest 500: the cancelled orders' open entries are skipped as superseded without their record.
  const recent = reader.orders(OWNER, { limit: 500 });
  assert.equal(recent.length, 500);
  assert.equal(records(), 510 + 500, 'one record per order listed');
});

test('a filter that matches nothing in a history longer than the search limit is refused, and a narrower window answers', () => {
  const h = openTempHistory();
  longHistory(h, 6_000, 0);
  const { reader } = countingReader(h, 5_000);
  assert.throws(() => reader.orders(OWNER, { limit: 10, orderTypes: new Set(['twap']) }), SearchTooBroad);
  assert.throws(() => reader.orders(OWNER, { limit: 10, by: 'created', statuses: new Set(['filled']) }), SearchTooBroad);
  h.write((w) => {
    for (let i = 0; i < 6_000; i++) w.onFill({ owner: OWNER, marketIndex: marketNo(0), seq: i + 1, time: T0 + i, orderId: orderNo(i + 1), price: 10, quantity: 1, realizedExposure: 0n, realizedFunding: 0n, realizedPnl: 0n, realizedPoints: 0n });
  });
  assert.throws(() => reader.fills(OWNER, { limit: 10, marketIndex: marketNo(2) }), SearchTooBroad, 'a market never traded among 6,000 fills');
  assert.deepEqual(reader.fills(OWNER, { limit: 10, marketIndex: marketNo(2), from: T0 + 2_000 }), []);
  assert.deepEqual(reader.orders(OWNER, { limit: 10, orderTypes: new Set(['twap']), from: T0 + 4_000 }), []);
  assert.equal(reader.orders(OWNER, { limit: 10, statuses: new Set(['cancelled']) }).length, 10, 'a filter that matches at once reads little');
});
