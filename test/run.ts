/**
 * Runs the tests with node:test, in two tiers over the same files:
 *
 *  - `npm test` (no argument): every `*.test.ts` under test/, each behaviour in its fastest
 *    faithful form. The files of SCALE run small here (their own defaults: fewer kills, fewer
 *    events), every other file as it is. Files run in their own processes, CONCURRENCY at a
 *    time (`TEST_CONCURRENCY`, default 1), except SERIAL: the files that judge themselves by the wall clock run afterwards, one
 *    at a time, so a neighbour's CPU cannot make them late.
 *  - `--scale` (`npm run test:scale`): the files of SCALE again, one at a time, at scale (the
 *    environment beside each). `npm run test:all` runs both tiers.
 *
 * Node 20's `--test` does not expand globs, so the files are listed here. Extra arguments are
 * passed through to node:test, e.g. `npm test -- --test-name-pattern=cancel`.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
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
};

/**
 * Files whose assertions are about wall-clock time (a merge window, a bound on how long a write
 * waits, a child order due at +400 ms, an exit within seconds, a budget of 200 requests a
 * second spent by one burst, which a client short of CPU cannot send fast enough): in `npm test`
 * they run after the concurrent group, one at a time.
 */
const SERIAL = new Set([
  'test/e2e/api-auth.test.ts',
  'test/e2e/api-proxy.test.ts',
  'test/e2e/api-relay.test.ts',
  'test/e2e/conditional-twap.test.ts',
  'test/e2e/feed-merge.test.ts',
  'test/e2e/feed-private-now.test.ts',
  'test/e2e/feed-slow-consumer.test.ts',
  'test/e2e/snapshot-under-load.test.ts',
  'test/e2e/thread-death.test.ts',
  'test/journal/flush-timing.test.ts',
  'test/log-lines.test.ts',
]);

/**
 * The longest files of the concurrent group, started first so that none of them is still
 * running alone at the end (node:test starts files in the order given).
 */
const LONGEST_FIRST = [
  'test/e2e/crash-scale.test.ts',
  'test/e2e/crash-restart.test.ts',
  'test/replication/standby-snapshot.test.ts',
  'test/replication/failover.test.ts',
  'test/replication/nats-node-loss.test.ts',
  'test/replication/diverged-journal.test.ts',
  'test/replication/fencing.test.ts',
];

/**
 * Test files run at once in the concurrent group (most of their time is spent waiting on servers
 * they started). 1 until `TEST_CONCURRENCY=4` has three green runs in a row (docs/decisions.md).
 */
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? 1);

function collect(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

/** Runs `files` with node:test, `concurrency` files at a time; true when every test passed. */
function run(files: string[], concurrency: number, env: Record<string, string> = {}): boolean {
  if (files.length === 0) return true;
  const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...passThrough, ...files];
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status === 0;
}

const scale = process.argv.includes('--scale');
const passThrough = process.argv.slice(2).filter((a) => a !== '--scale');
const all = collect(join(root, 'test'), []);
for (const file of [...Object.keys(SCALE), ...SERIAL, ...LONGEST_FIRST]) {
  if (!all.includes(file)) throw new Error(`test/run.ts names ${file}, which is not a test file`);
}

let passed = true;
if (scale) {
  for (const [file, env] of Object.entries(SCALE)) passed = run([file], 1, env) && passed;
} else {
  const concurrent = [...LONGEST_FIRST, ...all.filter((f) => !SERIAL.has(f) && !LONGEST_FIRST.includes(f))];
  passed = run(concurrent, CONCURRENCY);
  passed = run(all.filter((f) => SERIAL.has(f)), 1) && passed;
}
process.exit(passed ? 0 : 1);
