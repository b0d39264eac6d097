/**
 * The streaming feeds under load (issue 15), with their baselines measured in the same run.
 *
 * The exchange runs in this process, as in bench:http (so `process.cpuUsage()` is the server's,
 * every thread); everything that loads it is a child process: autocannon (bench/load/autocannon.ts),
 * the subscribers (bench/feeds/subscribers.ts, `FEEDS_BENCH_CLIENTS` processes of `ws`
 * clients, 50 per loopback source address as the feeds' per-address limit allows) and the
 * latency probe (bench/feeds/probe.ts).
 *
 * Order flow: signed orders pre-signed and sent by the load generator as in bench:http
 * (bench/load/generator.ts: libsecp256k1 checked against viem, autocannon), crossing pairs at 95,000 between 50 seller and 50 buyer accounts on BTC-USD-PERP over a seeded book of
 * 30 levels a side, posted at -c 50 (`FEEDS_BENCH_CONNECTIONS`), each reply sent once the order
 * is matched and journaled durably; beside it the probe's pairs (a maker, then a taker that
 * fills it) one after the other.
 *
 * 1. Messages per second delivered to `FEEDS_BENCH_SUBSCRIBERS` (1,000) subscribers of the
 *    market's `book.` and `trades.` channels while the orders cross; every subscriber counts,
 *    one in 50 checks that deltas chain and trades are in order. Baseline: a bare uWebSockets.js
 *    server (bench/feeds/bare-pubsub.ts) publishing messages of the same sizes to as many
 *    subscribers of one topic, a pass per frame at the exchange's frames per second, for as
 *    long, in a child process (its CPU its own); then the same bytes in a quarter of the passes,
 *    to show whether a fan-out costs per pass over the subscribers (a write to each) or per byte.
 * 2. The delay from a fill's acknowledgement (the taker's HTTP reply) to its trades message and
 *    its book delta at the probe, which both sent the order and holds a subscription (one
 *    clock): p50, p99. Negative when the feed message came first (both follow the same journal
 *    flush). Baseline: the bare server's publish, the round trip of a probe message it publishes
 *    back (behind the fan-out under way), under the baseline's load.
 * 3. The order path's rate at -c 50 with the subscribers attached and with none, in rounds
 *    ordered none, attached, attached, none (`FEEDS_BENCH_ROUNDS` pairs of rounds, 2 by default;
 *    linear drift on this shared machine then weighs on both alike); `FEEDS_BENCH_ORDERS`
 *    (10,000) orders a round, or what `FEEDS_BENCH_ROUND_SECONDS` (15) allows. Target: attached
 *    within 10% of none. The server's CPU per order is printed beside it (steadier than the rate
 *    when neighbours load the machine), and the subscribers' CPU (they share the 2 cores, at the
 *    lowest priority: `FEEDS_BENCH_SUBSCRIBER_SCHED` below).
 * The feeds publish a market's book and trades at most every `FEEDS_BENCH_PUBLISH_MS` (the
 * exchange's default, 100 ms, when unset), to compare windows.
 * To see where the feeds cost the order path: `node --cpu-prof --import tsx bench/feeds.bench.ts`
 * profiles the server's main thread (the bench's own work is idle waiting).
 * Runs in about two minutes at full size on the shared 2-core VM (setup ≈ 20–40 s, rounds capped
 * at 15 s); the temporary data dir and the children are removed at the end.
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, setPriority } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_FEED_LIMITS } from '../src/ws/feeds.ts';
import { apiClient } from '../test/e2e/harness.ts';
import { latency, report, type Figure, type Latency } from './report.ts';
import { forkAutocannon, type Autocannon } from './load/autocannon.ts';
import { openAccounts, presignCrossing, stageOrders, type Staged } from './load/generator.ts';
import { signerBackend } from './load/native-signer.ts';
import { describe, loadAverage, measure, type Measured } from './http/measure.ts';
import { startBenchExchange, type BenchExchange } from './http/servers.ts';
import { seedBook } from './http/traders.ts';
import type { BareJob, BareReply } from './feeds/bare-pubsub.ts';
import type { ProbeJob, ProbeReply, ProbeResult } from './feeds/probe.ts';
import type { SubscriberCounts, SubscriberJob, SubscriberReply } from './feeds/subscribers.ts';

const envInt = (name: string, fallback: number): number => {
  const text = process.env[name];
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${text}`);
  return n;
};

const SUBSCRIBERS = envInt('FEEDS_BENCH_SUBSCRIBERS', 1_000);
const CLIENT_PROCESSES = Math.min(SUBSCRIBERS, envInt('FEEDS_BENCH_CLIENTS', 2));
const ORDERS = envInt('FEEDS_BENCH_ORDERS', 10_000);
const ROUND_PAIRS = envInt('FEEDS_BENCH_ROUNDS', 2);
const CONNECTIONS = envInt('FEEDS_BENCH_CONNECTIONS', 50);
/** A round stops after this long even if orders are left (on a busy machine the rate falls tenfold). */
const ROUND_SECONDS = envInt('FEEDS_BENCH_ROUND_SECONDS', 15);
/** The feeds' window (`publishEveryMs`); the exchange's default when unset. */
const PUBLISH_MS = process.env.FEEDS_BENCH_PUBLISH_MS === undefined ? DEFAULT_FEED_LIMITS.publishEveryMs : envInt('FEEDS_BENCH_PUBLISH_MS', 1);
const SYMBOL = 'BTC-USD-PERP';
const CHANNELS = [`book.${SYMBOL}`, `trades.${SYMBOL}`];
const ACCOUNTS = 100;
const LEVELS_PER_SIDE = 30;
/** Orders before the first round, so the first round does not pay for the JIT's warm-up (1,000 left it ~25 % slower than the last). */
const WARMUP_ORDERS = envInt('FEEDS_BENCH_WARMUP', 4_000);
/**
 * How the subscriber processes are scheduled. They stand for clients on other machines, so by
 * default they take only CPU the exchange leaves idle: `idle` runs them under SCHED_IDLE (`chrt
 * --idle`: they run when no other task wants the core, and a waking exchange thread preempts
 * them at once — nice 19 alone still let them delay the order path's thread hand-offs); `nice`
 * at nice 19; `equal` as any process. Their CPU is printed either way.
 */
