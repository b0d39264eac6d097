/**
 * Ledger throughput (tinybench, one thread): fill settlement (both sides: holds, positions,
 * PnL, fees, events to a no-op listener) and pre-trade checks (admitOrder + releaseOrder, the
 * R1 round trip), each beside baselines measured in the same run: a bare Map<number, bigint>
 * update (the floor of any keyed balance update) and, for scale, the matching core's
 * FastOrderBook place + cancel of a non-crossing order.
 * Workload: 1,000 traders with 10,000 USD in BTC-like and ETH-like markets; fills between
 * pseudo-random pairs (a fixed LCG) at prices oscillating around 100, so opens, adds, reduces
 * and flips all occur. Runs in about 10 s.
 */
import { Bench } from 'tinybench';
import { parseMarket } from '../src/config/market.ts';
import { Ledger } from '../src/ledger/ledger.ts';
import { FastOrderBook } from '../src/engine/fast-book.ts';
import type { BookListener, OwnerIndex } from '../src/engine/types.ts';
import { report } from './report.ts';
import { accountNo, orderNo, ownerNo } from '../test/fixtures/ids.ts';

const TRADERS = 1000;
const market = parseMarket(
  {
    symbol: 'BTC-USD-PERP', tickSize: '1', lotSize: '0.001', minSize: '0.001', maxLeverage: 10,
    initialMarginFraction: '0.1', maintenanceMarginFraction: '0.05', makerFee: '-0.0001', takerFee: '0.0005',
    fundingIntervalMs: 3_600_000, fundingRateCap: '0.04', interestRate: '0', oracleFeedId: '0x01', initialPrice: '100',
  },
  0,
);
const ledger = new Ledger([market]);
const owners: OwnerIndex[] = [];
for (let i = 0; i < TRADERS; i++) {
  const address = '0x' + i.toString(16).padStart(40, '0');
  ledger.deposit(address, 0, 10_000_000_000n, 0);
  owners.push(ledger.findOwner(address, 0)!);
}
ledger.setIndexPrice(market.index, 100, 0);

let seed = 12345;
const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
let orderId = 1;
let time = 1;

function settle(): void {
  const maker = owners[next() % TRADERS];
  let taker = owners[next() % TRADERS];
  if (taker === maker) taker = owners[(maker % TRADERS)];
  const side = next() & 1 ? 1 : -1;
  const price = 95 + (next() % 11);
  if (ledger.settleFill(orderNo(orderId++), orderNo(orderId++), maker, taker, side, market.index, price, 1 + (next() % 50), time++) !== 0) throw new Error("settle refused");
}

function admit(): void {
  const id = orderNo(orderId++);
  const owner = owners[next() % TRADERS];
  if (ledger.admitOrder(id, owner, market.index, next() & 1 ? 1 : -1, 90 + (next() % 20), 1 + (next() % 50), false, time++) !== 0) throw new Error('admit refused');
  ledger.releaseOrder(id, time);
}

const balances = new Map<number, bigint>();
for (const o of owners) balances.set(o, 0n);
function mapUpdate(): void {
  const a = owners[next() % TRADERS];
  const b = owners[next() % TRADERS];
  const amount = BigInt(next() % 1000);
  balances.set(a, (balances.get(a) as bigint) - amount);
  balances.set(b, (balances.get(b) as bigint) + amount);
}

const silent: BookListener = { onAccepted() {}, onRested() {}, onFill() {}, onCancelled() {}, onExpired() {}, onRejected() {}, onLevel() {} };
const book = new FastOrderBook(market.index, silent);
const cmd = { orderId: orderNo(0), owner: ownerNo(1), account: accountNo(1), side: 1 as 1 | -1, price: 100, quantity: 5, flags: 0, expiresAt: 0, clientId: null, position: 0, time: 0 };
let bookOrder = 1;
function bookPlaceCancel(): void {
  cmd.orderId = orderNo(bookOrder++);
  cmd.price = 50 + (next() % 40);
  book.place(cmd);
  book.cancel(cmd.orderId, cmd.owner, 0);
}

// Open positions for everyone first, so settlement sees adds, reduces and flips.
for (let i = 0; i < 20_000; i++) settle();
ledger.validateInternalState();
if (ledger.openInterest(market.index) === 0) throw new Error('no positions opened');
console.log(`open interest after warm-up: ${ledger.openInterest(market.index)} lots; insurance ${ledger.insuranceFund}`);

const bench = new Bench({ time: 1500, warmupTime: 300 });
bench.add('settleFill', settle).add('admitOrder+releaseOrder', admit).add('Map<number,bigint> transfer', mapUpdate).add('FastOrderBook place+cancel', bookPlaceCancel);
await bench.run();
const hz = (name: string): number => {
  const task = bench.tasks.find((t) => t.name === name)!;
  if (task.result.state !== 'completed') throw new Error(`${name}: ${task.result.state}`);
  return task.result.throughput.mean;
};
ledger.validateInternalState();
const mapHz = hz('Map<number,bigint> transfer');
const bookHz = hz('FastOrderBook place+cancel');
report('ledger', [
  { name: 'settleFill (both sides)', value: hz('settleFill'), unit: 'ops/s', baseline: { name: 'Map<number,bigint> transfer', value: mapHz } },
  { name: 'admitOrder + releaseOrder', value: hz('admitOrder+releaseOrder'), unit: 'ops/s', baseline: { name: 'Map<number,bigint> transfer', value: mapHz } },
  { name: 'settleFill vs book', value: hz('settleFill'), unit: 'ops/s', baseline: { name: 'FastOrderBook place+cancel', value: bookHz } },
]);
