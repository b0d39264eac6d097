/**
 * `npm run load -- --orders N --accounts K --concurrency C --url URL [--symbol S] [--funding faucet|operator]
 * [--signer viem|native] [--sender fetch|autocannon] [--json]`: signed orders against a running
 * exchange (./generator), then the rate, the latency percentiles and whether the exchange
 * acknowledged, and shows, every order.
 * Defaults: 1000 orders, 10 accounts, concurrency 20, $PERP_URL or http://localhost:8080,
 * BTC-USD-PERP, faucet funding (operator: deposits with --operator-key / $OPERATOR_KEY), viem
 * signing and `fetch` sending, as a client would; `--signer native --sender autocannon` is
 * bench:http's fast path (libsecp256k1 checked against viem; autocannon in a child process).
 * Exit status: 0 every order acknowledged and read back; 1 otherwise; 2 bad input.
 */
import { parseArgs } from 'node:util';
import { runLoad, type LoadReport } from './generator.ts';

const USAGE = 'usage: npm run load -- --orders N --accounts K --concurrency C --url URL [--symbol BTC-USD-PERP] [--funding faucet|operator] [--operator-key KEY] [--signer viem|native] [--sender fetch|autocannon] [--json]';

function options() {
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '1000' },
      accounts: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '20' },
      url: { type: 'string', default: process.env.PERP_URL ?? 'http://localhost:8080' },
      symbol: { type: 'string', default: 'BTC-USD-PERP' },
      funding: { type: 'string', default: 'faucet' },
      signer: { type: 'string', default: 'viem' },
      sender: { type: 'string', default: 'fetch' },
      'operator-key': { type: 'string', default: process.env.OPERATOR_KEY ?? 'testnet-operator-key' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const count = (name: 'orders' | 'accounts' | 'concurrency', min: number) => {
    const n = Number(values[name]);
    if (!/^\d+$/.test(values[name]) || n < min) throw new Error(`--${name} must be a whole number of at least ${min}, got ${values[name]}`);
    return n;
  };
  if (values.funding !== 'faucet' && values.funding !== 'operator') throw new Error(`--funding must be faucet or operator, got ${values.funding}`);
  if (values.signer !== 'viem' && values.signer !== 'native') throw new Error(`--signer must be viem or native, got ${values.signer}`);
  if (values.sender !== 'fetch' && values.sender !== 'autocannon') throw new Error(`--sender must be fetch or autocannon, got ${values.sender}`);
  return {
    help: values.help,
    json: values.json,
    url: values.url.replace(/\/+$/, ''),
    orders: count('orders', 1),
    accounts: count('accounts', 2),
    concurrency: count('concurrency', 1),
    symbol: values.symbol,
    funding: values.funding,
    operatorKey: values['operator-key'],
    signer: values.signer,
    sender: values.sender,
  } as const;
}

function print(r: LoadReport): void {
  const codes = Object.entries(r.statuses).map(([status, n]) => `${status}×${n}`).join(' ');
  console.log(`${r.orders} signed orders on ${r.symbol} @ ${r.price}, ${r.accounts} accounts, concurrency ${r.concurrency} (signed beforehand by ${r.signer} at ${Math.round(r.signing.rate)}/s, sent by ${r.sender})`);
  console.log(`  ${Math.round(r.rate)} orders/s acknowledged over ${r.seconds.toFixed(2)} s  [${codes}]`);
  console.log(`  latency ms: p50 ${r.latencyMs.p50.toFixed(2)}  p90 ${r.latencyMs.p90.toFixed(2)}  p99 ${r.latencyMs.p99.toFixed(2)}  max ${r.latencyMs.max.toFixed(2)}`);
  if (r.firstRefusal !== null) console.log(`  first refusal: ${r.firstRefusal}`);
  console.log(`  read back: ${r.readBack} of ${r.statuses['200'] ?? 0} acknowledged orders shown by the exchange as sent${r.mismatches.length ? `; ${r.mismatches.length} not: ${r.mismatches.slice(0, 3).join('; ')}` : ''}`);
}

let opts;
try {
  opts = options();
} catch (error) {
  console.error(`load: ${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}
const report = await runLoad({ ...opts, log: opts.json ? undefined : (line) => console.log(`  ${line}`) });
if (opts.json) console.log(JSON.stringify(report));
else print(report);
process.exit(report.statuses['200'] === report.orders && report.readBack === report.orders ? 0 : 1);
