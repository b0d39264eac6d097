/**
 * Where a signed order's CPU and allocation go, by stage (issue 19): `npm run bench:order-path`.
 *
 * The real exchange (every thread: gateway, sequencer, market threads, signature pool, journal,
 * projection and snapshot threads) started as bench:http starts it (bench/http/servers.ts), 100
 * accounts opened and funded through the API, and crossing signed orders sent by the load
 * generator's autocannon sender at -c 50 (bench/load: the orders pre-signed with libsecp256k1,
 * checked against viem), as bench:http's first step. Rounds, one after the other:
 *  1. plain: rate, latency, the server's CPU per order (`process.cpuUsage()` around `send()`,
 *     every thread: the figure the issue compares with the pool's) and each thread's CPU from
 *     /proc (bench/order-path/threads.ts);
 *  2. plain again, as 1 (its spread against round 1 is the noise of the figures);
 *  3. profiled: the main thread's CPU profile and every thread's sampling heap profile (last:
 *     starting and stopping the profiler deoptimizes code that V8 then compiles again, which
 *     a plain round after it paid for).
 * Printed by stage (bench/order-path/stages.ts: a table of src/ files → stages): µs CPU per
 * order from rounds 1 and 2 (a worker thread is one stage; the main thread's CPU split as its
 * profile says), its share, and bytes allocated per order from round 3.
 * Baseline, same run: the exchange's signature pool (its thread count) flooded with the same
 * orders — CPU per order verified (digest + recovery) and capacity; the issue asks the server's
 * CPU per order to be at most 1.5× the former.
 * `ORDER_PATH_ORDERS` orders per round (default 20,000), `ORDER_PATH_WARMUP` before them (default 10,000), `ORDER_PATH_CONNECTIONS` (default 50),
 * `ORDER_PATH_TOP=20` to list the main thread's costliest functions too, `ORDER_PATH_PERF=1` to add a round recorded with Linux's `perf` (every thread's CPU by kind of work: bench/order-path/perf) — with `ORDER_PATH_PERF_KEEP=1` its recording stays in the temporary directory for `perf report` — `ORDER_PATH_PROFILES=DIR` to
 * write round 3's profiles there (<thread>-<tid>.cpuprofile and .heapprofile, every thread: open them in Chrome's DevTools).
 * Writes bench/results/order-path.json. Runs in about two minutes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { eip712Domain } from '../src/auth/typed-data.ts';
import type { ExchangeClient } from '../src/client/index.ts';
import { report, type Figure } from './report.ts';
import { forkAutocannon, type Autocannon } from './load/autocannon.ts';
import { openAccounts, presignCrossing, readBack, sentOrders, stageOrders, type Presigned, type SentOrder } from './load/generator.ts';
import { describe, loadAverage, measure, type Measured } from './http/measure.ts';
import { startBenchExchange, type BenchExchange } from './http/servers.ts';
import { poolCapacity, verifications } from './http/pool.ts';
import { attachThreads, cpuBetween, threadCpu, type Inspector, type Profiles } from './order-path/threads.ts';
import { breakdown, STAGE_ORDER, Stage, topFunctions, workerStage } from './order-path/stages.ts';
import { perfAvailable, PERF_KINDS, recordPerf } from './order-path/perf.ts';

const ORDERS = Number(process.env.ORDER_PATH_ORDERS ?? 20_000);
if (!Number.isInteger(ORDERS) || ORDERS < 100) throw new Error(`ORDER_PATH_ORDERS must be a whole number of at least 100, got ${process.env.ORDER_PATH_ORDERS}`);
const CONNECTIONS = Number(process.env.ORDER_PATH_CONNECTIONS ?? 50);
/**
 * Orders sent before round 1, outside the figures. With 2,000, round 1 cost 35–80 µs an order more
 * than the plain round after the profiled one (260·225, 302·224, 276·228 µs): V8 was still
 * optimizing the order path (`perf` showed its platform threads compiling through round 1).
 * With 10,000 the two agree (227·220).
 */