const SUBSCRIBER_SCHED = process.env.FEEDS_BENCH_SUBSCRIBER_SCHED ?? 'idle';
if (!['idle', 'nice', 'equal'].includes(SUBSCRIBER_SCHED)) throw new Error(`FEEDS_BENCH_SUBSCRIBER_SCHED must be idle, nice or equal, got ${SUBSCRIBER_SCHED}`);

function schedule(pid: number): void {
  if (SUBSCRIBER_SCHED === 'nice') setPriority(pid, 19);
  if (SUBSCRIBER_SCHED !== 'idle') return;
  const run = spawnSync('chrt', ['--idle', '--all-tasks', '--pid', '0', String(pid)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`chrt --idle failed for subscriber process ${pid} (util-linux; or FEEDS_BENCH_SUBSCRIBER_SCHED=nice): ${run.stderr || run.error?.message}`);
}
/** The probe's pause between pairs, and the pairs it may send in one round (it stops when told). */
const PROBE_GAP_MS = 10;
const PROBE_LOOPS = 4;
const PROBE_PAIRS = 600;
/** After the orders: time for the last frames to reach every subscriber. */
const SETTLE_MS = 500;
/** The baseline publishes as long as the exchange's rounds delivered, within these bounds. */
const MIN_BARE_SECONDS = 2;
const MAX_BARE_SECONDS = 10;
/** The baseline's second measure: frames' worth per message, to show what a pass over the subscribers costs. */
const COALESCED = 4;

// ---- the children ----

/** One job to a child, one reply back (or its exit). */
function ask<Reply extends { ok: true } | { ok: false; error: string }>(child: ChildProcess, what: string, job: unknown): Promise<Extract<Reply, { ok: true }>> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`${what} exited with ${code}`));
    child.once('exit', onExit);
    child.once('message', (reply: Reply) => {
      child.off('exit', onExit);
      if (reply.ok) resolve(reply as Extract<Reply, { ok: true }>);
      else reject(new Error(`${what}: ${(reply as { error: string }).error}`));
    });
    child.send(job as object);
  });
}

