/**
 * The history projection's cost per signed order, alone (issue 19): `npm run bench:history-write`.
 *
 * Replays the records bench:order-path's crossing orders make — per pair of orders: the maker
 * rests, and a taker fills a maker that rested a batch earlier (one trade, two settled fills,
 * two positions, two balances, three order changes) — through the real `Projections` listeners, in batches of
 * `HISTORY_BENCH_BATCH` pairs (default 25: what a flush holds at -c 50), into a fresh history
 * environment. Times separately what runs on the main thread (records built, the batch packed)
 * and what runs on the projection thread (unpacked, written and committed), per order; both on
 * this one thread, so the figures are CPU, not the wall time of a hand-off.
 * `HISTORY_BENCH_ORDERS` orders (default 40,000), after a warm-up of a tenth of them;
 * `HISTORY_BENCH_ACCOUNTS` subaccounts (default 100, as bench:order-path): with 2, every batch
 * writes near the same keys, which shows what scattering writes over subaccounts costs LMDB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { Projections } from '../src/history/projections.ts';
import { HISTORY_ENV_OPTIONS } from '../src/history/history-env.ts';
import { HistoryStore, type HistoryBatch } from '../src/history/batch.ts';
import { batchPacker, batchUnpacker } from '../src/history/history-wire.ts';
import { Side } from '../src/engine/types.ts';
import type { OrderState } from '../src/app/order-registry.ts';
import { loadAverage } from './http/measure.ts';
import { marketNo, orderNo, ownerNo } from '../test/fixtures/ids.ts';

const ORDERS = Number(process.env.HISTORY_BENCH_ORDERS ?? 40_000);
const PAIRS_PER_BATCH = Number(process.env.HISTORY_BENCH_BATCH ?? 25);
const ACCOUNTS = Number(process.env.HISTORY_BENCH_ACCOUNTS ?? 100);
const T0 = Date.UTC(2026, 10, 24, 20, 0, 0);

const dir = mkdtempSync(join(tmpdir(), 'history-write-bench-'));
const env = open({ path: dir, ...HISTORY_ENV_OPTIONS });
const projections = new Projections(env);
const journal = { seq: 0 };
projections.journal = { lastSeq: () => journal.seq, committedSeq: () => journal.seq, whenCommitted: async () => {} };
// The batches are caught here instead of written: this bench writes them itself, timed apart.
let caught: HistoryBatch | null = null;
(projections as unknown as { batches: { store: { write(b: HistoryBatch): void } } }).batches.store.write = (b) => (caught = b);
const store = new HistoryStore(env);
const { orderChanged, trade, ledgerEvent } = projections.listeners();

let orderId = 0;
let marketSeq = 0;
function order(owner: number, side: Side, time: number): OrderState {
  return {
    orderId: orderNo(++orderId), market: marketNo(0), owner: ownerNo(owner), account: `0x${owner.toString(16).padStart(40, '0')}`, subaccountIndex: 0,
    orderType: 'limit', side, price: 950_000, quantity: 10, remaining: 10, filled: 0, flags: 0, expiresAt: 0,
    nonce: T0 + orderId, clientId: null, originator: '0x0000000000000000000000000000000000000000', originatorFee: 0,
    triggerPrice: null, parentOrderId: null, period: null, trailingPercent: null, groupId: null, ocoGroupId: null,
    status: 'new', reason: null, createdAt: time, updatedAt: time, lastUpdateSequenceNumber: marketSeq,
  };
}

/** Makers resting, oldest first: each is filled a batch after it rested, as at -c 50. */
const resting: OrderState[] = [];

/** One crossing pair, as the exchange reports it: a maker rests, and a taker fills one that rested a batch ago. */
function pair(i: number): void {
  const time = T0 + i;
  const rests = order((i * 2) % ACCOUNTS, Side.Buy, time);
  journal.seq++;
  rests.lastUpdateSequenceNumber = ++marketSeq;
  orderChanged!(rests);
  resting.push(rests);
  if (resting.length <= PAIRS_PER_BATCH) return;
  const maker = resting.shift()!;
  const taker = order((i * 2 + 1) % ACCOUNTS, Side.Sell, time);
  journal.seq++;
  const seq = ++marketSeq;
  projections.atEvent(new DataView(new Float64Array([0, seq]).buffer), 0);
  trade!(marketNo(0), seq, time, 950_000, 10, Side.Sell);
  for (const [o, side, maker_] of [[maker, Side.Buy, true], [taker, Side.Sell, false]] as const) {
    ledgerEvent!({
      type: 'fill', owner: o.owner, market: 0, orderId: o.orderId, side, price: 950_000, quantity: 10, notional: 95_000_000n,
      fee: 9_500n, realizedPnl: 0n, realizedFunding: 0n, realizedExposure: 0n, realizedPoints: 95_000_000n,
      maker: maker_, liquidation: false, time,
    } as never);
    ledgerEvent!({ type: 'position', owner: o.owner, market: marketNo(0), quantity: side * 10 * i, basis: 950_000n * BigInt(i), fees: 9_500n * BigInt(i), funding: 0n, margin: 0n, isolated: false, updatedAt: time });
    ledgerEvent!({ type: 'balance', owner: o.owner, delta: -9_500n, collateral: 1_000_000_000_000n - 9_500n * BigInt(i), reason: 'fill', time });
    o.remaining = 0;
    o.filled = 10;
    o.status = 'filled';
    o.updatedAt = time;
    o.lastUpdateSequenceNumber = seq;
    orderChanged!(o);
  }
}

// One stream, as one projection thread's (history/history-wire), across the warm-up and the run.
const packBatch = batchPacker();
const unpackBatch = batchUnpacker();

function run(orders: number): { main: number; thread: number } {
  let main = 0;
  let thread = 0;
  for (let done = 0; done < orders / 2; done += PAIRS_PER_BATCH) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < PAIRS_PER_BATCH; i++) pair(done + i);
    projections.flush();
    const bytes = packBatch(caught!);
    const t1 = process.cpuUsage(t0);
    const t2 = process.cpuUsage();
    store.write(unpackBatch(bytes));
    const t3 = process.cpuUsage(t2);
    main += t1.user + t1.system;
    thread += t3.user + t3.system;
  }
  return { main: main / orders, thread: thread / orders };
}

console.log(`history-write bench: load average ${loadAverage()}; ${ORDERS} orders, ${PAIRS_PER_BATCH * 2} orders a batch`);
run(ORDERS / 10);
const r = run(ORDERS);
console.log(`main thread (records, pack): ${r.main.toFixed(1)} µs/order; projection thread (unpack, write, commit): ${r.thread.toFixed(1)} µs/order`);
await env.close();
rmSync(dir, { recursive: true, force: true });
