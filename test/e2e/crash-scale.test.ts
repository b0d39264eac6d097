/**
 * Restart at scale (issue 12): a server process is driven with signed crossing orders from two
 * accounts until its rings have wrapped (CRASH_SCALE_EVENTS journaled book events:
 * 20,000 by default, in `npm test`, and 100,000 in `npm run test:scale`; the event ring holds
 * 16,384, the command ring 4,096), then killed with SIGKILL in the rounds a restart is most
 * likely to break:
 *  1. under load, from a fresh data directory with no snapshot (the restart replays it all);
 *  2. during the start-up replay of that journal (killed after `replaying journal`, before
 *     `journal replayed`);
 *  3. while a snapshot is being taken and written (snapshots every 100 ms under load, killed
 *     after `snapshot started`, before its `snapshot saved`: the process is stopped at the
 *     first line and killed only if its log, read to the end, has not the second).
 * After every kill, before the restart, history holds nothing the journal lacks
 * (`HistoryCheck`, which projects only the records each round added). After every restart: it serves within RESTART_CPU_LIMIT_S; every
 * acknowledged order is back with its clientId and at least the fills its reply reported, no
 * clientId is on two orders; the invariants hold. At the end the operator tool replays the
 * journal (`npm run journal -- verify --replay`) to every snapshot's state hash.
 *
 * The orders are signed as a client signs them (bench/http/traders.ts: libsecp256k1 over the
 * EIP-712 digest, checked against viem's signTypedData on a sample) and sent as batches of 50
 * (POST /account/orders): one account's 200 requests/s would otherwise cap the load. Each
 * pipeline trades on its own subaccount, so its nonce window sees its nonces in order. In a
 * phase one account rests buys (a tenth far from the market, to stay on the book) and the other
 * sells into them with as much (each sell as large as three buys); the next phase swaps sides, so positions stay bounded and no
 * account ever meets its own order.
 *
 * CRASH_SCALE_EVENTS sets the load (default 20000), CRASH_SCALE_SEED replays a run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDataDir, type ApiClient } from './harness.ts';
import { spawnServerProcess, type ServerProcess } from './server-process.ts';
import { HistoryCheck } from './history-check.ts';
import { checkSignerAgainstViem } from '../../bench/http/traders.ts';
import { checkAcknowledged, crossingLoad, loadAccounts, type AckedOrder } from './crossing-load.ts';
import { eip712Domain } from '../../src/auth/typed-data.ts';
import { PROFILES } from '../../src/config/profile.ts';
import { seeded } from '../../bench/seeded.ts';
import { bundleOf, nodeArgsFor } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EVENTS = Number(process.env.CRASH_SCALE_EVENTS ?? 20_000);
const SEED = Number(process.env.CRASH_SCALE_SEED ?? Date.now() % 1_000_000);
/**
 * A restart serves having used at most this much CPU (every thread of the process, spawn to
 * `exchange ready`): 25 s per 100,000 events, as rounds 1 and 2 replay the whole journal (no
 * snapshot yet). CPU time, not wall time: on a 2-core machine shared with other test runs the
 * same start took 16.7 s in one round and 29.6 s in the next, while its work did not change.
 * The wall time of each restart is printed beside it; docs/journal.md has the figures.
 */
const RESTART_CPU_LIMIT_S = 25 * Math.max(1, EVENTS / 100_000);
/** Concurrent batch streams, each on its own subaccount of both accounts. */
const PIPELINES = 32;
/** Orders of each later load (rounds 3+), enough for many snapshots. */
const SNAPSHOT_ROUND_ORDERS = 4_000;

