/**
 * Runs the tests with node:test, in two tiers over the same files:
 *
 *  - `npm test` (no argument): every `*.test.ts` under test/, each behaviour in its fastest
 *    faithful form. The files of SCALE run small here (their own defaults: fewer kills, fewer
 *    events), every other file as it is. The files run in SHARDS processes side by side
 *    (`TEST_SHARDS`, default 2, one per core), each process running files one after another
 *    (test/shard.ts: a file's hooks belong to it, the sources load once per process) and taking
 *    the next file of one queue when it is free: LONGEST_FIRST (measured) first, then the rest,
 *    largest first. SERIAL — the files that judge themselves by the wall clock — run afterwards
 *    in one process of their own, so a neighbour's CPU cannot make them late.
 *  - `--scale` (`npm run test:scale`): the files of SCALE again, one process each, at scale
 *    (the environment beside each). `npm run test:all` runs both tiers.
 *
 * A shard's report (node:test's spec reporter) is printed when the shard ends, whole, so that
 * the reports of processes running side by side do not interleave. Extra arguments are passed
 * through to node:test, e.g. `npm test -- --test-name-pattern=cancel`.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The scale tier: each file with the environment that runs it at scale. Without it (in
 * `npm test`) the same file runs its small twin, named beside it: the same behaviour, checked
 * by the same assertions, fewer repetitions.
 */
const SCALE: Record<string, Record<string, string>> = {
  // npm test: 20,000 book events (the event ring of 16,384 wraps, the command ring of 4,096 five
  // times), then the same kills under load, during the replay and during a snapshot.
  'test/e2e/crash-scale.test.ts': { CRASH_SCALE_EVENTS: '100000' },
  // npm test: 3 SIGKILLs under load, each restart verified, then the replayed state hash.
  'test/e2e/crash-restart.test.ts': { CRASH_ROUNDS: '20' },
  // npm test: 3 seeds of 1,500 commands with crashes and torn writes (and the hostile seeds,
  // which run the same in both tiers).
  'test/sim/simulator.test.ts': { SIM_SEEDS: '12', SIM_COMMANDS: '10000' },
  // npm test: 40 random streams of 1,000 commands through the fast and the naive book, compared
  // after every command.
  'test/engine/properties.test.ts': { ENGINE_RUNS: '250' },
  // npm test: 200 fuzz runs (about 1,100 requests, every route drawn, the invariants checked
  // every 20 runs and at the end, the restart's state hash).
  'test/e2e/fuzz.test.ts': { FUZZ_RUNS: '3000' },
  // npm test: the standby follows 1,000 records (and snapshots them) before the primary's kill.
  'test/replication/failover.test.ts': { STANDBY_RECORDS: '3000' },
  // npm test: 10,000 login challenges issued in a row, none stored.
  'test/auth/login.test.ts': { LOGIN_CHALLENGES: '120000' },
  // npm test: a snapshot of 3,000 accounts (each with a position and a resting order) under a
  // write a millisecond; the walk it replaced paused writes over a second at that size.
  'test/e2e/snapshot-under-load.test.ts': { SNAPSHOT_ACCOUNTS: '12000' },
  // npm test: 6 generated rounds (kills under load, in the replay, after ready, in a snapshot, a
  // SIGTERM; the configuration drawn anew at each start), a seed from the clock, named in the test.
  'test/e2e/restart-chaos.test.ts': { CHAOS_ROUNDS: '14' },
  // npm test: 4 rounds of primary and NATS faults (pauses, kills) under signed orders, cancels and
  // transfers, the topology drawn (1 or 3 NATS nodes, 1 or 2 standbys), a seed from the clock,
  // named in the test.
  'test/replication/failover-chaos.test.ts': { FAILOVER_CHAOS_ROUNDS: '16' },
};