const child = (file: string): ChildProcess => fork(new URL(file, import.meta.url), { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });

let loader: Autocannon;
/** The orders of the warm-up and of each round, staged (bodies files written) before the clock. */
const staged: Staged[] = [];
let probe: ChildProcess;
let bareServer: ChildProcess;
let subscriberProcesses: ChildProcess[] = [];

const subscribers = async (job: SubscriberJob): Promise<SubscriberCounts[]> =>
  (await Promise.all(subscriberProcesses.map((p, i) => ask<SubscriberReply>(p, `subscriber process ${i}`, job)))).map((r) => r.counts!).filter((c) => c !== undefined);

/** Every subscriber connects to `wsUrl` (and subscribes to `channels`), spread over the processes. */
async function connectSubscribers(wsUrl: string, channels: string[]): Promise<void> {
  const per = Math.ceil(SUBSCRIBERS / CLIENT_PROCESSES);
  await Promise.all(
    subscriberProcesses.map((p, i) => ask<SubscriberReply>(p, `subscriber process ${i}`, { op: 'connect', url: wsUrl, first: i * per, count: Math.max(0, Math.min(per, SUBSCRIBERS - i * per)), channels } satisfies SubscriberJob)),
  );
}

const bareJob = (job: BareJob): Promise<Extract<BareReply, { ok: true }>> => ask<BareReply>(bareServer, 'bare server', job);

const probeJob = async (job: ProbeJob): Promise<ProbeResult | undefined> => (await ask<ProbeReply>(probe, 'probe', job)).result;

// ---- what the subscribers saw ----

interface Delivery {
  /** Messages per second over every subscriber (each process's first to last message, summed). */
  rate: number;
  /** Per subscriber: book and trades messages per second, and their mean sizes in bytes. */
  book: { perSecond: number; bytes: number };
  trades: { perSecond: number; bytes: number };
  /** Most any subscriber got − fewest, over every subscriber (0: none missed one). */
  spread: number;
  closed: Record<string, number>;
  gaps: number;
  checked: number;
  /** The subscriber processes' CPU, in cores, over their window. */
  clientCores: number;
  seconds: number;
}

function delivery(counts: SubscriberCounts[]): Delivery {
  const seconds = Math.max(...counts.map((c) => (c.lastMs - c.firstMs) / 1000));
  const sum = (f: (c: SubscriberCounts) => number): number => counts.reduce((a, c) => a + f(c), 0);
  const clients = sum((c) => c.clients);
  const closed: Record<string, number> = {};
  for (const c of counts) for (const [k, n] of Object.entries(c.closed)) closed[k] = (closed[k] ?? 0) + n;
  const bookMessages = sum((c) => c.book.messages);
  const tradesMessages = sum((c) => c.trades.messages);
  return {
    rate: sum((c) => (c.book.messages + c.trades.messages) / Math.max(1e-3, (c.lastMs - c.firstMs) / 1000)),
    book: { perSecond: bookMessages / clients / seconds, bytes: sum((c) => c.book.bytes) / Math.max(1, bookMessages) },
    trades: { perSecond: tradesMessages / clients / seconds, bytes: sum((c) => c.trades.bytes) / Math.max(1, tradesMessages) },
    spread: Math.max(...counts.map((c) => c.maxPerClient)) - Math.min(...counts.map((c) => c.minPerClient)),
    closed,
    gaps: sum((c) => c.gaps),
    checked: sum((c) => c.checked),
    clientCores: sum((c) => c.cpuSeconds / c.wallSeconds),
    seconds,
  };
}

function describeDelivery(label: string, d: Delivery): void {
  const closed = Object.entries(d.closed).map(([k, n]) => `${n}× ${k}`).join(', ');
  console.log(
    `  ${label.padEnd(26)} ${Math.round(d.rate).toString().padStart(8)} msg/s delivered over ${d.seconds.toFixed(1)} s: per subscriber ${d.book.perSecond.toFixed(0)} book/s (${d.book.bytes.toFixed(0)} B) + ` +
      `${d.trades.perSecond.toFixed(0)} trades/s (${d.trades.bytes.toFixed(0)} B); spread ${d.spread}, gaps ${d.gaps} in ${d.checked} checked, closed ${closed || 'none'}; subscriber processes ${d.clientCores.toFixed(2)} cores`,
  );
}

