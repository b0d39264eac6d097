/**
 * Engine benchmark: `FastOrderBook` against nodejs-order-book 10.1.1 (the peer a user could
 * pick instead), the same workloads in the same process. `npm run bench:engine`.
 *
 * Book: 1,000 resting orders per side near the top (100 price levels × 10 orders, 1–10 lots,
 * bids 99,901–100,000 below asks 100,001–100,100), rebuilt untimed before every batch.
 * Workloads (command streams generated up front by simulating them on a FastOrderBook):
 *  - place: 1,000 non-crossing limits within 50 ticks of the best price;
 *  - cancel: 1,000 cancels of random resting orders;
 *  - take 1 level / take 10 levels: IOC takers sized to empty exactly 1 or 10 levels;
 *  - first of 1,000 at one price vs first of 10 at one price: 500 one-lot IOC takers, each
 *    filling the first order of a level that holds 1,000 (resp. 10) orders — the peer's
 *    O(level) removal shows here; ours must not slow down;
 *  - mixed: 20,000 commands, 50 % places near the top, 30 % cancels of live orders, 20 %
 *    marketable IOC orders; once with small orderIds, once with market 1's (≥ 2^40, which
 *    V8 keeps as heap numbers: each one handed to a listener that is not inlined is boxed).
 * Every order has its own account, so self-trade prevention never fires and both books do
 * the same trades; a check after the mixed stream compares their depth.
 * Throughput: tinybench, one iteration = one batch; ops/s = commands / batch time.
 * Latency: a separate pass timing each command with process.hrtime.bigint() (the timer's own
 * ~50–100 ns is included), p50 and p99.
 */
import { Bench } from 'tinybench';
import { OrderBook as PeerBook, Side as PeerSide } from 'nodejs-order-book';
import type { LimitOrderOptions } from 'nodejs-order-book';
import { FastOrderBook } from '../src/engine/fast-book.ts';
import { OrderFlag, orderIdOf } from '../src/engine/types.ts';
import type { BookListener, PlaceOrder, Side } from '../src/engine/types.ts';
import { percentile, report } from './report.ts';
import { seeded } from './seeded.ts';
import type { Figure } from './report.ts';
import { accountNo, marketNo, orderNo, ownerNo } from '../test/fixtures/ids.ts';

const MID = 100_000;
const LEVELS = 100;
const ORDERS_PER_LEVEL = 10;
const LATENCY_SAMPLES = 50_000;

/** Counts events so that the work behind them cannot be optimised away. */
class CountingListener implements BookListener {
  events = 0;
  onAccepted(): void { this.events++; }
  onRested(): void { this.events++; }
  onFill(): void { this.events++; }
  onCancelled(): void { this.events++; }
  onExpired(): void { this.events++; }
  onRejected(): void { this.events++; }
  onLevel(): void { this.events++; }
}

/** Keeps the ids of resting orders, for generating cancels of live orders. */
class LiveOrders implements BookListener {
  readonly ids: number[] = [];
  private readonly at = new Map<number, number>();
  onAccepted(): void {}
  onRejected(): void {}
  onLevel(): void {}
  onRested(_seq: number, orderId: number): void { this.add(orderId); }
  onFill(_seq: number, maker: number, _taker: number, _mo: number, _to: number, _side: Side, _price: number, _qty: number, makerRemaining: number): void {
    if (makerRemaining === 0) this.remove(maker);
  }
  onCancelled(_seq: number, orderId: number): void { this.remove(orderId); }
  onExpired(_seq: number, orderId: number): void { this.remove(orderId); }
  pick(random: () => number): number {
    return this.ids[Math.floor(random() * this.ids.length)];
  }
  private add(id: number): void {
    this.at.set(id, this.ids.length);
    this.ids.push(id);
  }
  private remove(id: number): void {
    const i = this.at.get(id);
    if (i === undefined) return;
    const last = this.ids.pop() as number;
    if (last !== id) {
      this.ids[i] = last;
      this.at.set(last, i);
    }
    this.at.delete(id);
  }
}

