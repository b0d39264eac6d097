/**
 * Listing a long history: `npm run bench:history-read`.
 *
 * One subaccount with `HISTORY_READ_ORDERS` orders (default 100,000) written through the real
 * `HistoryWriter` as a market maker makes them: each rests (`new`) and ends a few ms later —
 * 98 % cancelled, 2 % filled with one fill each; 1 % on a second market. Then each listing the
 * API offers is timed (median of `HISTORY_READ_ROUNDS`, default 5), beside the baseline measured
 * in the same run: the newest 500 orders with no filter, which reads only what it lists. A
 * listing that reads past what it skips stops at the reader's search limit (reported as
 * "refused"). `status=open` is not here: the route answers it from memory (http/routes/orders).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { HISTORY_ENV_OPTIONS } from '../src/history/history-env.ts';
import { openHistoryDatabases } from '../src/history/store.ts';
import { HistoryWriter } from '../src/history/writer.ts';
import { HistoryReader, SearchTooBroad } from '../src/history/reader.ts';
import type { OrderQuery, OrderRecord } from '../src/history/types.ts';
import type { OrderStatus } from '../src/types/orders.ts';
import { loadAverage } from './http/measure.ts';
import { marketNo, orderNo, ownerNo } from '../test/fixtures/ids.ts';

const ORDERS = Number(process.env.HISTORY_READ_ORDERS ?? 100_000);
const ROUNDS = Number(process.env.HISTORY_READ_ROUNDS ?? 5);
const OWNER = ownerNo(1);
const T0 = Date.UTC(2026, 10, 24);

const dir = mkdtempSync(join(tmpdir(), 'history-read-bench-'));
const env = open({ path: dir, ...HISTORY_ENV_OPTIONS });
const dbs = openHistoryDatabases(env);
const writer = new HistoryWriter(dbs);

function order(orderId: number, status: OrderStatus, createdAt: number, updatedAt: number, marketIndex: number): OrderRecord {
  return {
    orderId: orderNo(orderId), market: marketNo(marketIndex), marketIndex, owner: OWNER, account: '0x00000000000000000000000000000000000000aa', subaccountIndex: 0,
    orderType: 'limit', side: 1, price: 950_000, quantity: 10, remaining: status === 'filled' ? 0 : 10, filled: status === 'filled' ? 10 : 0,
    flags: 0, expiresAt: 0, nonce: orderId, clientId: null, originator: '0x0000000000000000000000000000000000000000', originatorFee: 0,
    triggerPrice: null, parentOrderId: null, period: null, trailingPercent: null, groupId: null, ocoGroupId: null,
    status, reason: null, createdAt, updatedAt, lastUpdateSequenceNumber: orderId,
  } as OrderRecord;
}

const started = performance.now();
for (let done = 0; done < ORDERS; done += 1000) {
  writer.batch((w) => {
    for (let i = done; i < Math.min(ORDERS, done + 1000); i++) {
      const t = T0 + i * 10;
      const market = marketNo(i % 100 === 0 ? 1 : 0);
      // Filled: 2 % of the orders, among them every order on the second market.
      const filled = i % 50 === 0;
      w.onOrderUpdate(order(i + 1, 'new', t, t, market));
      if (filled) w.onFill({ owner: OWNER, marketIndex: market, seq: i + 1, time: t + 3, orderId: orderNo(i + 1), price: 950_000, quantity: 10, realizedExposure: 0n, realizedFunding: 0n, realizedPnl: 0n, realizedPoints: 0n });
      w.onOrderUpdate(order(i + 1, filled ? 'filled' : 'cancelled', t, t + 3, market));
    }
  });
}
await env.flushed;
console.log(`history-read bench: load average ${loadAverage()}; one subaccount, ${ORDERS} orders (2 % filled, 1 % on a second market) written in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const reader = new HistoryReader(dbs);
const listings: [string, () => unknown[]][] = [
  ['baseline: newest 500 orders, no filter', () => reader.orders(OWNER, { limit: 500 })],
  ['status=filled, 500', () => reader.orders(OWNER, { limit: 500, statuses: new Set(['filled']) })],
  ['status=closed, 500', () => reader.orders(OWNER, { limit: 500, statuses: new Set(['filled', 'cancelled', 'expired', 'rejected']) })],
  ['symbol of the second market (1 %), 500', () => reader.orders(OWNER, { limit: 500, marketIndex: marketNo(1) })],
  ['orderType=twap (none), 500', () => reader.orders(OWNER, { limit: 500, orderTypes: new Set(['twap']) })],
  ['orderType=twap, the last minute', () => reader.orders(OWNER, { limit: 500, orderTypes: new Set(['twap']), from: T0 + ORDERS * 10 - 60_000 })],
  ['created window, status=filled, 500', () => reader.orders(OWNER, { limit: 500, by: 'created', statuses: new Set(['filled']) } as OrderQuery)],
  ['fills, newest 5000', () => reader.fills(OWNER, { limit: 5000 })],
  ['fills of the second market, 500', () => reader.fills(OWNER, { limit: 500, marketIndex: marketNo(1) })],
];
for (const [name, list] of listings) {
  const cpu: number[] = [];
  const wall: number[] = [];
  let answer = '';
  for (let r = 0; r < ROUNDS; r++) {
    const c = process.cpuUsage();
    const t = performance.now();
    try {
      answer = `${list().length} listed`;
    } catch (error) {
      if (!(error instanceof SearchTooBroad)) throw error;
      answer = 'refused (search limit)';
    }
    wall.push(performance.now() - t);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(1);
  console.log(`  ${name.padEnd(42)} ${median(cpu).padStart(8)} ms CPU (${median(wall)} ms wall)  ${answer}`);
}
console.log(`load average at the end: ${loadAverage()}`);
await env.close();
rmSync(dir, { recursive: true, force: true });
