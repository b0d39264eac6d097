/**
 * Snapshots under load: how long writes stop while a snapshot of a big exchange is taken.
 *
 * Workload: the whole pipeline (journal, market threads, history thread; no HTTP for orders)
 * on a temporary data directory with `SNAPSHOT_BENCH_ACCOUNTS` (default 100,000) accounts,
 * each funded, holding a position in BTC and one resting order (bench/snapshot-population.ts).
 * Then a steady load: 200 accounts cross one another with small orders, 64 in flight, and a
 * probe submits one faucet credit per millisecond (no book work: it runs the moment the
 * sequencer takes it) — the longest gap between two probes the sequencer executed is the
 * longest time writes were stopped.
 *
 * Two phases of the same length in the same run: the baseline with no snapshot, then one with
 * a snapshot taken through the operator's POST /operator/snapshot (the path the timer takes).
 * Figures: the longest write gap, order latency p50/p99/max (submit → durable reply), the
 * snapshot's duration (request → saved and flushed) and its size per account.
 *
 * `SNAPSHOT_BENCH_ACCOUNTS=20000 npm run bench:snapshot` for a quicker run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadSettings, TESTNET_OPERATOR_KEY } from '../src/config/process.ts';
import { startExchange, type RunningExchange } from '../src/pipeline.ts';
import { CommandKind } from '../src/app/commands.ts';
import { accountAddress, order, populate } from './snapshot-population.ts';
import { percentile, report, type Figure } from './report.ts';

const ACCOUNTS = Number(process.env.SNAPSHOT_BENCH_ACCOUNTS ?? 100_000);
const TRADERS = 200;
const IN_FLIGHT = 64;
const PHASE_MS = Number(process.env.SNAPSHOT_BENCH_PHASE_MS ?? 6_000);

interface Phase {
  latencies: number[];
  maxGap: number;
  maxHeld: number;
  orders: number;
}

/** Orders and probes for `ms` milliseconds; `during` runs once the load is steady. */
async function load(exchange: RunningExchange, ms: number, firstNonce: number, during?: () => Promise<unknown>): Promise<Phase & { duringMs: number }> {
  const sequencer = exchange.sequencer;
  const latencies: number[] = [];
  let running = true;
  let nonce = firstNonce;
  let maxGap = 0;
  let maxHeld = 0;
  let lastProbe = performance.now();
  const probe = setInterval(() => {
    const submitted = performance.now();
    let returned = false;
    void sequencer.submit({ kind: CommandKind.Faucet, time: Date.now(), account: accountAddress(ACCOUNTS + TRADERS + 1), subaccountIndex: 0, amount: 1n }, () => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - lastProbe);
      if (now - lastProbe > 100 && process.env.SNAPSHOT_BENCH_DEBUG) console.log(`gap ${(now - lastProbe).toFixed(0)} ms ending at ${(now - T0).toFixed(0)}`);
      // Executed inside the call: not held back by the sequencer.
      if (returned) maxHeld = Math.max(maxHeld, now - submitted);
      lastProbe = now;
    });
    returned = true;
  }, 1);
  const trader = async (lane: number) => {
    for (let k = 0; running; k++) {
      const maker = accountAddress(ACCOUNTS + 1 + ((lane * 2 + k) % TRADERS));
      const side = k % 2 === 0 ? 1 : -1;
      const command = order(maker, nonce++, side, 950_000 + side * -(k % 50), 1, Date.now(), k % 4 === 3);
      const t0 = performance.now();
      await sequencer.submit(command);
      latencies.push(performance.now() - t0);
    }
  };
  const lanes = Array.from({ length: IN_FLIGHT }, (_, i) => trader(i));
  await new Promise((r) => setTimeout(r, 500));
  maxGap = 0;
  maxHeld = 0;
  latencies.length = 0;
  lastProbe = performance.now();
  const t0 = performance.now();
  let duringMs = 0;
  if (during) {
    await during();
    duringMs = performance.now() - t0;
  }
  await new Promise((r) => setTimeout(r, Math.max(0, ms - (performance.now() - t0))));
  running = false;
  await Promise.all(lanes);
  clearInterval(probe);
  return { latencies, maxGap, maxHeld, orders: latencies.length, duringMs };
}

const T0 = performance.now();
const root = mkdtempSync(join(tmpdir(), 'bench-snapshot-'));
try {
  const settings = loadSettings(['--port', '0', '--host', '127.0.0.1', '--data-dir', root, '--snapshot-interval-ms', '0'], {});
  // The snapshot's own log line says where its time went.
  const logger = pino({ level: 'info' }, { write: (line: string) => void (line.includes('"msg":"snapshot') && process.stdout.write(`${(performance.now() - T0).toFixed(0)} ${line}`)) });
  const exchange = await startExchange(settings, logger, { tickMs: 3_600_000 });
  const t0 = performance.now();
  await populate(exchange.sequencer, ACCOUNTS + TRADERS + 1, Date.now());
  console.log(`${ACCOUNTS + TRADERS + 1} accounts with a position and a resting order in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const baseline = await load(exchange, PHASE_MS, 10);
  let snapshotBytes = 0;
  const withSnapshot = await load(exchange, PHASE_MS, 10_000_000, async () => {
    if (process.env.SNAPSHOT_BENCH_DEBUG) console.log(`snapshot requested at ${(performance.now() - T0).toFixed(0)}`);
    const reply = await fetch(`http://127.0.0.1:${exchange.port}/operator/snapshot`, { method: 'POST', headers: { 'x-operator-key': TESTNET_OPERATOR_KEY } });
    if (reply.status !== 200) throw new Error(`snapshot: ${reply.status} ${await reply.text()}`);
  });
  await exchange.stop({ snapshot: false });
  // The snapshot's size: the newest snapshot file.
  const { Snapshots } = await import('../src/journal/snapshots.ts');
  snapshotBytes = new Snapshots(join(root, 'snapshots')).list().at(-1)?.sizeBytes ?? 0;

  const figures: Figure[] = [
    { name: `longest a write was held back by a snapshot (${ACCOUNTS} accounts)`, value: withSnapshot.maxHeld, unit: 'ms', baseline: { name: 'no snapshot', value: baseline.maxHeld } },
    { name: `longest write gap during a snapshot (${ACCOUNTS} accounts)`, value: withSnapshot.maxGap, unit: 'ms', baseline: { name: 'no snapshot', value: baseline.maxGap } },
    { name: 'order latency p50 during a snapshot', value: percentile(withSnapshot.latencies, 50), unit: 'ms', baseline: { name: 'no snapshot', value: percentile(baseline.latencies, 50) } },
    { name: 'order latency p99 during a snapshot', value: percentile(withSnapshot.latencies, 99), unit: 'ms', baseline: { name: 'no snapshot', value: percentile(baseline.latencies, 99) } },
    { name: 'order latency max during a snapshot', value: percentile(withSnapshot.latencies, 100), unit: 'ms', baseline: { name: 'no snapshot', value: percentile(baseline.latencies, 100) } },
    { name: 'orders/s during a snapshot', value: (withSnapshot.orders / PHASE_MS) * 1000, unit: 'orders/s', baseline: { name: 'no snapshot', value: (baseline.orders / PHASE_MS) * 1000 } },
    { name: 'snapshot duration (request → saved)', value: withSnapshot.duringMs, unit: 'ms' },
    { name: 'snapshot size per account', value: snapshotBytes / ACCOUNTS, unit: 'bytes' },
  ];
  report('snapshot', figures);
} finally {
  rmSync(root, { recursive: true, force: true });
}