/** One command of a stream: a limit (GTC or IOC) or a cancel. */
interface Op {
  cancel: boolean;
  id: number;
  side: Side;
  price: number;
  size: number;
  ioc: boolean;
}

/** A stream compiled for each book, so the timed loops only index arrays. */
interface Compiled {
  length: number;
  isCancel: Uint8Array;
  ids: Float64Array;
  owners: Float64Array;
  fastPlaces: PlaceOrder[];
  peerPlaces: LimitOrderOptions[];
  peerIds: string[];
}

/** `idBase` shifts every orderId (not owners) as a market index would: orderIdOf(1, n) = 2^40 + n. */
function compile(ops: Op[], idBase = 0): Compiled {
  return {
    length: ops.length,
    isCancel: Uint8Array.from(ops, (o) => (o.cancel ? 1 : 0)),
    ids: Float64Array.from(ops, (o) => idBase + o.id),
    owners: Float64Array.from(ops, (o) => o.id),
    fastPlaces: ops.map((o) => ({
      orderId: orderNo(idBase + o.id), owner: ownerNo(o.id), account: accountNo(o.id), side: o.side, price: o.price, quantity: o.size,
      flags: o.ioc ? OrderFlag.ImmediateOrCancel : 0, expiresAt: 0, clientId: null, position: 0, time: 0,
    })),
    peerPlaces: ops.map((o) => ({
      id: String(idBase + o.id), side: o.side === 1 ? PeerSide.BUY : PeerSide.SELL, size: o.size, price: o.price,
      ...(o.ioc ? { timeInForce: 'IOC' as never } : {}),
    })),
    peerIds: ops.map((o) => String(idBase + o.id)),
  };
}

interface Workload {
  name: string;
  initial: Compiled;
  stream: Compiled;
  ops: { initial: Op[]; stream: Op[] };
}

/** The same workload with orderIds of market 1 (above 2^40: heap numbers, not small integers). */
function market1(w: Workload, name: string): Workload {
  const base = orderIdOf(marketNo(1), 0);
  return { name, initial: compile(w.ops.initial, base), stream: compile(w.ops.stream, base), ops: w.ops };
}

/** The two books behind one interface: rebuild from the initial orders, run commands [from, to). */
interface Engine {
  name: string;
  reset(initial: Compiled): void;
  run(stream: Compiled, from: number, to: number): void;
  depth(): string;
}

function fastEngine(): Engine & { listener: CountingListener } {
  const listener = new CountingListener();
  let book = new FastOrderBook(marketNo(0), listener);
  return {
    name: 'FastOrderBook',
    listener,
    reset(initial) {
      book = new FastOrderBook(marketNo(0), listener);
      this.run(initial, 0, initial.length);
    },
    run(s, from, to) {
      const b = book;
      for (let i = from; i < to; i++) {
        if (s.isCancel[i] === 1) b.cancel(orderNo(s.ids[i]), ownerNo(s.owners[i]), 0);
        else b.place(s.fastPlaces[i]);
      }
    },
    depth() {
      return JSON.stringify([book.depth(-1, 1_000, 1).map((l) => [l.price, l.quantity]), book.depth(1, 1_000, 1).map((l) => [l.price, l.quantity])]);
    },
  };
}

function peerEngine(): Engine {
  let book = new PeerBook();
  let sink = 0;
  return {
    name: 'nodejs-order-book',
    reset(initial) {
      book = new PeerBook();
      this.run(initial, 0, initial.length);
    },
    run(s, from, to) {
      const b = book;
      for (let i = from; i < to; i++) {
        if (s.isCancel[i] === 1) sink += b.cancel(s.peerIds[i]) === undefined ? 0 : 1;
        else sink += b.limit(s.peerPlaces[i]).done.length;
      }
    },
    depth() {
      void sink;
      const [asks, bids] = book.depth();
      return JSON.stringify([asks, bids]);
    },
  };
}

