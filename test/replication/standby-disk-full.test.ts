/**
 * A standby's disk fills up, the way an operator meets it: a primary on its own (normal) data
 * directory, a standby whose data directory is on a small file system (a tmpfs mounted for the
 * test), filled by something else while traders send crossing orders to the primary, until the
 * standby's journal appends (and its history and snapshot writes) fail. Then the space comes
 * back and the standby is restarted on the same directory.
 *
 * What must hold (docs/replication.md "A replica's or standby's disk", docs/operations.md
 * "When a thread dies"):
 *  - the primary keeps serving: every order is answered 200 while the standby's disk is full and
 *    after the standby has gone, and every one it acknowledged is there — its durability is its
 *    own disk and JetStream, never a standby's;
 *  - the standby does not hang, spin or keep serving a state its disk no longer holds: one fatal
 *    line naming the failed write (`journal storage failed: …` or `history write failed: …`),
 *    then exit status 70, as the primary's thread death — a process manager restarts it;
 *  - it never takes the lease while it cannot write: the primary stays the holder throughout;
 *  - a restart while the disk is still full (the process manager's) ends with its reason or
 *    serves, within a bound, and takes no lease;
 *  - once there is space, the standby restarted on the same directory catches up from the stream
 *    to the primary's state hash at the same seq, holds every acknowledged order, and its
 *    directory passes `journal verify --replay` (snapshots included).
 *
 * And the takeover: the primary killed while the standby's disk is full. The standby must not
 * become a primary that cannot write: either it has already exited, or its start of the primary
 * pipeline fails, it lets the lease go (deleted, not left to expire) and exits 70.
 * Needs root (it mounts a tmpfs); skipped otherwise, with the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fundedTraders, type Trader } from '../e2e/harness.ts';
import { bundleOf, nodeArgsFor } from '../e2e/processes.ts';
import type { ServerProcess } from '../e2e/server-process.ts';
import { NEEDS_ROOT, smallDisk } from '../e2e/small-disk.ts';
import { startNats } from './nats-servers.ts';
import { assertSameState, lastWords, readAs, spawnNode, startNode, startPrimaryAnd } from './nodes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LEASE_MS = 1500;
const MOUNT_MB = 64;
/** Space left to the standby once the filler is written: a few seconds of the primary's journal. */
const LEFT_KB = 512;
/** An answer or an exit later than this counts as hanging. */
const WITHIN_MS = 20_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `request`, or 'hung' when no answer came within WITHIN_MS. */
async function answered<T>(request: Promise<T>): Promise<T | 'hung'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), WITHIN_MS)));
  try {
    return await Promise.race([request, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once `node` has exited (its exit), or with undefined after WITHIN_MS. */
async function exitOf(node: { exit(): string | undefined }): Promise<string | undefined> {
  for (const end = Date.now() + WITHIN_MS; node.exit() === undefined && Date.now() < end; ) await sleep(50);
  return node.exit();
}

interface Acked {
  trader: Trader;
  orderId: string;
  clientId: string;
}

/** Two traders sending crossing orders to `primary` one at a time each, until `stop` says so; every answer counted. */
function crossingLoad(primary: ServerProcess, traders: Trader[], prefix: string) {
  const acked: Acked[] = [];
  const refused: string[] = [];
  const hung: string[] = [];
  let stopped = false;
  const running = traders.map(async (trader, n) => {
    trader.ex = primary.client;
    for (let i = 0; !stopped; i++) {
      const clientId = `${prefix}${n}-${i}`;
      const reply = await answered(trader.place({ price: '95000', quantity: n % 2 === 0 ? '0.001' : '-0.001', clientId }).catch((error: Error) => error));
      if (reply === 'hung') return void hung.push(clientId);
      if (reply instanceof Error) refused.push(`${clientId}: ${reply.message}`);
      else if (reply.status === 200) acked.push({ trader, clientId, orderId: reply.json()[0].orderId });
      else refused.push(`${clientId}: ${reply.status} ${reply.text.slice(0, 120)}`);
    }
  });
  return {
    acked,
    refused,
    hung,
    stop: async () => {
      stopped = true;
      await Promise.all(running);
    },
  };
}

test("a standby's full disk: the primary serves on, the standby exits 70 with one fatal line and no lease, and catches up once there is space", { timeout: 5 * 60_000 }, async (t) => {
  const disk = smallDisk(t, MOUNT_MB);
  if (disk === null) return void t.skip(NEEDS_ROOT);
  const nats = await startNats(1);
  const options = { nats, leaseMs: LEASE_MS };
  const standbyOptions = { ...options, role: 'standby' as const, dataDir: join(disk.dir, 'standby'), env: { SNAPSHOT_INTERVAL_MS: '500' } };
  const [primary, standby] = await startPrimaryAnd({ ...options, durability: 'replicated' }, standbyOptions);
  const traders = await fundedTraders(primary.client, 2, '1000000');

  // Orders on a healthy disk, then the standby's fills under the load.
  const load = crossingLoad(primary, traders, 'o');
  while (load.acked.length < 40 && load.hung.length === 0) await sleep(20);
  disk.fill(LEFT_KB * 1024);
  const ackedAtFill = load.acked.length;
  const exit = await exitOf(standby);
  const ackedAtExit = load.acked.length;
  // The primary goes on after the standby is gone.
  while (load.acked.length < ackedAtExit + 40 && load.hung.length === 0 && load.refused.length === 0) await sleep(20);
  await load.stop();
  t.diagnostic(`${ackedAtFill} orders acknowledged before the standby's disk filled, ${ackedAtExit - ackedAtFill} until it ended (${exit}), ${load.acked.length - ackedAtExit} after`);

  // The primary: every order answered, and answered 200.
  assert.deepEqual(load.hung, [], `the primary left orders unanswered while the standby's disk was full; ${lastWords(primary)}`);
  assert.deepEqual(load.refused, [], 'the primary refused orders because a standby\'s disk was full');
  const cluster = (await primary.client.request('GET', '/cluster')).json();
  assert.equal(cluster.role, 'primary');

  // The standby: one fatal line naming the failed write, exit 70.
  assert.equal(exit, 'exit code 70', `the standby did not end by the documented rule within ${WITHIN_MS} ms; ${lastWords(standby)}`);
  const fatal = standby.log.filter((e) => e.level === 60);
  assert.equal(fatal.length, 1, `the standby's fatal lines: ${JSON.stringify(fatal)}`);
  assert.match(String(fatal[0].reason), /^(journal storage failed|history write failed): .*(No space left on device|Input\/output error)/, `the fatal line names the failed write: ${JSON.stringify(fatal[0])}`);
  t.diagnostic(`the standby's fatal line: ${JSON.stringify(fatal[0])}`);
  // It never took the lease: the primary held it throughout.
  assert.equal(standby.log.find((e) => /lease taken|promoted/.test(e.msg)), undefined, 'the standby took the lease with a full disk');
  assert.equal(cluster.lease.url, cluster.primary);

  // A process manager restarts it at once, on the disk still full: it ends with its reason, or
  // serves; it takes no lease either way.
  const early = await spawnNode({ ...standbyOptions, port: standby.port });
  const outcome = await answered(early.ready.then(() => 'served', (error: Error) => `refused: ${error.message.slice(0, 200)}`));
  t.diagnostic(`a start on the still-full disk: ${outcome}; its fatal lines: ${JSON.stringify(early.log.filter((e) => e.level === 60))}`);
  await early.kill('SIGKILL');
  assert.notEqual(outcome, 'hung', `a start on the full disk neither served nor ended; stderr: ${early.stderr()}`);
  if (outcome !== 'served') assert.ok(early.log.some((e) => e.level === 60), `a start that failed on the full disk logged no fatal line: ${early.stderr()}`);
  assert.equal(early.log.find((e) => /lease taken|promoted/.test(e.msg)), undefined, 'the restarted standby took the lease with a full disk');

  // Space again: the standby restarted on the same directory catches up to the primary's state.
  disk.free();
  const again = await startNode({ ...standbyOptions, port: standby.port });
  const more = crossingLoad(primary, traders, 'p');
  while (more.acked.length < 20 && more.hung.length === 0) await sleep(20);
  await more.stop();
  const seq = await assertSameState(primary.client, again.client, []);
  t.diagnostic(`the standby restarted with space caught up: the primary's state hash at seq ${seq}`);
  for (const { trader, clientId, orderId } of [...load.acked, ...more.acked]) {
    for (const node of [primary, again]) {
      // A 429 is the trader's read budget (200 a second), not the order missing: wait it out.
      let read = await readAs(node.client, trader, `/account/order?orderId=${orderId}`);
      while (read.status === 429) {
        await sleep(1000);
        read = await readAs(node.client, trader, `/account/order?orderId=${orderId}`);
      }
      assert.equal(read.status, 200, `acknowledged order ${clientId} on ${node === primary ? 'the primary' : 'the standby'}: ${read.text}`);
      assert.equal(read.json().clientId, clientId);
    }
  }

  // Its directory, stopped, passes the operator's check: records, chain, snapshots, invariants.
  await again.stop(true);
  const verify = spawnSync(process.execPath, [...nodeArgsFor('src/journal/cli.ts'), 'verify', '--data-dir', join(standbyOptions.dataDir, 'journal'), '--replay', bundleOf('src/sequencer/replay-target.ts'), '--check-invariants'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  assert.match(verify.stdout, /snapshots matched \d+, mismatched 0/);
  assert.match(verify.stdout, /invariants: held after every record/);
});
