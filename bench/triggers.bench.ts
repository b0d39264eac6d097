/**
 * Trigger benchmark: the cost of one mark-price update in a market holding many untriggered
 * orders, for `ConditionalBook` with its fast trigger index and with the naive
 * scan-every-order reference index (the baseline), measured in the same run.
 * `node --import tsx bench/triggers.bench.ts` (the lead wires `npm run bench:triggers`).
 *
 * Books: 1,000 *near* orders whose triggers sit within reach of the path (fixed triggers 150 to
 * 2,000 ticks from the 100,000-tick mark on their non-crossed side, trailing percents 0.2 % to
 * 2 %) plus 0 or 99,000 *far* orders that never fire on the path (triggers 10–30 % away,
 * trailing 10–30 %): 1,000 or 100,000 resting in all, a third each stopLoss, takeProfit and
 * trailingStop, half buys, half sells. Near orders that fire are replaced (untimed) by fresh
 * ones around the new mark from the same seeded generator, so both sizes fire exactly the
 * same orders at the same updates: the only difference is how many orders do not fire.
 * Path: a mean-reverting random walk of the mark (steps up to ±120 ticks, pulled 1 % of the way back), seeded, the same for
 * every book. Latency: each onMark timed alone with process.hrtime.bigint() (its ~50–100 ns
 * included); p50, p99, mean. The naive book at 100,000 runs a 1,000-update prefix (it is slow).
 * Crash: one update gapping the mark 0.5 % down through 100,000 wide-spread orders, which fires
 * a few thousand at once — per fired order, best of 5. Its fast figure includes the pairing
 * heaps' deferred work (a bucket that took m placements since it last fired pays O(m) once).
 */
import { ConditionalBook } from '../src/conditional/conditional-book.ts';
import { TriggerKind } from '../src/conditional/types.ts';
import type { ConditionalListener, PlaceTrigger } from '../src/conditional/types.ts';
import type { PlaceOrder } from '../src/engine/types.ts';
import { percentile, report } from './report.ts';
import { seeded } from './seeded.ts';
import type { Figure } from './report.ts';
import { accountNo, marketNo, orderNo, ownerNo } from '../test/fixtures/ids.ts';

const MARK = 100_000;
const PATH_LENGTH = 20_000;
const NAIVE_LARGE_PATH = 1_000;
const CRASH_REPEATS = 5;

/** Keeps what fired, so the bench can replace it after the timed call (a listener must not call back). */
class FiredOrders implements ConditionalListener {
  fired: number[] = [];
  total = 0;
  onRelease(order: PlaceOrder): void {
    this.fired.push(order.orderId);
    this.total++;
  }
  onArmed(): void {}
  onCancelled(): void {}
  onGroupEnded(): void {}
}

/** Generates orders whose triggers sit on their non-crossed side of `mark`, at `near` or far distances. */
class OrderMaker {
  private readonly random: () => number;

  constructor(seed: number, private nextId: number, private readonly near: boolean) {
    this.random = seeded(seed);
  }

  make(mark: number, time: number): PlaceTrigger {
    const r = this.random;
    const kind = ([TriggerKind.StopLoss, TriggerKind.TakeProfit, TriggerKind.TrailingStop] as const)[Math.floor(r() * 3)];
    const side: 1 | -1 = r() < 0.5 ? 1 : -1;
    const orderId = this.nextId++;
    const owner = 1 + (orderId % 5_000);
    const base = { orderId: orderNo(orderId), owner: ownerNo(owner), account: accountNo(owner), side, price: mark, quantity: 1, flags: 0, expiresAt: 0, clientId: null, kind, time };
    if (kind === TriggerKind.TrailingStop) {
      const percent = this.near ? 200_000 + r() * 1_800_000 : 10_000_000 + r() * 20_000_000;
      return { ...base, triggerPrice: 0, trailingPercent: BigInt(Math.floor(percent)) };
    }
    // sense +1 fires on a fall: its trigger goes below the mark; −1 above.
    const sense = kind === TriggerKind.TakeProfit ? side : -side;
    const distance = Math.floor(this.near ? 150 + r() * 1_850 : mark * (0.1 + r() * 0.2));
    return { ...base, triggerPrice: mark - sense * distance, trailingPercent: 0n };
  }
}

const NEAR = 1_000;

/** The seeded mark path: a walk pulled back toward MARK. */
function markPath(length: number): Float64Array {
  const random = seeded(7);
  const path = new Float64Array(length);
  let mark = MARK;
  for (let i = 0; i < length; i++) {
    mark += Math.round((random() - 0.5) * 240 + (MARK - mark) * 0.01);
    path[i] = mark;
  }
  return path;
}

function build(index: 'fast' | 'naive', size: number): { book: ConditionalBook; listener: FiredOrders; near: OrderMaker } {
  const listener = new FiredOrders();
  const book = new ConditionalBook(marketNo(0), listener, { index });
  const near = new OrderMaker(1, 1, true);
  const far = new OrderMaker(2, 1_000_000_000, false);
  book.onMark(MARK, 0);
  for (let i = 0; i < NEAR; i++) book.place(near.make(MARK, 0));
  for (let i = NEAR; i < size; i++) book.place(far.make(MARK, 0));
  return { book, listener, near };
}