/**
 * Files whose assertions are about wall-clock time (a merge window, a bound on how long a write
 * waits, a lease): in `npm test` they run after the concurrent group, one at a time.
 * thread-death's bound (an exit within 10 s of a thread's death) holds beside a neighbour: it ran
 * here when files ran four at a time, and passes beside a CPU hog in 37 s. So does
 * replication/fencing's (a primary SIGSTOPped past its 1.5 s lease is a standby again within
 * 30 s of its SIGCONT): it ran here then too, and beside two busy loops on a machine at load 11
 * it took 26–32 s, its return as a standby about a second of them; its lease is the one
 * replication/failover's standby already waits on in the concurrent group. The request budgets
 * left too: the proxy test's burst is pipelined on one connection (however loaded the machine,
 * it arrives at once; it passes beside two CPU hogs) and the relay test runs in process, where
 * its bursts come at one instant of the exchange's clock. So did three whose bounds are wide or
 * one-sided, each passing three times of three beside two busy loops: the slow consumer's (a
 * byte limit, not a time), the log line's (it must arrive 750 ms before a line logged 1.5 s of
 * wall clock after it) and the flush timing's (a simulated flush of at least 140 ms).
 */
const SERIAL = new Set(['test/e2e/feed-merge.test.ts', 'test/e2e/feed-private-now.test.ts', 'test/e2e/snapshot-under-load.test.ts']);

/**
 * The longest files of the sharded group (8 s or more in a run of `npm test`), longest first,
 * handed out first so that none of them is still running alone at the end; the rest follow,
 * largest first. Re-measured when files move (the `npm test` output prints each file's time).
 */
const LONGEST_FIRST = [
  'test/replication/failover-chaos.test.ts',
  'test/e2e/restart-chaos.test.ts',
  'test/e2e/crash-scale.test.ts',
  'test/e2e/cli.test.ts',
  'test/e2e/thread-death.test.ts',
  'test/e2e/copied-while-running.test.ts',
  'test/e2e/history-rebuild-crash.test.ts',
  'test/e2e/ops-ready-replay.test.ts',
  'test/replication/failover.test.ts',
  'test/replication/replica.test.ts',
  'test/replication/replica-lock.test.ts',
  'test/replication/standby-disk-full.test.ts',
  'test/e2e/fuzz.test.ts',
  'test/sim/simulator.test.ts',
  'test/engine/properties.test.ts',
  'test/e2e/crash-restart.test.ts',
  'test/e2e/damaged-data.test.ts',
  'test/e2e/sigterm.test.ts',
  'test/replication/nats-node-loss.test.ts',
  'test/e2e/compiled-start.test.ts',
  'test/e2e/load-fast-path.test.ts',
  'test/e2e/readme-demo.test.ts',
  'test/e2e/data-directory-lock.test.ts',
  'test/e2e/startup-failures.test.ts',
  'test/e2e/load.test.ts',
  'test/e2e/history-format-upgrade.test.ts',
  'test/e2e/restart-same-port.test.ts',
  'test/e2e/demo.test.ts',
];

/**
 * Where the tests' data directories go (their `tmpdir()`): a directory of its own on tmpfs
 * (/dev/shm) when the machine has one and TMPDIR is not set, removed at the end. On this
 * machine's virtual disk a journal flush waits milliseconds (the exchange logs "slow journal
 * flush"), and the files spent half their wall time waiting on it: `npm test` went from 285 to
 * about 200 s with the same CPU. Nothing tested depends on the disk: a SIGKILL keeps what the
 * process handed the kernel on tmpfs as on a disk, power loss and torn writes are the simulator's
 * (simulated storage), and the flush-timing test uses simulated storage too.
 */
const scratch = process.env.TMPDIR === undefined && existsSync('/dev/shm') ? mkdtempSync('/dev/shm/perp-test-') : undefined;
const testEnv = scratch === undefined ? process.env : { ...process.env, TMPDIR: scratch };

/** Processes running files side by side in `npm test`: one per core of this machine. */
const SHARDS = Number(process.env.TEST_SHARDS ?? 2);

