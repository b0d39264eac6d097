/**
 * @module demo/main
 *
 * `npm run demo`: the exchange as `npm start` runs it (testnet profile, the markets of
 * config/markets.json, the same flags and environment) plus, in the same process, a market
 * maker quoting every market around the index price and three takers trading at random — all
 * of them clients of the exchange over HTTP with signed orders, exactly as users are
 * (./market-maker, ./takers, src/client). A newcomer sees the book, trades, candles and funding
 * move within seconds.
 *
 * Differences from `npm start`, so the demo never mixes with a real data directory: the data
 * lives in ./data-demo (unless --data-dir or DATA_DIR says otherwise), funding settles every
 * 10 s instead of hourly (so it moves while you watch), and the log shows warnings only
 * (LOG_LEVEL to change it). The bots' keys are kept in <data dir>/demo-keys.json: a restarted
 * demo is the same maker, which first cancels what it left on the book.
 *
 * Prints `demo ready: <url>` once the bots are trading; SIGTERM or SIGINT stops the bots, then
 * the exchange (cleanly, as npm start does), and exits 0.
 *
 * May import: config/ (market, process), pipeline, log, ../client, ./market-maker, ./takers, node:fs,
 * node:path, viem.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadSettings, type Settings } from '../config/process.ts';
import { ConfigError } from '../config/market.ts';
import { createLogger } from '../log.ts';
import { startExchange } from '../pipeline.ts';
import { ExchangeClient, ExchangeError } from '../client/index.ts';
import { MarketMaker } from './market-maker.ts';
import { Takers } from './takers.ts';

const DEMO_FUNDING_INTERVAL_MS = 10_000;
const TAKERS = 3;

const argv = process.argv.slice(2);
let settings: Settings;
try {
  const dataDir = argv.includes('--data-dir') || process.env.DATA_DIR !== undefined ? [] : ['--data-dir', './data-demo'];
  settings = loadSettings([...dataDir, ...argv], process.env);
} catch (error) {
  if (!(error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) throw error;
  console.error(`Cannot start: ${(error as Error).message}`);
  process.exit(2);
}
if (!settings.profile.faucet) {
  console.error('Cannot start: the demo runs on the testnet profile (its traders take faucet funds)');
  process.exit(2);
}
settings = { ...settings, markets: settings.markets.map((m) => ({ ...m, fundingIntervalMs: DEMO_FUNDING_INTERVAL_MS })) };

const exchange = await startExchange(settings, createLogger(process.env.LOG_LEVEL ?? 'warn'));
const url = `http://${settings.host === '0.0.0.0' ? 'localhost' : settings.host}:${exchange.port}`;
const report = (line: string) => console.error(`demo: ${line}`);

/** The bots' keys: made once per data directory. */
function demoKeys(): `0x${string}`[] {
  const file = join(settings.dataDir, 'demo-keys.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const keys = Array.from({ length: 1 + TAKERS }, () => generatePrivateKey());
  mkdirSync(settings.dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
  return keys;
}

/** A logged-in client with at least 5,000 USD of faucet funds (today's allowance permitting). */
async function trader(key: `0x${string}`): Promise<ExchangeClient> {
  const client = new ExchangeClient({ url, wallet: privateKeyToAccount(key) });
  await client.login();
  const funded = await client.balance().then((b) => Number(b.collateral) >= 5000, (error) => (error instanceof ExchangeError && error.status === 404 ? false : Promise.reject(error)));
  if (!funded) await client.faucet().catch((error) => report(`faucet for ${client.address}: ${(error as Error).message}`));
  return client;
}

const [makerKey, ...takerKeys] = demoKeys();
const { markets } = await new ExchangeClient({ url }).markets();
const maker = new MarketMaker(await trader(makerKey), markets, report);
await maker.start();
const takers = new Takers(await Promise.all(takerKeys.map(trader)), markets, report);
takers.start();
console.log(`demo ready: ${url}  (markets ${markets.map((m) => m.symbol).join(', ')}; try ${url}/book/BTC-USD-PERP, or npm run cli -- book BTC)`);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log('demo stopping');
    Promise.all([maker.stop(), takers.stop()])
      .then(() => exchange.stop())
      .then(
        () => process.exit(0),
        (error) => {
          console.error(`demo: stop failed: ${(error as Error).message}`);
          process.exit(1);
        },
      );
  });
}