/** Builds a workload: the initial book, then `count` commands chosen by `next` against a simulated book. */
function generate(
  name: string,
  initial: Op[],
  count: number,
  next: (sim: FastOrderBook, live: LiveOrders, newId: () => number) => Op,
): Workload {
  const live = new LiveOrders();
  const sim = new FastOrderBook(marketNo(0), live);
  let id = 0;
  for (const op of initial) id = Math.max(id, op.id);
  const newId = (): number => ++id;
  const initialCompiled = compile(initial);
  for (let i = 0; i < initialCompiled.length; i++) sim.place(initialCompiled.fastPlaces[i]);
  const ops: Op[] = [];
  for (let i = 0; i < count; i++) {
    const op = next(sim, live, newId);
    const one = compile([op]);
    if (op.cancel) sim.cancel(orderNo(op.id), ownerNo(op.id), 0);
    else sim.place(one.fastPlaces[0]);
    ops.push(op);
  }
  return { name, initial: initialCompiled, stream: compile(ops), ops: { initial, stream: ops } };
}

/** 100 levels × `perLevel` orders per side near MID; `sizes` picks each order's lots. */
function standingBook(perLevel: number, levels: number, sizes: () => number, askLevels = levels): Op[] {
  const ops: Op[] = [];
  let id = 0;
  for (let l = 0; l < Math.max(levels, askLevels); l++) {
    for (let k = 0; k < perLevel; k++) {
      if (l < levels) ops.push({ cancel: false, id: ++id, side: 1, price: MID - l, size: sizes(), ioc: false });
      if (l < askLevels) ops.push({ cancel: false, id: ++id, side: -1, price: MID + 1 + l, size: sizes(), ioc: false });
    }
  }
  return ops;
}

function taker(id: number, side: Side, price: number, size: number): Op {
  return { cancel: false, id, side, price, size, ioc: true };
}

/** Total lots of the best `n` levels of the side a taker of `side` meets, and the n-th price. */
function sweep(sim: FastOrderBook, side: Side, n: number): { price: number; size: number } {
  const levels = sim.depth(-side as Side, n, 1);
  return { price: levels[levels.length - 1].price, size: levels.reduce((s, l) => s + l.quantity, 0) };
}

function workloads(): Workload[] {
  const random = seeded(42);
  const lots = (): number => 1 + Math.floor(random() * 10);
  const book = standingBook(ORDERS_PER_LEVEL, LEVELS, lots);
  const nearTop = (sim: FastOrderBook, side: Side): number =>
    side === 1 ? (sim.bestBid() || MID) - Math.floor(random() * 50) : (sim.bestAsk() || MID + 1) + Math.floor(random() * 50);

  let alternate = 0;
  return [
    generate('place resting order', book, 1_000, (sim, _live, newId) => {
      const side: Side = random() < 0.5 ? 1 : -1;
      return { cancel: false, id: newId(), side, price: nearTop(sim, side), size: lots(), ioc: false };
    }),
    generate('cancel resting order', book, 1_000, (_sim, live) => ({ cancel: true, id: live.pick(random), side: 1, price: 0, size: 0, ioc: false })),
    generate('take 1 level (~10 fills)', book, 100, (sim, _live, newId) => {
      const side: Side = alternate++ % 2 === 0 ? 1 : -1;
      const { price, size } = sweep(sim, side, 1);
      return taker(newId(), side, price, size);
    }),
    generate('take 10 levels (~100 fills)', book, 10, (sim, _live, newId) => {
      const side: Side = alternate++ % 2 === 0 ? 1 : -1;
      const { price, size } = sweep(sim, side, 10);
      return taker(newId(), side, price, size);
    }),
    generate('fill first of 10 at one price', standingBook(ORDERS_PER_LEVEL, LEVELS, () => 1), 500, (sim, _live, newId) =>
      taker(newId(), 1, sim.bestAsk(), 1)),
    generate('fill first of 1,000 at one price', standingBook(1_000, 1, () => 1), 500, (sim, _live, newId) =>
      taker(newId(), 1, sim.bestAsk(), 1)),
    generate('mixed 50% place / 30% cancel / 20% take', book, 20_000, (sim, live, newId) => {
      const r = random();
      if (r < 0.3 && live.ids.length > 0) return { cancel: true, id: live.pick(random), side: 1, price: 0, size: 0, ioc: false };
      const side: Side = random() < 0.5 ? 1 : -1;
      if (r < 0.8) return { cancel: false, id: newId(), side, price: nearTop(sim, side), size: lots(), ioc: false };
      const best = side === 1 ? sim.bestAsk() : sim.bestBid();
      return taker(newId(), side, best === 0 ? MID : best + side * Math.floor(random() * 3), lots());
    }),
  ];
}

