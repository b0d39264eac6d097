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
 * And the takeover, the primary killed:
 *  - just as the standby's journal failed to flush (the primary's last clock tick, no block
 *    after it): the standby must not take the lease — it exits 70 as above, and another standby
 *    started on a new directory takes over with every acknowledged order;
 *  - and the standby's disk filled as it takes the lease over: whichever of its writes fails
 *    (the replica's last snapshot or flush, the primary pipeline's start, its first flush as the
 *    primary), it ends with a fatal line naming the write, and lets the lease go — the key is
 *    deleted, not left to lapse with its name in it — so another node takes over at once.
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
import { openJetStream } from '../../src/replication/jetstream.ts';
import { startNats, type NatsCluster } from './nats-servers.ts';
import { assertSameState, lastWords, readAs, spawnNode, startNode, startPrimaryAnd, untilPrimary } from './nodes.ts';

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

/** What names a failed write of the data directory: LMDB's error (tmpfs answers a full disk either way). */
const FAILED_WRITE = /No space left on device|Input\/output error/;

/**
 * The node said it once, loudly: one fatal `exiting` line with status 70, naming the failed
 * write (`journal storage failed: …`, or `history write failed: …` should history's thread have
 * failed first, its own fatal line before it); every error and fatal line names the failed
 * write, none repeats (no spin), and the process exited 70.
 */
