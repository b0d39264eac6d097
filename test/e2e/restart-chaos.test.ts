/**
 * Generated restarts: one data directory, CHAOS_ROUNDS rounds, each a server started with a
 * configuration drawn from the seed (market threads 1–3, signature threads 1–2, snapshots every
 * 100 ms to never) and driven with crossing signed batches on 8 subaccounts of two accounts,
 * conditional orders of a third (stops with and without expiry, TP/SL pairs, TWAPs whose slices
 * come due across the kill, icebergs) and a WebSocket subscriber on the conditional account's
 * private channel — then ended the way the seed says:
 *   - SIGKILL under load, at a random moment;
 *   - SIGKILL during the start-up replay (a fraction of the last replay's time after
 *     `replaying journal`), then the round's server is started again;
 *   - SIGKILL right after `exchange ready`, the load just begun;
 *   - SIGKILL during a snapshot (stopped at `snapshot started`, killed unless its log has
 *     `snapshot saved`);
 *   - SIGTERM under load: a clean stop (`stopped` logged, exit code 0).
 * After every end, before the next start: history equals a projection of the journal up to its
 * position (`HistoryCheck`). After every start: every acknowledged order is there with its
 * clientId and at least the fills its reply reported, no clientId is on two orders, every
 * acknowledged conditional order is there, the invariants hold (`/operator/state-hash`), every
 * order's fills in GET /account/fills add up to its `settled`, and the private events the
 * subscriber was sent before the end are the ones a resume from 0 sends now, number for number.
 * At the end the operator tool replays the journal to every snapshot's hash.
 *
 * CHAOS_ROUNDS (default 6), CHAOS_SEED.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { tempDataDir, withinBudget, Trader, type ApiClient } from './harness.ts';
import { spawnServerProcess, type ServerProcess, type StartingServerProcess } from './server-process.ts';
import { HistoryCheck } from './history-check.ts';
import { FeedClient } from './feed-client.ts';
import { checkAcknowledged, crossingLoad, loadAccounts, type AckedOrder } from './crossing-load.ts';
import { submit, submitBatch } from '../harness/conditional-helpers.ts';
import { seeded } from '../../bench/seeded.ts';
import { bundleOf, nodeArgsFor } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 6);
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
const PIPELINES = 8;
const ENDS = ['kill', 'kill-in-replay', 'kill-after-ready', 'kill-in-snapshot', 'sigterm'] as const;
type End = (typeof ENDS)[number];

test(`generated restarts: ${ROUNDS} rounds of load ended by kills and stops at random points, configurations changing between starts (seed ${SEED})`, { timeout: 30 * 60_000 }, async (t) => {
  const dataDir = tempDataDir(t, 'perp-chaos-');
  const rand = seeded(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const acked = new Map<string, AckedOrder>();
  const conditional = new Map<string, string>();
  let server: ServerProcess | undefined;
  let starting: StartingServerProcess | undefined;
  t.after(async () => {
    await starting?.kill('SIGKILL');
    await server?.kill('SIGKILL');
  });
  const historyCheck = new HistoryCheck();
  t.after(() => historyCheck.close());
  let replayMs = 500;

  const configuration = () => ({
    MARKET_THREADS: String(1 + Math.floor(rand() * 3)),
    SIGNATURE_THREADS: String(1 + Math.floor(rand() * 2)),
    SNAPSHOT_INTERVAL_MS: pick(['0', '100', '300', '5000']),
    LOG_LEVEL: 'debug',
  });
  const start = async (env: Record<string, string>) => {
    starting = spawnServerProcess([], env, dataDir);
    server = await starting.ready;
    const replayed = server.logged('journal replayed');
    const began = server.logged('replaying journal');
    if (replayed && began) replayMs = Math.max(50, replayed.time - began.time);
    return server;
  };

  // The accounts, on a first server.
  let s = await start({ SNAPSHOT_INTERVAL_MS: '0' });
  const accounts = await loadAccounts(s.client, PIPELINES);
  const stopper = await new Trader(s.client).login();
  await stopper.fund('1000000');
  const traders = [...accounts.map((a) => a.trader), stopper];
  const login = async (client: ApiClient) => {
    for (const trader of traders) {
      trader.ex = client;
      await trader.login();
    }
  };
  const privateChannel = `account.${stopper.address}.0`;
  /** The private events the subscriber was sent, by number, over every server so far. */
  const sent = new Map<number, unknown>();
  let feed: FeedClient | null = null;
  const subscribe = async (client: ApiClient) => {
    feed = await FeedClient.connect(client.url);
    feed.send({ op: 'login', token: stopper.token });
    feed.send({ op: 'subscribe', id: 1, channels: [{ channel: privateChannel, since: 0 }] });
    await feed.until(() => feed!.messages.some((m) => m.type === 'live'), 'the private channel live', 30_000);
  };
  const privateEvents = (f: FeedClient) => f.messages.filter((m) => m.channel === privateChannel && typeof m.sequence === 'number' && m.type !== 'stats' && m.type !== 'live');

  /** A few conditional orders of every kind, their acknowledged orderIds kept. */
  const conditionalLoad = async (client: ApiClient, enough: () => boolean) => {
    const mark = 95_000;
    while (!enough()) {
      try {
        const far = String(mark - 20_000 - Math.floor(rand() * 1000));
        const kinds = [
          () => submit(stopper, { orderType: 'stopLoss', price: '0.1', quantity: '-0.01', triggerPrice: far, expiresAt: rand() < 0.5 ? Date.now() + 500 + Math.floor(rand() * 3000) : 0 }),
          () => submitBatch(stopper, Array.from({ length: 4 }, () => ({ orderType: 'twap', price: String(mark - 5000), quantity: '0.001', period: 100 + Math.floor(rand() * 400) }))),
          () => submitBatch(stopper, Array.from({ length: 3 }, () => ({ orderType: 'iceberg', price: String(mark - 6000), quantity: '0.001' }))),
          () => submit(stopper, { orderType: 'limit', price: String(mark - 7000), quantity: '0.002', clientId: `rest-${rand()}` }),
        ];
        const reply = await pick(kinds)();
        if (reply.status === 200) {
          const body = reply.json();
          for (const o of Array.isArray(body) ? body : (body.orders ?? [body])) if (o.orderId) conditional.set(o.orderId, o.status);
        }
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20 + rand() * 80));
    }
  };

  const verify = async (client: ApiClient, round: string) => {
    await checkAcknowledged(client, accounts, PIPELINES, acked.values(), round, { fills: true });
    for (const orderId of conditional.keys()) {
      const r = await withinBudget(() => client.request('GET', `/account/order?orderId=${orderId}`, undefined, stopper.auth()));
      assert.equal(r.status, 200, `${round}: acknowledged conditional order ${orderId} lost: ${r.text}`);
    }
    const state = (await client.operator('GET', '/operator/state-hash')).json();
    assert.equal(state.problem, null, `${round}: invariant broken: ${state.problem}`);
    // The private events sent before are the ones a resume from 0 sends now.
    const resumed = await FeedClient.connect(client.url);
    try {
      resumed.send({ op: 'login', token: stopper.token });
      resumed.send({ op: 'subscribe', id: 1, channels: [{ channel: privateChannel, since: 0 }] });
      await resumed.until(() => resumed.messages.some((m) => m.type === 'live'), 'the resumed private channel live', 30_000);
      const now = new Map(privateEvents(resumed).map((m) => [m.sequence as number, m]));
      for (const [n, event] of sent) {
        assert.ok(now.has(n), `${round}: private event ${n} was sent before the end, a resume from 0 does not send it (newest ${Math.max(0, ...now.keys())})`);
        assert.ok(isDeepStrictEqual(strip(now.get(n)), strip(event)), `${round}: private event ${n} was ${JSON.stringify(event)}, now ${JSON.stringify(now.get(n))}`);
      }
    } finally {
      resumed.socket.terminate();
    }
  };
  /** What a private event says, without what is computed when it is sent. */
  const strip = (m: unknown) => {
    const { stats: _stats, ...rest } = m as Record<string, unknown>;
    return rest;
  };

  const loadUntil = (client: ApiClient, enough: () => boolean) => Promise.all([crossingLoad(client, accounts, PIPELINES, rand, enough, (o) => acked.set(o.orderId, o)), conditionalLoad(client, enough)]);

  await s.stop(true);
  for (let round = 1; round <= ROUNDS; round++) {
    try {
      await chaosRound(round);
    } catch (error) {
      // A dropped connection alone does not say whether the server died: this does.
      for (let waited = 0; server?.exit() === undefined && waited < 1000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      const state = server === undefined ? 'no server' : server.exit() === undefined ? 'the server was running' : `the server had exited (${server.exit()}); its stderr ends: ${server.stderr().slice(-1500)}`;
      const tail = server?.log.slice(-6).map((e) => JSON.stringify(e)).join('\n') ?? '';
      t.diagnostic(`round ${round} failed: ${(error as Error).message}; ${state}; its last log lines:\n${tail}`);
      throw error;
    }
  }
  async function chaosRound(round: number) {
    const end: End = pick(ENDS);
    const env = configuration();
    if (end === 'kill-in-snapshot') env.SNAPSHOT_INTERVAL_MS = '100';
    const label = `round ${round} (${end}, ${env.MARKET_THREADS} market threads, ${env.SIGNATURE_THREADS} signature threads, snapshots ${env.SNAPSHOT_INTERVAL_MS})`;
    const before = acked.size;

    if (end === 'kill-in-replay') {
      const killing = spawnServerProcess([], env, dataDir);
      starting = killing;
      const delay = replayMs * rand();
      await new Promise<void>((resolve) => {
        killing.onLog((e) => e.msg === 'replaying journal' && setTimeout(() => void killing.kill('SIGKILL').then(resolve), delay));
        killing.ready.then(() => killing.kill('SIGKILL').then(resolve), () => resolve());
      });
      await killing.kill('SIGKILL');
      await historyCheck.assertMatches(dataDir);
      t.diagnostic(`${label}: killed ${delay.toFixed(0)} ms into a replay of ~${replayMs} ms (${killing.log.some((e) => e.msg === 'journal replayed') ? 'it had finished' : 'during it'})`);
    }

    s = await start(env);
    await login(s.client);
    await verify(s.client, `${label}, after its start`);
    await subscribe(s.client);
    const f = feed!;

    let stop = false;
    const loading = loadUntil(s.client, () => stop);
    let ended: Promise<void>;
    if (end === 'kill-after-ready') {
      await new Promise((resolve) => setTimeout(resolve, rand() * 300));
      ended = s.kill('SIGKILL');
    } else if (end === 'kill-in-snapshot') {
      const target = s;
      let landed = false;
      let looking = false;
      const deadline = Date.now() + 20_000;
      /** Stopped at `snapshot started`: killed unless its log, read to the end, has that snapshot saved. */
      const look = async (savedBefore: number) => {
        process.kill(target.pid, 'SIGSTOP');
        for (let seen = -1; seen !== target.log.length; ) {
          seen = target.log.length;
          await new Promise((r) => setTimeout(r, 50));
        }
        if (target.log.filter((e) => e.msg === 'snapshot saved').length === savedBefore) {
          landed = true;
          await target.kill('SIGKILL');
        } else process.kill(target.pid, 'SIGCONT');
      };
      while (target.exit() === undefined) {
        if (Date.now() > deadline) {
          await target.kill('SIGKILL');
          break;
        }
        const marks = target.log.filter((e) => e.msg === 'snapshot started' || e.msg === 'snapshot saved');
        const saved = marks.filter((e) => e.msg === 'snapshot saved').length;
        if (!looking && saved >= 1 && acked.size - before >= 500 && marks.at(-1)?.msg === 'snapshot started') {
          looking = true;
          await look(saved).catch(() => {});
          looking = false;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      ended = target.kill('SIGKILL');
      t.diagnostic(`${label}: ${landed ? 'killed during a snapshot' : 'no snapshot caught: killed after 20 s'}`);
    } else {
      await new Promise((resolve) => setTimeout(resolve, 1000 + rand() * 4000));
      ended = s.kill(end === 'sigterm' ? 'SIGTERM' : 'SIGKILL');
    }
    await ended;
    stop = true;
    await loading;
    if (end === 'sigterm') {
      assert.equal(s.exit(), 'exit code 0', `${label}: SIGTERM under load did not stop cleanly: ${s.stderr()}`);
      assert.ok(s.logged('stopped'), `${label}: no 'stopped' line`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const m of privateEvents(f)) sent.set(m.sequence, m);
    f.socket.terminate();
    const history = await historyCheck.assertMatches(dataDir);
    t.diagnostic(`${label}: ${acked.size - before} more orders (${acked.size} in all, ${conditional.size} conditional), ${sent.size} private events seen; history at ${history.projectedSeq} of ${history.lastSeq}`);
  }

  s = await start(configuration());
  await login(s.client);
  await verify(s.client, 'final start');
  await s.stop(true);
  const run = spawnSync(process.execPath, [...nodeArgsFor('src/journal/cli.ts'), 'verify', '--data-dir', join(dataDir, 'journal'), '--replay', bundleOf('src/sequencer/replay-target.ts')], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /snapshots matched \d+, mismatched 0/);
  t.diagnostic(run.stdout.trim().split('\n').slice(-2).join(' / '));
});