function collect(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Runs `queue` in `shards` shard processes (test/shard.ts), each taking the next file when it
 * is free; prints each file as it ends and each shard's report when the shard ends. True when
 * every shard exited 0 and every file of the queue was reported finished: a shard that ends
 * early, even with exit code 0 (a `process.exit` in some test), fails the run, naming the files
 * it never finished.
 */
async function runSharded(queue: string[], shards: number): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'perp-test-queue-'));
  writeFileSync(join(dir, 'queue.json'), JSON.stringify(queue));
  const finished = new Set<string>();
  const one = (n: number) =>
    new Promise<boolean>((done) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--test-reporter=spec', ...passThrough, 'test/shard.ts'], {
        cwd: root,
        env: { ...testEnv, TEST_QUEUE: dir },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      });
      let report = '';
      child.stdout!.on('data', (chunk) => (report += chunk));
      child.stderr!.on('data', (chunk) => (report += chunk));
      child.on('message', (m: { done: string; ms: number; cpu: number }) => {
        finished.add(m.done);
        cpuTotal += m.cpu;
        console.log(`  ${m.done}  ${seconds(m.ms)}  cpu ${m.cpu.toFixed(1)} s  (shard ${n}, ended at ${seconds(performance.now() - started)})`);
      });
      child.on('close', (code, signal) => {
        console.log(`\n── shard ${n}: ${signal ?? `exit ${code}`} at ${seconds(performance.now() - started)} ──\n${report}`);
        // The spec reporter closes with the failing tests and their errors; kept to print again
        // last, so that whoever reads only the end of the output reads why it failed.
        const failing = report.lastIndexOf('failing tests:');
        if (failing >= 0) failures.push(report.slice(report.lastIndexOf('\n', failing) + 1).trimEnd());
        done(code === 0);
      });
    });
  const results = await Promise.all(Array.from({ length: Math.min(shards, queue.length) }, (_, i) => one(i + 1)));
  rmSync(dir, { recursive: true, force: true });
  const unfinished = queue.filter((file) => !finished.has(file));
  if (unfinished.length > 0) console.log(`never finished (a shard ended before them): ${unfinished.join(', ')}`);
  return results.every(Boolean) && unfinished.length === 0;
}

/** Runs `file` alone in a `node --test` process with `env`: the scale tier. */
function runAlone(file: string, env: Record<string, string>): Promise<boolean> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', ...passThrough, file], { cwd: root, stdio: 'inherit', env: { ...testEnv, ...env } });
    child.on('close', (code) => done(code === 0));
  });
}

const scale = process.argv.includes('--scale');
const passThrough = process.argv.slice(2).filter((a) => a !== '--scale');
const all = collect(join(root, 'test'), []);
for (const file of [...Object.keys(SCALE), ...SERIAL, ...LONGEST_FIRST]) {
  if (!all.includes(file)) throw new Error(`test/run.ts names ${file}, which is not a test file`);
  if (SERIAL.has(file) && LONGEST_FIRST.includes(file)) throw new Error(`test/run.ts lists ${file} both in SERIAL and in LONGEST_FIRST`);
}

const started = performance.now();
/** The CPU seconds of every file so far (test/shard.ts): what the run costs, whatever the machine's cores. */
let cpuTotal = 0;
/** Each failed shard's list of failing tests with their errors, printed again at the end. */
const failures: string[] = [];
let passed = true;
if (scale) {
  for (const [file, env] of Object.entries(SCALE)) passed = (await runAlone(file, env)) && passed;
} else {
  const size = (file: string) => statSync(join(root, file)).size;
  const rest = all.filter((f) => !SERIAL.has(f) && !LONGEST_FIRST.includes(f)).sort((a, b) => size(b) - size(a));
  passed = await runSharded([...LONGEST_FIRST, ...rest], SHARDS);
  passed = (await runSharded(all.filter((f) => SERIAL.has(f)), 1)) && passed;
}
if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
if (failures.length > 0) console.log(`\n── failing tests of every shard ──\n${failures.join('\n')}`);
console.log(`${passed ? 'all tests passed' : 'FAILED'} in ${seconds(performance.now() - started)}${scale ? '' : `, the files' CPU ${cpuTotal.toFixed(1)} s`}`);
process.exit(passed ? 0 : 1);