function assertEndedOnItsDisk(node: ServerProcess): string {
  assert.equal(node.exit(), 'exit code 70', `the node did not end by the documented rule within ${WITHIN_MS} ms; ${lastWords(node)}`);
  const exiting = node.log.filter((e) => e.level === 60 && e.exitCode === 70);
  assert.equal(exiting.length, 1, `its exiting lines: ${JSON.stringify(exiting)}`);
  assert.match(String(exiting[0].reason), /^(journal storage failed|history write failed): /);
  const loud = node.log.filter((e) => e.level >= 50);
  for (const e of loud) assert.match(JSON.stringify(e), FAILED_WRITE, `an error line that does not name the failed write: ${JSON.stringify(e)}`);
  const said = loud.map((e) => e.msg);
  assert.deepEqual(said, [...new Set(said)], 'the same error said again and again');
  return exiting[0].reason;
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

  // The standby: said once, exit 70.
  t.diagnostic(`the standby's reason: ${assertEndedOnItsDisk(standby)}`);
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

/** A primary (its own disk, `replicated`), a standby on a small disk, 40 crossing orders acknowledged; the load stopped. */
async function primaryAndStandbyOnSmallDisk(t: import('node:test').TestContext) {
  const disk = smallDisk(t, MOUNT_MB);
  if (disk === null) return null;
  const nats = await startNats(1);
  const options = { nats, leaseMs: LEASE_MS };
  const [primary, standby] = await startPrimaryAnd({ ...options, durability: 'replicated' }, { ...options, role: 'standby', dataDir: join(disk.dir, 'standby'), env: { SNAPSHOT_INTERVAL_MS: '500' } });
  const traders = await fundedTraders(primary.client, 2, '1000000');
  const load = crossingLoad(primary, traders, 'o');
  while (load.acked.length < 40 && load.hung.length === 0) await sleep(20);
  await load.stop();
  assert.deepEqual([load.hung, load.refused], [[], []]);
  return { disk, nats, primary, standby, traders, acked: load.acked };
}

/** The lease's holder URL as NATS has it now (null: deleted, let go). */
async function leaseUrl(nats: NatsCluster): Promise<string | null> {
  const link = await openJetStream(nats.urls.split(','), 1, 'test-lease-reader');
  try {
    const { value } = await link.lease.read();
    return value === null ? null : JSON.parse(new TextDecoder().decode(value)).url;
  } finally {
    await link.close();
  }
}

/** A standby on a new data directory (a normal disk) takes over, and holds every order `acked` lists. */
async function anotherStandbyTakesOver(nats: NatsCluster, acked: Acked[], withinMs: number): Promise<number> {
  const started = Date.now();
  const next = await startNode({ nats, leaseMs: LEASE_MS, role: 'standby' });
  await untilPrimary(next.client, started, withinMs);
  for (const { trader, clientId, orderId } of acked) {
    const read = await readAs(next.client, trader, `/account/order?orderId=${orderId}`);
    assert.equal(read.status, 200, `acknowledged order ${clientId} on the new primary: ${read.text}`);
  }
  return Date.now() - started;
}

/** Every GET /cluster role `node` answered until it exited (polled every 50 ms). */
async function rolesUntilExit(node: ServerProcess): Promise<Set<string>> {
  const roles = new Set<string>();
  for (const end = Date.now() + WITHIN_MS; node.exit() === undefined && Date.now() < end; await sleep(50)) {
    const role = await node.client.request('GET', '/cluster').then((r) => r.json().role as string, () => null);
    if (role !== null) roles.add(role);
  }
  return roles;
}

test('the primary killed as the standby\'s journal fails: the standby takes no lease and exits 70; another standby takes over', { timeout: 3 * 60_000 }, async (t) => {
  const cluster = await primaryAndStandbyOnSmallDisk(t);
  if (cluster === null) return void t.skip(NEEDS_ROOT);
  const { disk, nats, primary, standby, traders, acked } = cluster;
  // The standby's disk fills under the load; the primary is killed as its flush fails.
  const load = crossingLoad(primary, traders, 'k');
  disk.fill(LEFT_KB * 1024);
  await standby.untilLogged((e) => e.msg === 'journal storage failed: no further writes are accepted', "the standby's failed flush", WITHIN_MS);
  await primary.kill('SIGKILL');
  await load.stop();
  const roles = await rolesUntilExit(standby);
  assert.equal(standby.log.find((e) => /lease taken|promoted/.test(e.msg)), undefined, `the standby took the lease with a failed journal; roles it answered: ${[...roles]}`);
  assert.ok(!roles.has('primary'), `the standby answered role primary with a failed journal: ${[...roles]}`);
  assertEndedOnItsDisk(standby);
  const ms = await anotherStandbyTakesOver(nats, [...acked, ...load.acked], 30_000);
  t.diagnostic(`another standby took over in ${ms} ms with all ${acked.length + load.acked.length} acknowledged orders`);
});

test('the standby\'s disk fills as it takes over: it ends with a fatal line naming the write and lets the lease go', { timeout: 3 * 60_000 }, async (t) => {
  const cluster = await primaryAndStandbyOnSmallDisk(t);
  if (cluster === null) return void t.skip(NEEDS_ROOT);
  const { disk, nats, primary, standby, traders, acked } = cluster;
  const standbyUrl = `http://127.0.0.1:${standby.port}`;
  await primary.kill('SIGKILL');
  await standby.untilLogged((e) => e.msg === 'lease taken: applying the rest of the journal stream', 'the lease taken', 30_000);
  disk.fill(0);
  // Promoted before the disk was full (an idle journal reuses its pages): the first orders fill it.
  const load = crossingLoad(standby, traders, 'n');
  const exit = await exitOf(standby);
  await load.stop();
  const fatal = standby.log.filter((e) => e.level === 60);
  t.diagnostic(`the standby: ${exit}; promoted: ${standby.log.some((e) => e.msg === 'promoted: this node is now the primary')}; ${load.acked.length} orders acknowledged by it; its fatal lines: ${JSON.stringify(fatal.map((e) => e.reason ?? e.err?.message ?? e.msg))}`);
  assert.notEqual(exit, undefined, `the standby went on with a full disk; ${lastWords(standby)}`);
  assert.ok(fatal.length >= 1 && fatal.every((e) => FAILED_WRITE.test(JSON.stringify(e))), `the fatal lines name the failed write: ${JSON.stringify(fatal)}`);
  // Let go: the key deleted, not left with this node's name until it lapses.
  assert.notEqual(await leaseUrl(nats), standbyUrl, 'the standby ended holding the lease: another node waits for it to lapse');
  const ms = await anotherStandbyTakesOver(nats, [...acked, ...load.acked], 30_000);
  t.diagnostic(`another standby took over in ${ms} ms with all ${acked.length + load.acked.length} acknowledged orders`);
});