const WARMUP_ORDERS = Number(process.env.ORDER_PATH_WARMUP ?? 10_000);
/** `ORDER_PATH_TOP=20`: also the main thread's costliest functions, by self time and by allocation. */
const TOP = Number(process.env.ORDER_PATH_TOP ?? 0);
const PROFILES_DIR = process.env.ORDER_PATH_PROFILES;
/** `ORDER_PATH_PERF=1`: a round of its own recorded with Linux's `perf`, every thread's CPU by kind of work (bench/order-path/perf). */
const PERF = process.env.ORDER_PATH_PERF === '1';
if (PERF && !perfAvailable()) throw new Error('ORDER_PATH_PERF=1 needs Linux perf (Debian: apt-get install linux-perf)');
const ACCOUNTS = 100;
/** The crossing pairs: 0.001 BTC at 95,000, the testnet index price (as bench:http). */
const CROSSING = { symbol: 'BTC-USD-PERP', price: '95000', quantity: '0.001' };
/** CPU profile sampling interval (µs) and mean heap sampling interval (bytes). */
const CPU_INTERVAL_MICROS = 200;
const HEAP_INTERVAL_BYTES = 16 * 1024;

interface Round {
  m: Measured;
  /** CPU by thread over the send (µs), unprofiled rounds only. */
  cpu: { byTid: Map<number, number>; native: number } | null;
  /** The main isolate's collections over the send, unprofiled rounds only. */
  gc: MainGc | null;
  profiles: Profiles | null;
  /** Samples by thread and kind of work, when perf recorded the round. */
  perf?: Map<number, Map<string, number>>;
}

/** The main isolate's garbage collections (`perf_hooks` 'gc' entries): scavenges and the rest, with their pauses. */
interface MainGc {
  scavenges: number;
  scavengeMs: number;
  others: number;
  othersMs: number;
}