test(`a server that journaled ${EVENTS} book events restarts after SIGKILL under load, during replay and during a snapshot (seed ${SEED})`, { timeout: 20 * 60_000 }, async (t) => {
  const dataDir = tempDataDir(t, 'perp-crash-scale-');
  const rand = seeded(SEED);
  const acked = new Map<string, AckedOrder>();
  const unacknowledged = { refused: 0 };
  let server: ServerProcess | undefined;
  const started = async (env: Record<string, string>) => {
    const start = spawnServerProcess([], env, dataDir);
    const began = performance.now();
    server = await start.ready;
    return { server, ms: performance.now() - began };
  };
  t.after(() => server?.kill('SIGKILL'));
  const historyCheck = new HistoryCheck();
  t.after(() => historyCheck.close());

  const { server: first } = await started({ SNAPSHOT_INTERVAL_MS: '0' });
  const accounts = await loadAccounts(first.client, PIPELINES);
  const domain = eip712Domain(PROFILES.testnet);
  await checkSignerAgainstViem(domain, accounts[0], { price: '95000', quantity: '0.0001' });
  /** Crossing load (test/e2e/crossing-load) until `enough()` or the server dies; acknowledged orders recorded, refused ones counted. */
  const load = (client: ApiClient, enough: () => boolean) =>
    crossingLoad(client, accounts, PIPELINES, rand, enough, (o) => acked.set(o.orderId, o), (n) => (unacknowledged.refused += n));

  /** Every acknowledged order is listed with its clientId and at least the fills its reply reported; the invariants hold. */
  const verify = async (client: ApiClient, round: string) => {
    const readAlone = await checkAcknowledged(client, accounts, PIPELINES, acked.values(), round);
    const state = (await client.operator('GET', '/operator/state-hash')).json();
    assert.equal(state.problem, null, `${round}: invariant broken after restart: ${state.problem}`);
    return { readAlone, lastSeq: state.lastSeq as number };
  };

  /** After a kill: a server started on the data directory serves within the limit and holds every acknowledged order. */
  const restartAndVerify = async (round: string, env: Record<string, string>) => {
    // History holds nothing the journal lacks (issue 12, fault 1), checked on the dead server's directory.
    const history = await historyCheck.assertMatches(dataDir);
    const { server, ms } = await started(env);
    assert.ok(server.startCpuSeconds <= RESTART_CPU_LIMIT_S, `${round}: the restart used ${server.startCpuSeconds} s of CPU (bound ${RESTART_CPU_LIMIT_S} s) in ${ms.toFixed(0)} ms`);
    const checked = await verify(server.client, round);
    return { server, ms, history, replayed: server.logged('journal replayed')!, ...checked };
  };

  // Round 1: load from a fresh data directory until the journal holds EVENTS book events, kill under load.
  const loadStarted = performance.now();
  let journaled = 0;
  let polling = true;
  const poll = (async () => {
    while (polling) {
      await new Promise((r) => setTimeout(r, 500));
      try {
        journaled = (await first.client.operator('GET', '/operator/state-hash')).json().lastSeq;
      } catch {
        return;
      }
    }
  })();
  // lastSeq counts commands too; the events are checked exactly from the restart's log.
  await load(first.client, () => journaled - acked.size >= EVENTS);
  polling = false;
  await poll;
  let loadAgain = load(first.client, () => false);
  await new Promise((r) => setTimeout(r, 200 + rand() * 300));
  await first.kill('SIGKILL');
  await loadAgain;
  const loadSeconds = (performance.now() - loadStarted) / 1000;

  let restart = await restartAndVerify('round 1', { SNAPSHOT_INTERVAL_MS: '0' });
  const { replayed } = restart;
  t.diagnostic(
    `round 1: ${acked.size} acknowledged orders (${unacknowledged.refused} refused) in ${loadSeconds.toFixed(1)} s; the restart replayed ${replayed.commands} commands and ${replayed.events} book events (last seq ${replayed.lastSeq}), served after ${restart.ms.toFixed(0)} ms (${restart.server.startCpuSeconds} s of CPU), verified (${restart.readAlone} orders read one by one; history at seq ${restart.history.projectedSeq} of ${restart.history.lastSeq} before it)`,
  );
  assert.ok(replayed.events >= EVENTS, `the load journaled only ${replayed.events} book events`);

  // Round 2: SIGKILL during the start-up replay of the same journal, then a full restart. The
  // kill comes a fraction of the last replay's time after `replaying journal`; a kill that
  // misses (a faster replay) is tried again sooner.
  await restart.server.kill('SIGKILL');
  const replayMs = replayed.time - restart.server.logged('replaying journal')!.time;
  let killedAfter = -1;
  for (const fraction of [0.4, 0.2, 0.1, 0]) {
    const starting = spawnServerProcess([], { SNAPSHOT_INTERVAL_MS: '0' }, dataDir);
    const killed = new Promise<void>((resolve) =>
      starting.onLog((entry) => {
        if (entry.msg === 'replaying journal') setTimeout(() => void starting.kill('SIGKILL').then(resolve), replayMs * fraction);
      }),
    );
    await Promise.race([killed, starting.ready.then(() => {}, () => {})]);
    await starting.kill('SIGKILL');
    const messages = starting.log.map((e) => e.msg);
    assert.ok(messages.includes('replaying journal'), `round 2: the start did not reach the replay (log: ${messages.join(', ')}; ${starting.stderr()})`);
    if (!messages.includes('journal replayed')) {
      killedAfter = replayMs * fraction;
      break;
    }
  }
  assert.ok(killedAfter >= 0, `round 2: no kill landed during a replay of ${replayMs} ms`);
  // This restart replays the whole journal again; the snapshots it takes once serving (every
  // 100 ms while the testnet's index moves) spare round 3's start that replay.
  restart = await restartAndVerify('round 2', { SNAPSHOT_INTERVAL_MS: '100' });
  t.diagnostic(`round 2: killed ${killedAfter.toFixed(0)} ms into a ${replayMs} ms replay; restart served after ${restart.ms.toFixed(0)} ms (${restart.server.startCpuSeconds} s of CPU), verified`);
  await restart.server.kill('SIGKILL');

  // Rounds 3+: snapshots every 100 ms under load; once the load is under way and two were saved,
  // the process is stopped (SIGSTOP) as soon as one starts and its log read to the end: if that
  // snapshot is not saved, SIGKILL lands during it; if it was (this process read the line late),
  // the process goes on (SIGCONT) and the next snapshot is tried. A round ends with a kill, or
  // with its load done and a kill between snapshots; rounds go on until one lands.
  let landed = 0;
  const snapshotMs: number[] = [];
  for (let round = 3; landed === 0 && round < 8; round++) {
    const start = spawnServerProcess([], { SNAPSHOT_INTERVAL_MS: '100', LOG_LEVEL: 'debug' }, dataDir);
    const before = acked.size;
    let saved = 0;
    let startedAt = 0;
    let killed: Promise<void> | undefined;
    let looking = false;
    /** Stops the process mid-snapshot as far as its log says, then kills it or lets it go on. */
    const stopAndLook = async () => {
      const savedBefore = saved;
      process.kill(start.pid, 'SIGSTOP');
      // Everything the stopped process wrote is in the pipe: read until nothing more comes.
      for (let seen = -1; seen !== start.log.length; ) {
        seen = start.log.length;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (saved === savedBefore) killed ??= start.kill('SIGKILL');
      // Its load may have ended and killed it meanwhile: then there is nothing to continue.
      else if (killed === undefined && start.exit() === undefined) process.kill(start.pid, 'SIGCONT');
    };
    start.onLog((entry) => {
      if (entry.msg === 'snapshot saved') {
        saved++;
        snapshotMs.push(entry.time - startedAt);
      }
      if (entry.msg !== 'snapshot started') return;
      startedAt = entry.time;
      if (looking || killed !== undefined || saved < 2 || acked.size - before < SNAPSHOT_ROUND_ORDERS / 4) return;
      looking = true;
      stopAndLook()
        .catch(() => {}) // a process that exited between the look and the signal (ESRCH)
        .finally(() => (looking = false));
    });
    const loaded = await start.ready;
    await load(loaded.client, () => killed !== undefined || acked.size - before >= SNAPSHOT_ROUND_ORDERS);
    await (killed ??= loaded.kill('SIGKILL'));
    const lastEntry = loaded.log.filter((e) => e.msg === 'snapshot started' || e.msg === 'snapshot saved').pop();
    const during = lastEntry?.msg === 'snapshot started';
    if (during) landed++;
    restart = await restartAndVerify(`round ${round}`, { SNAPSHOT_INTERVAL_MS: '100' });
    const from = restart.replayed;
    t.diagnostic(
      `round ${round}: ${acked.size - before} more orders, ${saved} snapshots saved, killed ${during ? 'during a snapshot' : 'between snapshots'}; restart from snapshot ${from.snapshotSeq} (+${from.commands} commands, ${from.events} events) served after ${restart.ms.toFixed(0)} ms (${restart.server.startCpuSeconds} s of CPU), verified`,
    );
    await restart.server.kill('SIGKILL');
  }
  assert.ok(landed > 0, 'no kill landed during a snapshot');
  snapshotMs.sort((a, b) => a - b);
  t.diagnostic(`snapshots under load took ${snapshotMs[0]}–${snapshotMs[snapshotMs.length - 1]} ms (median ${snapshotMs[snapshotMs.length >> 1]}) from start to saved`);

  // The operator tool replays the whole journal to every snapshot's state hash.
  const verifyStarted = performance.now();
  const run = spawnSync(process.execPath, [...nodeArgsFor('src/journal/cli.ts'), 'verify', '--data-dir', join(dataDir, 'journal'), '--replay', bundleOf('src/sequencer/replay-target.ts')], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /checksums, sequence and hash chain OK/);
  assert.match(run.stdout, /snapshots matched [1-9]\d*, mismatched 0/);
  t.diagnostic(`${acked.size} acknowledged orders over all rounds, last seq ${restart.lastSeq}; journal verify --replay in ${((performance.now() - verifyStarted) / 1000).toFixed(1)} s: ${run.stdout.trim().split('\n').slice(-2).join(' / ')}`);
});
