/**
 * One process running test files one after another (test/run.ts starts a few of these side by
 * side). Each file is imported inside a suite named after it, so its tests report under its
 * name and its top-level `before`/`after` hooks belong to that suite: an exchange a file starts
 * is stopped when that file ends, not when the process does. The sources load through tsx once
 * per process instead of once per file, which was most of what a small file cost.
 *
 * Which file next: the queue is `queue.json` in the directory `TEST_QUEUE` names, and a shard
 * takes the next entry nobody has by creating the directory `claim-N` beside it (creation is
 * atomic: one process wins). The claim is synchronous on purpose: node:test ends its run as soon
 * as no test is pending, so the next suite must be declared in the same turn the last one ended.
 * Each file's time, wall and CPU, goes to test/run.ts over node's IPC channel, when there is
 * one. Run by hand,
 * without a queue: `node --import tsx test/shard.ts FILE...`.
 *
 * One rule for a test file: at its top level, `await` only what it started itself. Awaiting a
 * promise another file may have settled already (a module-level `ready` promise) continues in
 * that file's context, not this suite's (node 20): the tests declared after it are lost to the
 * suite and fail with "test could not be started because its parent finished". Wait for such a
 * promise in a `before` hook.
 *
 * The process ends when its last file has: a handle some test left open does not keep it alive
 * (the exit code is node:test's, set when the run ended).
 */
import { describe } from 'node:test';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const queueDir = process.env.TEST_QUEUE;
const queue: string[] = queueDir === undefined ? process.argv.slice(2) : JSON.parse(readFileSync(join(queueDir, 'queue.json'), 'utf8'));
let position = 0;

/** The next file of the queue nobody has taken, now taken by this process; null when none is left. */
function claim(): string | null {
  for (; position < queue.length; position++) {
    if (queueDir === undefined) return queue[position++]!;
    try {
      mkdirSync(join(queueDir, `claim-${position}`));
      return queue[position++]!;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return null;
}

/**
 * CPU seconds of this process (every thread) and of its children that have ended and been
 * waited for (the exchange processes, NATS servers and commands a test started): `utime`,
 * `stime`, `cutime`, `cstime` of /proc/self/stat, in the kernel's 100 ticks a second. A file's
 * CPU is what it costs whatever its neighbour does to its wall time.
 */
function cpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
}

/**
 * How long one file may run (ms; `TEST_FILE_TIMEOUT_MS`): the longest take under a minute, so
 * a file still running at 5 minutes hangs — it fails, named, and the shard goes on, where a
 * promise no test settled kept the whole run waiting (a client feed that never said `closed`).
 */
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 300_000);

for (let file = claim(); file !== null; file = claim()) {
  const started = performance.now();
  const cpuBefore = cpuSeconds();
  await describe(file, { timeout: FILE_TIMEOUT_MS }, async () => {
    await import(pathToFileURL(resolve(file!)).href);
  });
  process.send?.({ done: file, ms: performance.now() - started, cpu: cpuSeconds() - cpuBefore });
}
process.disconnect?.();
// A timer or socket some test left open must not hold the shard (and the whole run) forever.
// Not a root `after` hook: node:test runs those each time its pending tests run out, which
// here is between two files. By the time this fires, the run has ended and set the exit code.
setTimeout(() => process.exit(), 3_000).unref();