async function throughput(engine: Engine, w: Workload): Promise<number> {
  const bench = new Bench({ time: 400, warmupTime: 100 });
  bench.add(w.name, () => engine.run(w.stream, 0, w.stream.length), { beforeEach: () => engine.reset(w.initial) });
  await bench.run();
  const result = bench.tasks[0].result;
  if (result.state !== 'completed') throw new Error(`${engine.name} ${w.name}: ${result.state}`);
  return w.stream.length / (result.period / 1_000);
}

function latencies(engine: Engine, w: Workload): { p50: number; p99: number } {
  const samples = new Float64Array(Math.max(LATENCY_SAMPLES, w.stream.length));
  let n = 0;
  while (n < samples.length) {
    engine.reset(w.initial);
    for (let i = 0; i < w.stream.length && n < samples.length; i++) {
      const t0 = process.hrtime.bigint();
      engine.run(w.stream, i, i + 1);
      samples[n++] = Number(process.hrtime.bigint() - t0);
    }
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

const fast = fastEngine();
const peer = peerEngine();
const all = workloads();
const mixed = all[all.length - 1];
all.push(market1(mixed, 'mixed, orderIds of market 1 (≥ 2^40)'));

for (const engine of [fast, peer]) {
  engine.reset(mixed.initial);
  engine.run(mixed.stream, 0, mixed.stream.length);
}
const equivalent = fast.depth() === peer.depth();
console.log(`equivalence check (depth after the mixed stream): ${equivalent ? 'same' : 'DIFFERENT'}`);

const figures: Figure[] = [];
const rate: Record<string, { fast: number; peer: number }> = {};
for (const w of all) {
  const fastRate = await throughput(fast, w);
  const peerRate = await throughput(peer, w);
  const fastLatency = latencies(fast, w);
  const peerLatency = latencies(peer, w);
  rate[w.name] = { fast: fastRate, peer: peerRate };
  figures.push(
    { name: `${w.name}: throughput`, value: fastRate, unit: 'ops/s', baseline: { name: peer.name, value: peerRate } },
    { name: `${w.name}: p50`, value: fastLatency.p50, unit: 'ns/op', baseline: { name: peer.name, value: peerLatency.p50 } },
    { name: `${w.name}: p99`, value: fastLatency.p99, unit: 'ns/op', baseline: { name: peer.name, value: peerLatency.p99 } },
  );
}
const deep = rate['fill first of 1,000 at one price'];
const shallow = rate['fill first of 10 at one price'];
figures.push({
  name: 'fill throughput, 1,000 vs 10 orders at one price',
  value: deep.fast / shallow.fast,
  unit: 'ratio',
  baseline: { name: peer.name, value: deep.peer / shallow.peer },
});
report('engine', figures);

const m = rate[mixed.name];
console.log(`mixed workload: ${Math.round(m.fast).toLocaleString('en')} ops/s (target ≥ 1,000,000), ${(m.fast / m.peer).toFixed(1)}× the peer (target ≥ 5×)`);
console.log(`events counted: ${fast.listener.events}`);
if (!equivalent) process.exitCode = 1;