/** Watches the main isolate's collections until the returned function is called, which gives them. */
function watchMainGc(): () => MainGc {
  const gc: MainGc = { scavenges: 0, scavengeMs: 0, others: 0, othersMs: 0 };
  const add = (entries: PerformanceEntry[]) => {
    for (const e of entries) {
      const minor = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR;
      if (minor) (gc.scavenges++, (gc.scavengeMs += e.duration));
      else (gc.others++, (gc.othersMs += e.duration));
    }
  };
  const observer = new PerformanceObserver((list) => add(list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    add(observer.takeRecords());
    observer.disconnect();
    return gc;
  };
}

/**
 * One round at -c CONNECTIONS: staged before the clock, then sent, measured, and profiled or
 * not; with `perfFile`, recorded by perf while it is sent (not while it is staged: the bodies
 * file is the bench's own JSON and writes).
 */
async function send(ex: BenchExchange, loader: Autocannon, orders: Presigned[], inspector: Inspector | null, profiled: boolean, perfFile?: string): Promise<Round> {
  const staged = await stageOrders(orders, { url: ex.url, sender: loader, concurrency: CONNECTIONS });
  try {
    if (profiled) {
      let profiles: Profiles | null = null;
      const m = await measure(async () => {
        const run = await inspector!.profile(() => staged.send(), { cpuIntervalMicros: CPU_INTERVAL_MICROS, heapIntervalBytes: HEAP_INTERVAL_BYTES });
        profiles = run.profiles;
        return run.result;
      });
      return { m, cpu: null, gc: null, profiles };
    }
    const before = threadCpu();
    const collections = watchMainGc();
    const recording = perfFile === undefined ? null : recordPerf(perfFile);
    const m = await measure(() => staged.send());
    const perf = await recording?.stop();
    const gc = collections();
    return { m, cpu: inspector === null ? null : cpuBetween(inspector.threads, before, threadCpu()), gc, profiles: null, perf };
  } finally {
    staged.dispose();
  }
}

const startLoad = loadAverage();
console.log(`order-path bench: ${availableParallelism()} cores, load average ${startLoad} (1, 5, 15 min)`);
const ex = await startBenchExchange();
const loader = forkAutocannon();
const figures: Figure[] = [];
try {
  const accounts: ExchangeClient[] = await openAccounts({ url: ex.url, count: ACCOUNTS, funding: 'operator', amount: '1000000', operatorKey: ex.settings.operatorKey, signer: 'native' });
  // Set to null once sent: nothing of a signed body outlives its round (see `round` below).
  let warmup: Presigned[] | null = await presignCrossing(accounts, CROSSING, WARMUP_ORDERS);
  let ready: Presigned[] | null = await presignCrossing(accounts, CROSSING, ORDERS);
  const domain = eip712Domain(ex.settings.profile);
  const threads = ex.settings.signatureThreads;
  console.log(`  ${ACCOUNTS} accounts, ${WARMUP_ORDERS} warm-up + 3 × ${ORDERS} signed orders at -c ${CONNECTIONS}; the exchange verifies on ${threads} signature thread${threads === 1 ? '' : 's'}; load average ${loadAverage()}`);
  const pool = await poolCapacity(threads, domain, verifications(domain, warmup), verifications(domain, ready));

  describe('warm-up orders', (await send(ex, loader, warmup, null, false)).m);
  warmup = null;
  // Every thread is running by now; attaching enables nothing that runs until a profile starts.
  const inspector = await attachThreads();
  // Each round's orders are signed just before it and kept after it only as `readBack` compares
  // them (bench/load/generator `sentOrders`): the exchange shares this process's heap.
  const sent: SentOrder[] = [];
  const sentIds: (string | null)[] = [];
  const round = async (label: string, profiled: boolean, perfFile?: string): Promise<Round> => {
    const orders = ready ?? (await presignCrossing(accounts, CROSSING, ORDERS));
    ready = null;
    const r = await send(ex, loader, orders, inspector, profiled, perfFile);
    describe(label, r.m);
    sent.push(...sentOrders(orders));
    sentIds.push(...orders.map((_, i) => r.m.orderIds[i] ?? null));
    return r;
  };
  const round1 = await round('round 1, plain', false);
  const round2 = await round('round 2, plain', false);
  // perf's own sampling costs the process CPU: its round is one of its own, outside the figures,
  // after the plain rounds (V8 is done optimizing) and before the profiled one (whose start and
  // stop deoptimize code that V8 then compiles again).
  let perfSamples: Map<number, Map<string, number>> | undefined;
  let perfRound: Measured | undefined;
  if (PERF) {
    const recorded = await round('perf round, plain', false, join(tmpdir(), `order-path-${process.pid}.perf.data`));
    perfRound = recorded.m;
    perfSamples = recorded.perf;
  }
  const profiled = await round('round 3, profiled', true);
  if (PROFILES_DIR !== undefined) {
    mkdirSync(PROFILES_DIR, { recursive: true });
    const named = (tid: number) => {
      const thread = inspector.threads.find((t) => t.tid === tid)!;
      return (thread.title === 'main' ? 'main' : workerStage(thread).split(' ')[0]) + `-${tid}`;
    };
    for (const [tid, cpu] of profiled.profiles!.cpu) writeFileSync(join(PROFILES_DIR, `${named(tid)}.cpuprofile`), JSON.stringify(cpu));
    for (const [tid, heap] of profiled.profiles!.heaps) writeFileSync(join(PROFILES_DIR, `${named(tid)}.heapprofile`), JSON.stringify({ head: heap }));
  }
  inspector.close();
  const plain1 = round1.m;
  const plain2 = round2.m;

  // Every acknowledged order shown by the exchange, and its state valid, once the clock stopped.
  const acknowledged = [plain1, plain2, ...(perfRound === undefined ? [] : [perfRound]), profiled.m];
  const back = await readBack(sent, sentIds, CONNECTIONS);
  const ok = acknowledged.reduce((n, m) => n + m.ok, 0);
  if (back.readBack !== ok) throw new Error(`acknowledged orders the exchange does not show as sent: ${back.mismatches.slice(0, 3).join('; ')}`);
  const state = await accounts[0].stateHash();
  if (state.problem !== null) throw new Error(`exchange invariant broken after the bench: ${state.problem}`);
  console.log(`  read back: ${back.readBack} of ${ok} acknowledged orders (every round) shown as sent; exchange state valid`);

  // CPU: the two plain rounds' per-thread counts, per order; allocation: the profiled round's.
  const plainOrders = plain1.ok + plain2.ok;
  const cpu = { byTid: new Map<number, number>(), native: round1.cpu!.native + round2.cpu!.native };
  for (const t of inspector.threads) cpu.byTid.set(t.tid, (round1.cpu!.byTid.get(t.tid) ?? 0) + (round2.cpu!.byTid.get(t.tid) ?? 0));
  const stages = breakdown(inspector.threads, cpu, profiled.profiles!);
  const totalMicros = [...stages.values()].reduce((s, r) => s + r.micros, 0);
  const totalBytes = [...stages.values()].reduce((s, r) => s + r.bytes, 0);
  const row = (stage: string, micros: number, bytes: number) => ({
    stage,
    'µs CPU/order': Number((micros / plainOrders).toFixed(1)),
    '% CPU': Number(((micros / totalMicros) * 100).toFixed(1)),
    'bytes/order': Math.round(bytes / profiled.m.ok),
  });
  const rows = STAGE_ORDER.filter((s) => stages.has(s)).map((stage) => row(stage, stages.get(stage)!.micros, stages.get(stage)!.bytes));
  rows.push(row('total', totalMicros, totalBytes));
  for (const t of inspector.threads) console.log(`  thread ${t.title.padEnd(11)} tid ${t.tid}: ${t.title === 'main' ? 'main' : workerStage(t)}, ${((cpu.byTid.get(t.tid) ?? 0) / plainOrders).toFixed(1)} µs CPU/order`);
  console.log(
    `\n  by stage: CPU per order from the plain rounds (${plainOrders} orders; each thread's CPU from /proc, the main thread's split by its CPU profile in round 3), ` +
      `allocation per order from round 3 (${profiled.m.ok} orders, every thread's sampling heap profile):`,
  );
  console.table(rows);
  const poolInExchange = stages.get(Stage.pool)?.micros ?? 0;
  const plainMicros = (plain1.serverMicros * plain1.ok + plain2.serverMicros * plain2.ok) / plainOrders;
  console.log(
    `  server CPU per order: ${plain1.serverMicros.toFixed(0)} / ${plain2.serverMicros.toFixed(0)} µs in the plain rounds (the stages account for ${(totalMicros / plainOrders).toFixed(0)}; profiled round ${profiled.m.serverMicros.toFixed(0)}); ` +
      `the pool's CPU per order verified: ${pool.typed.micros.toFixed(1)} µs flooded, ${(poolInExchange / plainOrders).toFixed(1)} µs inside the exchange → server / pool ${(plainMicros / pool.typed.micros).toFixed(2)}× (target ≤ 1.5×)`,
  );
  if (TOP > 0) {
    const top = topFunctions(profiled.profiles!, process.pid, TOP);
    console.log(`  main thread, round 3: the ${TOP} functions with the most self time (share of its busy samples), then the most allocation (bytes per order):`);
    for (const [name, share] of top.cpu) console.log(`    ${(share * 100).toFixed(1).padStart(5)} %  ${name}`);
    for (const [name, bytes] of top.bytes) console.log(`    ${Math.round(bytes / profiled.m.ok).toString().padStart(6)} B  ${name}`);
  }
  if (perfSamples !== undefined) {
    // One sample per thread every 1/999 s of its CPU: µs per order of the perf round.
    const micros = (samples: number) => (samples * 1e6) / 999 / perfRound!.ok;
    const groups = new Map<string, Map<string, number>>();
    for (const [tid, kinds] of perfSamples) {
      const thread = inspector.threads.find((t) => t.tid === tid);
      const group = thread === undefined ? 'threads with no JS' : thread.title === 'main' ? 'main thread' : workerStage(thread);
      const into = groups.get(group) ?? new Map<string, number>();
      for (const [kind, n] of kinds) into.set(kind, (into.get(kind) ?? 0) + n);
      groups.set(group, into);
    }
    console.log(`  the perf round by thread and kind of work (perf, CPU time; µs per order):`);
    const total = (kinds: Map<string, number>) => [...kinds.values()].reduce((a, b) => a + b, 0);
    for (const [group, kinds] of [...groups].sort((a, b) => total(b[1]) - total(a[1]))) {
      if (micros(total(kinds)) < 0.5) continue;
      const parts = PERF_KINDS.filter((k) => micros(kinds.get(k) ?? 0) >= 0.5).sort((a, b) => kinds.get(b)! - kinds.get(a)!);
      console.log(`    ${group}: ${micros(total(kinds)).toFixed(1)} — ${parts.map((k) => `${k} ${micros(kinds.get(k)!).toFixed(1)}`).join(', ')}`);
    }
  }
  console.log(`  rate: ${Math.round(plain1.rate)} / ${Math.round(plain2.rate)} orders/s plain, ${Math.round(profiled.m.rate)} profiled; pool capacity ${Math.round(pool.typed.rate)}/s; load average ${loadAverage()}`);
  // The main thread's garbage, counted where it costs: each scavenge pauses it and sets V8's helper threads copying.
  const gc = [round1.gc!, round2.gc!].reduce((a, b) => ({ scavenges: a.scavenges + b.scavenges, scavengeMs: a.scavengeMs + b.scavengeMs, others: a.others + b.others, othersMs: a.othersMs + b.othersMs }));
  const perThousand = (x: number) => (x * 1000) / plainOrders;
  console.log(
    `  main isolate's collections in the plain rounds, per 1,000 orders: ${perThousand(gc.scavenges).toFixed(2)} scavenges (${perThousand(gc.scavengeMs).toFixed(1)} ms paused), ` +
      `${perThousand(gc.others).toFixed(2)} others, mark-compacts and their steps (${perThousand(gc.othersMs).toFixed(1)} ms)`,
  );

  figures.push(
    { name: 'load average (1 min) at the start', value: Number(startLoad.split(',')[0]), unit: '' },
    { name: `server CPU per signed order, plain rounds (-c ${CONNECTIONS})`, value: plainMicros, unit: 'µs', baseline: { name: `pool CPU per order verified (${pool.threads}-thread pool, digest + recovery)`, value: pool.typed.micros } },
    { name: 'server CPU per signed order, profiled round', value: profiled.m.serverMicros, unit: 'µs', baseline: { name: 'plain rounds', value: plainMicros } },
    { name: 'pool CPU per order inside the exchange (its threads, plain rounds)', value: poolInExchange / plainOrders, unit: 'µs', baseline: { name: 'pool flooded', value: pool.typed.micros } },
    { name: `signed orders/s, plain rounds (-c ${CONNECTIONS})`, value: (plain1.rate + plain2.rate) / 2, unit: 'orders/s', baseline: { name: 'pool capacity (digest + recovery)', value: pool.typed.rate } },
    { name: 'signed order p99, plain rounds', value: (plain1.p99 + plain2.p99) / 2, unit: 'ms' },
    { name: "main isolate's scavenges per 1,000 orders, plain rounds", value: perThousand(gc.scavenges), unit: '' },
    { name: "main isolate's GC pause per 1,000 orders, plain rounds", value: perThousand(gc.scavengeMs + gc.othersMs), unit: 'ms' },
    ...rows.map((r) => ({ name: `CPU: ${r.stage}`, value: r['µs CPU/order'], unit: 'µs/order', baseline: { name: 'pool CPU per order verified', value: pool.typed.micros } })),
    ...rows.filter((r) => r['bytes/order'] > 0).map((r) => ({ name: `allocated: ${r.stage}`, value: r['bytes/order'], unit: 'B/order' })),
  );
} finally {
  loader.close();
  await ex.stop();
}
report('order-path', figures);
console.log(`load average at the end: ${loadAverage()}`);
process.exit(0);