const ms = (l: Latency | null): string => (l === null || l.samples === 0 ? 'none' : `p50 ${l.p50.toFixed(2)} ms, p99 ${l.p99.toFixed(2)} ms, max ${l.max.toFixed(2)} ms (${l.samples})`);

// ---- the rounds ----

type Mode = 'none' | 'attached';

interface Round {
  mode: Mode;
  orders: Measured;
  probe: ProbeResult;
  delivery: Delivery | null;
}

async function runRound(ex: BenchExchange, mode: Mode, orders: Staged, probeOrders: string): Promise<Round> {
  const wsUrl = `${ex.url.replace(/^http/, 'ws')}/ws`;
  await probeJob({ op: 'orders', url: ex.url, wsUrl: mode === 'attached' ? wsUrl : null, symbol: SYMBOL, ordersFile: probeOrders, loops: PROBE_LOOPS, gapMs: PROBE_GAP_MS });
  if (mode === 'attached') await subscribers({ op: 'start' });
  const sent = await measure(() => orders.send());
  const probed = (await probeJob({ op: 'stop' }))!;
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const d = mode === 'attached' ? delivery(await subscribers({ op: 'stop' })) : null;
  describe(`orders, ${mode === 'attached' ? `${SUBSCRIBERS} subscribers` : 'no subscribers'}`, sent);
  if (d !== null) describeDelivery('  feeds delivered', d);
  console.log(`    probe: ${probed.sent} pairs, ${probed.unfilled} unfilled, ${probed.missing} feed messages missing; taker round trip ${ms(probed.roundTrip)}`);
  if (mode === 'attached') console.log(`    fill ack → trades message ${ms(probed.trades)}; → book delta ${ms(probed.book)}`);
  return { mode, orders: sent, probe: probed, delivery: d };
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The samples of several rounds as one. */
const pooled = (ls: Latency[]): Latency => latency(ls.flatMap((l) => l.values));

// ---- the run ----

console.log(
  `feeds bench: ${availableParallelism()} cores, load average ${loadAverage()} (1, 5, 15 min); ${SUBSCRIBERS} subscribers in ${CLIENT_PROCESSES} processes, ` +
    `${ORDERS} orders a round at -c ${CONNECTIONS}, ${2 * ROUND_PAIRS} rounds after ${WARMUP_ORDERS} warm-up orders; subscriber processes scheduled ${SUBSCRIBER_SCHED}; ` +
    `book and trades published at most every ${PUBLISH_MS} ms`,
);
const ex = await startBenchExchange({ feedLimits: { publishEveryMs: PUBLISH_MS } });
loader = forkAutocannon();
probe = child('./feeds/probe.ts');
bareServer = child('./feeds/bare-pubsub.ts');
subscriberProcesses = Array.from({ length: CLIENT_PROCESSES }, () => child('./feeds/subscribers.ts'));
for (const p of subscriberProcesses) schedule(p.pid!);
const figures: Figure[] = [];
try {
  const setupStart = performance.now();
  // The load generator's accounts (native signer, checked against viem); the probe's own makers
  // and takers, a pair per sender: each stays far under 200 requests/s.
  const accounts = await openAccounts({ url: ex.url, count: ACCOUNTS + 2 * PROBE_LOOPS, funding: 'operator', amount: '1000000', operatorKey: ex.settings.operatorKey, signer: 'native' });
  const probeMakers = accounts.slice(ACCOUNTS, ACCOUNTS + PROBE_LOOPS);
  const probeTakers = accounts.slice(ACCOUNTS + PROBE_LOOPS);
  const traders = accounts.slice(0, ACCOUNTS);
  const seeded = await seedBook(traders, LEVELS_PER_SIDE);

  const signStart = performance.now();
  const modes: Mode[] = Array.from({ length: ROUND_PAIRS }, (_, r): Mode[] => (r % 2 === 0 ? ['none', 'attached'] : ['attached', 'none'])).flat();
  const crossing = { symbol: SYMBOL, price: '95000', quantity: '0.001' };
  const stage = async (count: number, maxSeconds?: number): Promise<Staged> => stageOrders(await presignCrossing(traders, crossing, count), { url: ex.url, sender: loader, concurrency: CONNECTIONS, maxSeconds });
  const warmup = await stage(WARMUP_ORDERS);
  staged.push(warmup);
  for (let r = 0; r < modes.length; r++) staged.push(await stage(ORDERS, ROUND_SECONDS));
  const roundOrders = staged.slice(1);
  // The probe's pairs: an ask at 95,050 (above the crossing bids, below the seeded asks), then a
  // bid at 95,050 that fills at once (against it, or a crossing ask resting at 95,000).
  const probeFiles: string[] = [];
  for (const [r] of modes.entries()) {
    const pairs: [string, string][][] = [];
    for (let i = 0; i < PROBE_PAIRS; i++) {
      const pair = [probeMakers[i % PROBE_LOOPS], probeTakers[i % PROBE_LOOPS]].map(async (client, side): Promise<[string, string]> => {
        const body = await client.signOrder({ symbol: SYMBOL, price: '95050', quantity: side === 0 ? '-0.001' : '0.001' });
        return [await client.token(), JSON.stringify(body)];
      });
      pairs.push(await Promise.all(pair));
    }
    const file = join(ex.dataDir, `probe-${r}.json`);
    writeFileSync(file, JSON.stringify(pairs));
    probeFiles.push(file);
  }
  const signed = WARMUP_ORDERS + modes.length * (ORDERS + 2 * PROBE_PAIRS);
  console.log(
    `  setup: ${accounts.length} accounts logged in and funded, ${seeded} resting orders, ${signed} orders signed (${signerBackend}, ${((signed / (performance.now() - signStart)) * 1000).toFixed(0)}/s, checked against viem), ` +
      `in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`,
  );
  describe('warm-up orders', await measure(() => warmup.send()));

  // ---- 1–3 on the exchange: rounds none / attached ----
  console.log(`\nRounds (${modes.join(', ')}): ${ORDERS} signed orders each at -c ${CONNECTIONS}; load average ${loadAverage()}`);
  const rounds: Round[] = [];
  let attached = false;
  for (const [r, mode] of modes.entries()) {
    if (mode === 'attached' && !attached) {
      const start = performance.now();
      await connectSubscribers(`${ex.url.replace(/^http/, 'ws')}/ws`, CHANNELS);
      console.log(`  ${SUBSCRIBERS} subscribers connected and subscribed to ${CHANNELS.join(' + ')} in ${((performance.now() - start) / 1000).toFixed(1)} s`);
      attached = true;
    } else if (mode === 'none' && attached) {
      await subscribers({ op: 'disconnect' });
      attached = false;
    }
    rounds.push(await runRound(ex, mode, roundOrders[r], probeFiles[r]));
  }
  if (attached) await subscribers({ op: 'disconnect' });
  const state = (await apiClient(ex.url).operator('GET', '/operator/state-hash')).json() as { problem: string | null };
  if (state.problem !== null) throw new Error(`exchange invariant broken after the rounds: ${state.problem}`);

  const withFeeds = rounds.filter((r) => r.mode === 'attached');
  const without = rounds.filter((r) => r.mode === 'none');
  const deliveries = withFeeds.map((r) => r.delivery!);
  const exchangeDelivery = {
    rate: mean(deliveries.map((d) => d.rate)),
    book: { perSecond: mean(deliveries.map((d) => d.book.perSecond)), bytes: mean(deliveries.map((d) => d.book.bytes)) },
    trades: { perSecond: mean(deliveries.map((d) => d.trades.perSecond)), bytes: mean(deliveries.map((d) => d.trades.bytes)) },
    seconds: mean(deliveries.map((d) => d.seconds)),
    spread: Math.max(...deliveries.map((d) => d.spread)),
    gaps: deliveries.reduce((a, d) => a + d.gaps, 0),
    closed: deliveries.reduce((a, d) => a + Object.values(d.closed).reduce((x, y) => x + y, 0), 0),
  };

  // ---- the baseline: a bare uWS server, the same sizes at the same rates, as many subscribers ----
  const { port: barePort } = await bareJob({ op: 'listen' });
  const bareUrl = `ws://127.0.0.1:${barePort}/ws`;
  await connectSubscribers(bareUrl, []);
  // Text of a given length whose 13th byte says its kind to the subscribers, as the feed's do.
  const padded = (channel: string, bytes: number): string => {
    const head = `{"channel":"${channel}","type":"bare","pad":"`;
    return `${head}${'x'.repeat(Math.max(0, Math.round(bytes) - head.length - 2))}"}`;
  };
  const bareSeconds = Math.min(MAX_BARE_SECONDS, Math.max(MIN_BARE_SECONDS, exchangeDelivery.seconds));
  console.log(
    `\nBaseline: bare uWS publishing to ${SUBSCRIBERS} subscribers of one topic for ${bareSeconds.toFixed(1)} s at the exchange's rates: ` +
      `${exchangeDelivery.book.perSecond.toFixed(0)}/s of ${exchangeDelivery.book.bytes.toFixed(0)} B + ${exchangeDelivery.trades.perSecond.toFixed(0)}/s of ${exchangeDelivery.trades.bytes.toFixed(0)} B; load average ${loadAverage()}`,
  );
  await probeJob({ op: 'bare', wsUrl: bareUrl, loops: PROBE_LOOPS, gapMs: PROBE_GAP_MS });
  await subscribers({ op: 'start' });
  // A pass per frame (each frame has a book delta; most have trades), as the exchange publishes.
  const passes = exchangeDelivery.book.perSecond;
  const published = await bareJob({
    op: 'publish',
    passesPerSecond: passes,
    messages: [
      { text: padded('book.BARE', exchangeDelivery.book.bytes), perPass: 1 },
      { text: padded('trades.BARE', exchangeDelivery.trades.bytes), perPass: Math.min(1, exchangeDelivery.trades.perSecond / passes) },
    ],
    seconds: bareSeconds,
  });
  if (published.subscribers !== SUBSCRIBERS + 1) throw new Error(`bare server: ${published.subscribers} subscribers, expected ${SUBSCRIBERS} and the probe`);
  const bareProbe = (await probeJob({ op: 'stop' }))!;
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const bareDelivery = delivery(await subscribers({ op: 'stop' }));
  const bareCpuMicros = (published.cpuSeconds! / (bareDelivery.rate * bareDelivery.seconds)) * 1e6 * 1000;
  describeDelivery('bare uWS delivered', bareDelivery);
  console.log(`    ${published.published} messages published; bare server CPU ${bareCpuMicros.toFixed(1)} µs per 1,000 delivered; probe round trip through the topic ${ms(bareProbe.roundTrip)}`);
  // What a fan-out costs: per pass over the subscribers (one write to each) or per byte? The
  // same bytes per second in a quarter of the passes (each message four frames' worth).
  const bytesPerSecond = exchangeDelivery.book.perSecond * exchangeDelivery.book.bytes + exchangeDelivery.trades.perSecond * exchangeDelivery.trades.bytes;
  const fewerSeconds = bareSeconds / 2;
  await subscribers({ op: 'start' });
  const fewer = await bareJob({ op: 'publish', passesPerSecond: passes / COALESCED, messages: [{ text: padded('trades.BARE', (bytesPerSecond / passes) * COALESCED), perPass: 1 }], seconds: fewerSeconds });
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const fewerDelivery = delivery(await subscribers({ op: 'stop' }));
  const bareCores = { passes: published.cpuSeconds! / bareSeconds, fewer: fewer.cpuSeconds! / fewerSeconds };
  describeDelivery(`bare, 1/${COALESCED} the passes`, fewerDelivery);
  console.log(`    bare server CPU ${bareCores.passes.toFixed(3)} cores at ${passes.toFixed(0)} passes/s, ${bareCores.fewer.toFixed(3)} cores at ${(passes / COALESCED).toFixed(0)} passes/s with the same bytes`);
  await subscribers({ op: 'disconnect' });

  // ---- the figures ----
  const rate = { none: mean(without.map((r) => r.orders.rate)), attached: mean(withFeeds.map((r) => r.orders.rate)) };
  const cpuPerOrder = { none: mean(without.map((r) => r.orders.serverMicros)), attached: mean(withFeeds.map((r) => r.orders.serverMicros)) };
  const p99 = { none: mean(without.map((r) => r.orders.p99)), attached: mean(withFeeds.map((r) => r.orders.p99)) };
  const tradesDelay = pooled(withFeeds.map((r) => r.probe.trades!));
  const bookDelay = pooled(withFeeds.map((r) => r.probe.book!));
  // The feeds' share of the server's CPU, per message delivered: the extra CPU per order with
  // subscribers, over the messages each order brought (noisy: a difference of two measurements).
  const messagesPerOrder = exchangeDelivery.rate / rate.attached;
  const feedCpuMicros = ((cpuPerOrder.attached - cpuPerOrder.none) / messagesPerOrder) * 1000;
  const subscribersName = `${SUBSCRIBERS} subscribers`;
  figures.push(
    { name: `messages/s delivered to ${subscribersName} of book + trades, orders crossing at -c ${CONNECTIONS}`, value: exchangeDelivery.rate, unit: 'msg/s', baseline: { name: `bare uWS publish, same sizes and rates, ${subscribersName} of one topic`, value: bareDelivery.rate } },
    { name: 'messages a subscriber missed (most any got − fewest)', value: exchangeDelivery.spread + exchangeDelivery.gaps, unit: 'messages', baseline: { name: 'bare uWS', value: bareDelivery.spread } },
    { name: `fill acknowledged → trades message p50 (${subscribersName})`, value: tradesDelay.p50, unit: 'ms', baseline: { name: 'bare uWS publish round trip p50', value: bareProbe.roundTrip.p50 } },
    { name: `fill acknowledged → trades message p99 (${subscribersName})`, value: tradesDelay.p99, unit: 'ms', baseline: { name: 'bare uWS publish round trip p99', value: bareProbe.roundTrip.p99 } },
    { name: 'fill acknowledged → book delta p50', value: bookDelay.p50, unit: 'ms', baseline: { name: 'bare uWS publish round trip p50', value: bareProbe.roundTrip.p50 } },
    { name: 'fill acknowledged → book delta p99', value: bookDelay.p99, unit: 'ms', baseline: { name: 'bare uWS publish round trip p99', value: bareProbe.roundTrip.p99 } },
    { name: `signed orders/s at -c ${CONNECTIONS} with ${subscribersName}`, value: rate.attached, unit: 'orders/s', baseline: { name: 'no subscribers, same run', value: rate.none } },
    { name: `signed order p99 with ${subscribersName}`, value: p99.attached, unit: 'ms', baseline: { name: 'no subscribers', value: p99.none } },
    { name: `server CPU per signed order with ${subscribersName}`, value: cpuPerOrder.attached, unit: 'µs', baseline: { name: 'no subscribers', value: cpuPerOrder.none } },
    { name: 'feeds server CPU per 1,000 messages delivered (extra CPU per order / messages per order)', value: feedCpuMicros, unit: 'µs', baseline: { name: 'bare uWS publish', value: bareCpuMicros } },
    { name: `bare uWS server CPU, the same bytes/s in 1/${COALESCED} the passes over the ${subscribersName}`, value: bareCores.fewer, unit: 'cores', baseline: { name: `at the exchange's ${passes.toFixed(0)} passes/s`, value: bareCores.passes } },
  );
  console.log(`  after: exchange state valid; load average ${loadAverage()}`);
} finally {
  for (const s of staged) s.dispose();
  loader.close();
  for (const p of [probe, bareServer, ...subscriberProcesses]) if (p.connected) p.disconnect();
  await ex.stop();
}
report('feeds', figures);
const ratio = figures.find((f) => f.name.startsWith('signed orders/s'))!;
const share = ratio.value / ratio.baseline!.value;
console.log(
  `target: the order path with ${SUBSCRIBERS} subscribers at ${(share * 100).toFixed(1)} % of its rate with none (within 10 %: ${share >= 0.9 ? 'met' : 'NOT met'} in this run)`,
);
console.log(`load average at the end: ${loadAverage()}`);
process.exit(0);