interface PathResult {
  p50: number;
  p99: number;
  mean: number;
  firedPerUpdate: number;
}

/** Runs `updates` marks of the path; times each onMark alone; replaces what fired, untimed. */
function runPath(index: 'fast' | 'naive', size: number, path: Float64Array, updates: number): PathResult {
  const { book, listener, near } = build(index, size);
  const samples = new Float64Array(updates);
  let time = 1;
  for (let i = 0; i < updates; i++) {
    const mark = path[i];
    const start = process.hrtime.bigint();
    book.onMark(mark, time);
    samples[i] = Number(process.hrtime.bigint() - start);
    for (const _ of listener.fired) {
      if (book.place(near.make(mark, time)) !== 0) throw new Error('a replacement was refused');
    }
    listener.fired.length = 0;
    time++;
  }
  if (book.size !== size) throw new Error(`book drifted to ${book.size} orders`);
  let sum = 0;
  for (const s of samples) sum += s;
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), mean: sum / updates, firedPerUpdate: listener.total / updates };
}

/** One update gapping the mark down 0.5 % through 100,000 near-style orders: nanoseconds per fired order, best of the repeats. */
function crash(index: 'fast' | 'naive'): { perFired: number; fired: number } {
  let best = Infinity;
  let fired = 0;
  for (let r = 0; r < CRASH_REPEATS; r++) {
    const listener = new FiredOrders();
    const book = new ConditionalBook(marketNo(0), listener, { index });
    const maker = new OrderMaker(3, 1, true);
    book.onMark(MARK, 0);
    for (let i = 0; i < 100_000; i++) book.place(maker.make(MARK, 0));
    const start = process.hrtime.bigint();
    book.onMark(MARK - 500, 1);
    const ns = Number(process.hrtime.bigint() - start);
    fired = listener.total;
    best = Math.min(best, ns / fired);
  }
  return { perFired: best, fired };
}

const path = markPath(PATH_LENGTH);
// Warm-up: let the JIT settle on both implementations before anything is measured.
runPath('fast', 1_000, path, 5_000);
runPath('naive', 1_000, path, 2_000);

const fastSmall = runPath('fast', 1_000, path, PATH_LENGTH);
const fastLarge = runPath('fast', 100_000, path, PATH_LENGTH);
const naiveSmall = runPath('naive', 1_000, path, PATH_LENGTH);
const naiveLarge = runPath('naive', 100_000, path, NAIVE_LARGE_PATH);
const crashFast = crash('fast');
const crashNaive = crash('naive');

console.log(`fired per update: fast 1k ${fastSmall.firedPerUpdate.toFixed(2)}, fast 100k ${fastLarge.firedPerUpdate.toFixed(2)}, naive 1k ${naiveSmall.firedPerUpdate.toFixed(2)}, naive 100k ${naiveLarge.firedPerUpdate.toFixed(2)}; crash fired ${crashFast.fired} (naive ${crashNaive.fired})`);

const figures: Figure[] = [
  { name: 'mark update p50, 100,000 resting (fast vs naive scan)', value: fastLarge.p50, unit: 'ns', baseline: { name: 'naive scan, 100,000 resting', value: naiveLarge.p50 } },
  { name: 'mark update p99, 100,000 resting (fast vs naive scan)', value: fastLarge.p99, unit: 'ns', baseline: { name: 'naive scan, 100,000 resting', value: naiveLarge.p99 } },
  { name: 'mark update mean, 100,000 resting (fast vs naive scan)', value: fastLarge.mean, unit: 'ns', baseline: { name: 'naive scan, 100,000 resting', value: naiveLarge.mean } },
  { name: 'fast mark update p50, 100,000 vs 1,000 resting', value: fastLarge.p50, unit: 'ns', baseline: { name: 'fast, 1,000 resting', value: fastSmall.p50 } },
  { name: 'fast mark update p99, 100,000 vs 1,000 resting', value: fastLarge.p99, unit: 'ns', baseline: { name: 'fast, 1,000 resting', value: fastSmall.p99 } },
  { name: 'fast mark update mean, 100,000 vs 1,000 resting', value: fastLarge.mean, unit: 'ns', baseline: { name: 'fast, 1,000 resting', value: fastSmall.mean } },
  { name: 'naive mark update p50, 100,000 vs 1,000 resting', value: naiveLarge.p50, unit: 'ns', baseline: { name: 'naive, 1,000 resting', value: naiveSmall.p50 } },
  { name: 'orders fired per mark update, 100,000 vs 1,000 resting (fast)', value: fastLarge.firedPerUpdate, unit: 'orders', baseline: { name: 'fast, 1,000 resting', value: fastSmall.firedPerUpdate } },
  { name: `crash update, per fired order (${crashFast.fired} of 100,000 fire)`, value: crashFast.perFired, unit: 'ns', baseline: { name: 'naive scan', value: crashNaive.perFired } },
];
report('triggers', figures);
