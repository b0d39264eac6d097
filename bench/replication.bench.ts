/**
 * What replication costs (issue 20): signed orders end to end (POST /account/order, each reply
 * sent once the order is matched and durable) against a primary shipping its journal to
 * JetStream, with `--durability local` (the baseline: acknowledged on the local flush, shipped
 * behind) and `--durability replicated` (acknowledged once JetStream has stored it too), side by
 * side in the same run; and, under that load, the lag of a read replica following the stream
 * (its `X-Replica-Lag`, sampled every 20 ms: p50 and p99 in ms and in journal records).
 * Each durability gets a fresh one-node NATS server (JetStream, temporary store), a primary and
 * a replica as their own processes (src/main.ts), 40 funded accounts, `REPLICATION_BENCH_ORDERS`
 * (default 5,000) crossing orders pre-signed and sent at -c 50 by the load generator as in
 * bench:http (bench/load/generator.ts: libsecp256k1 checked against viem, autocannon).
 * Every process and directory is removed at the end. Requires `nats-server` (README).
 */
import { loadavg } from 'node:os';
import { TESTNET_OPERATOR_KEY } from '../src/config/process.ts';
import { percentile, report, type Figure } from './report.ts';
import { forkAutocannon, type LoadResult } from './load/autocannon.ts';
import { openAccounts, presignCrossing, stageOrders } from './load/generator.ts';
import { launchNats } from '../test/replication/nats-servers.ts';
import { startNode } from '../test/replication/nodes.ts';

const ORDERS = Number(process.env.REPLICATION_BENCH_ORDERS ?? 5_000);
const CONNECTIONS = 50;
const ACCOUNTS = 40;

interface Run {
  load: LoadResult;
  lagMs: number[];
  lagRecords: number[];
}

async function run(durability: 'local' | 'replicated'): Promise<Run> {
  const nats = await launchNats(1);
  const primary = await startNode({ nats, durability });
  const replica = await startNode({ nats, role: 'replica' });
  const loader = forkAutocannon();
  try {
    const url = primary.client.url;
    const accounts = await openAccounts({ url, count: ACCOUNTS, funding: 'operator', amount: '1000000', operatorKey: TESTNET_OPERATOR_KEY, signer: 'native' });
    // Order i: pair i >> 1, a seller's ask then a buyer's bid at 95,000 (half rest, half fill).
    const orders = await presignCrossing(accounts, { symbol: 'BTC-USD-PERP', price: '95000', quantity: '0.001' }, ORDERS);
    const staged = await stageOrders(orders, { url, sender: loader, concurrency: CONNECTIONS });

    const lagMs: number[] = [];
    const lagRecords: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const reply = await fetch(`${replica.client.url}/time`).catch(() => null);
        const header = reply?.headers.get('x-replica-lag')?.match(/^seq=(\d+), ms=(\d+)$/);
        await reply?.text();
        if (header) {
          lagRecords.push(Number(header[1]));
          lagMs.push(Number(header[2]));
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const load = await staged.send().finally(() => staged.dispose());
    sampling = false;
    await sampler;
    console.log(
      `  ${durability.padEnd(10)} ${Math.round(load.rate)} orders/s  p50 ${load.p50.toFixed(2)} ms  p99 ${load.p99.toFixed(2)} ms  ` +
        `[${Object.entries(load.statusCodes).map(([c, n]) => `${c}×${n}`).join(' ')}]  replica lag p50 ${percentile(lagMs, 50)} ms / ${percentile(lagRecords, 50)} records, p99 ${percentile(lagMs, 99)} ms / ${percentile(lagRecords, 99)} records (${lagMs.length} samples)`,
    );
    if (load.firstRefusal !== null) console.log(`    first refusal: ${load.firstRefusal}`);
    return { load, lagMs, lagRecords };
  } finally {
    loader.close();
    await replica.stop();
    await primary.stop();
    await nats.stop();
  }
}

console.log(`replication: ${ORDERS} signed orders at -c ${CONNECTIONS} from ${ACCOUNTS} accounts, per durability; load average ${loadavg().map((x) => x.toFixed(2)).join(', ')}`);
const local = await run('local');
const replicated = await run('replicated');
const figures: Figure[] = [
  { name: 'signed orders/s, replicated durability', value: replicated.load.rate, unit: 'orders/s', baseline: { name: 'local durability', value: local.load.rate } },
  { name: 'order p99, replicated durability', value: replicated.load.p99, unit: 'ms', baseline: { name: 'local durability', value: local.load.p99 } },
  { name: 'order p50, replicated durability', value: replicated.load.p50, unit: 'ms', baseline: { name: 'local durability', value: local.load.p50 } },
  { name: 'replica lag p50 (replicated)', value: percentile(replicated.lagMs, 50), unit: 'ms', baseline: { name: 'local', value: percentile(local.lagMs, 50) } },
  { name: 'replica lag p99 (replicated)', value: percentile(replicated.lagMs, 99), unit: 'ms', baseline: { name: 'local', value: percentile(local.lagMs, 99) } },
  { name: 'replica lag p99 in records (replicated)', value: percentile(replicated.lagRecords, 99), unit: 'records', baseline: { name: 'local', value: percentile(local.lagRecords, 99) } },
];
report('replication', figures);
process.exit(0);
