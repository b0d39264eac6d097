/**
 * `npm run bench:accounts`: what one account costs the exchange — heap of the sequencer's state
 * (ledger owner, registry entry) and bytes of a snapshot — for 20,000 accounts made by 1 USD
 * transfers from one account (the dust-account path) and by operator deposits. The budget in
 * docs/ledger.md is this figure. Baseline: the same count of bare Map entries keyed by address.
 */
import { readFileSync } from 'node:fs';
import { parseMarkets } from '../src/config/market.ts';
import { Exchange } from '../src/app/exchange.ts';
import { NO_ROUTER } from '../src/app/ports.ts';
import { CommandKind, type Command } from '../src/app/commands.ts';
import { encodeSnapshot } from '../src/sequencer/snapshot-codec.ts';
import { report, type Figure } from './report.ts';
import type { Address } from '../src/types/address.ts';

if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc (npm run bench:accounts does)');
const gc = global.gc as () => void;
const markets = parseMarkets(JSON.parse(readFileSync(new URL('../config/markets.json', import.meta.url), 'utf8')));
const N = 20_000;
const USD = 1_000_000n;
const address = (i: number): Address => `0x${i.toString(16).padStart(40, '0')}`;

function heapNow(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

function measure(via: 'transfer' | 'deposit'): { heap: number; snapshot: number } {
  const exchange = new Exchange(markets, NO_ROUTER);
  const snapshotBytes = () => encodeSnapshot({ exchange: exchange.snapshot(), books: [], hashes: exchange.stateHashes() }).length;
  const sender = address(1);
  exchange.execute({ kind: CommandKind.Deposit, time: 1, account: sender, subaccountIndex: 0, amount: BigInt(N) * USD * 2n });
  const heap0 = heapNow();
  const snapshot0 = snapshotBytes();
  for (let i = 2; i < N + 2; i++) {
    const command: Command =
      via === 'transfer'
        ? { kind: CommandKind.Transfer, time: 2, accountFrom: sender, subaccountIndexFrom: 0, accountTo: address(i), subaccountIndexTo: 0, amount: USD, feedId: '0x01', nonce: i, expiresAt: 1e15, target: sender, signer: sender, signature: '0x' }
        : { kind: CommandKind.Deposit, time: 2, account: address(i), subaccountIndex: 0, amount: USD };
    const result = exchange.execute(command);
    if (result.code !== 0) throw new Error(`${via} ${i} refused: ${result.code}`);
  }
  return { heap: (heapNow() - heap0) / N, snapshot: (snapshotBytes() - snapshot0) / N };
}

const heap0 = heapNow();
const bare = new Map<string, number>();
for (let i = 2; i < N + 2; i++) bare.set(address(i), i);
const bareHeap = (heapNow() - heap0) / N;

const transfer = measure('transfer');
const deposit = measure('deposit');
const figures: Figure[] = [
  { name: 'heap per account, made by a 1 USD transfer', value: transfer.heap, unit: 'bytes', baseline: { name: 'a Map entry keyed by the address', value: bareHeap } },
  { name: 'snapshot bytes per account, made by a 1 USD transfer', value: transfer.snapshot, unit: 'bytes' },
  { name: 'heap per account, made by a deposit', value: deposit.heap, unit: 'bytes', baseline: { name: 'a Map entry keyed by the address', value: bareHeap } },
  { name: 'snapshot bytes per account, made by a deposit', value: deposit.snapshot, unit: 'bytes' },
];
report('accounts', figures);
if (bare.size !== N) throw new Error('unreachable');
