/**
 * What replication costs (issue 20): signed orders end to end (POST /account/order, each reply
 * sent once the order is matched and durable) against a primary shipping its journal to
 * JetStream, with `--durability local` (the baseline: acknowledged on the local flush, shipped
 * behind) and `--durability replicated` (acknowledged once JetStream has stored it too), side by
 * side in the same run; and, under that load, the lag of a read replica following the stream
 * (its `X-Replica-Lag`, sampled every 20 ms: p50 and p99 in ms and in journal records).
 * Each durability gets a fresh one-node NATS server (JetStream, temporary store), a primary and
 * a replica as their own processes (src/main.ts), 40 funded accounts, `REPLICATION_BENCH_ORDERS`
 * (default 5,000) pre-signed crossing orders at -c 50 from a child process (bench/load/autocannon.ts).
 * Every process and directory is removed at the end. Requires `nats-server` (README).
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { eip712Domain } from '../src/auth/typed-data.ts';
import { PROFILES } from '../src/config/profile.ts';
import { percentile, report, type Figure } from './report.ts';
import { forkAutocannon, type LoadJob, type LoadResult } from './load/autocannon.ts';
import { openAccounts, signOrder, type SignedOrder } from './http/traders.ts';
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
  const dir = mkdtempSync(join(tmpdir(), 'perp-bench-replication-'));
  const primary = await startNode({ nats: nats.urls, durability });
  const replica = await startNode({ nats: nats.urls, role: 'replica' });
  const loader = forkAutocannon();
  try {
    const accounts = await openAccounts(primary.client, ACCOUNTS, '1000000');
    const sellers = accounts.slice(0, ACCOUNTS / 2);
    const buyers = accounts.slice(ACCOUNTS / 2);
    const domain = eip712Domain(PROFILES.testnet);
    // Order i: pair i >> 1, a seller's ask then a buyer's bid at 95,000 (half rest, half fill).
    const orders: SignedOrder[] = Array.from({ length: ORDERS + 2 * CONNECTIONS }, (_, i) => {
      const pair = i >> 1;
      const trader = (i & 1) === 0 ? sellers[pair % sellers.length] : buyers[pair % buyers.length];
      return signOrder(domain, trader, { price: '95000', quantity: (i & 1) === 0 ? '-0.001' : '0.001' });
    });
    const bodiesFile = join(dir, 'orders.json');
    writeFileSync(bodiesFile, JSON.stringify(orders.map((o) => [o.token, o.body])));

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
    const job: LoadJob = { kind: 'post', url: primary.client.url, path: '/account/order', connections: CONNECTIONS, bodiesFile };
    const load = await loader.run(job);
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
    rmSync(dir, { recursive: true, force: true });
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
