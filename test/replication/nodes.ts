/**
 * Exchange nodes for the replication tests: `src/main.ts` processes (test/e2e/server-process)
 * with `--nats`, a role and one JWT secret for all (a token from the primary reads on a
 * replica), on ports chosen up front so a node keeps its URL across a restart or a takeover,
 * stopped after the test before their NATS servers; and the reads that compare two nodes at
 * the same journal sequence.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { spawnServerProcess, type ServerProcess, type StartingServerProcess } from '../e2e/server-process.ts';
import { apiClient, type ApiClient, type Trader } from '../e2e/harness.ts';
import { freePort, type NatsCluster } from './nats-servers.ts';

export const JWT_SECRET = 'replication-test-secret-of-forty-characters';

export interface NodeOptions {
  /** The servers it connects to (`--nats`), which stop it before they stop. */
  nats: NatsCluster;
  role?: 'primary' | 'replica' | 'standby';
  durability?: 'local' | 'replicated';
  leaseMs?: number;
  natsReplicas?: number;
  port?: number;
  dataDir?: string;
  /** Extra environment of the process (e.g. the inspector, test/e2e/end-thread). */
  env?: Record<string, string>;
}

/**
 * The last node started on each data directory: the one whose stop removes it. A node started
 * again on another's directory (a restart, a returning primary) is stopped together with the
 * one before it, which must not remove the directory from under it.
 */
const lastOn = new Map<string, object>();

/** A node's process (not waited for) and the port and data directory it was given. */
export async function spawnNode(options: NodeOptions): Promise<StartingServerProcess & { port: number; client: ApiClient }> {
  const port = options.port ?? (await freePort());
  const args = ['--port', String(port), '--nats', options.nats.urls, '--role', options.role ?? 'primary', '--jwt-secret', JWT_SECRET, '--lease-ms', String(options.leaseMs ?? 1500)];
  if (options.durability) args.push('--durability', options.durability);
  if (options.natsReplicas) args.push('--nats-replicas', String(options.natsReplicas));
  // server-process puts `--port 0` first; a later flag wins in parseArgs.
  const starting = spawnServerProcess(args, options.env ?? {}, options.dataDir);
  const me = {};
  lastOn.set(starting.dataDir, me);
  let ready: ServerProcess | undefined;
  starting.ready.then((node) => (ready = node), () => {});
  options.nats.stopsFirst(async () => {
    // Resumed first, should the test have paused it (SIGSTOP).
    if (starting.exit() === undefined) process.kill(starting.pid, 'SIGCONT');
    // A node that served is stopped (a stop that hangs fails the test), a start the test left
    // under way cancelled; either way the data directory is removed, by its last node.
    const owner = lastOn.get(starting.dataDir) === me;
    if (owner) lastOn.delete(starting.dataDir);
    if (ready !== undefined) return ready.stop(!owner);
    await starting.kill('SIGTERM');
    if (owner) rmSync(starting.dataDir, { recursive: true, force: true });
  });
  return { ...starting, port, client: apiClient(`http://127.0.0.1:${port}`) };
}

export async function startNode(options: NodeOptions): Promise<ServerProcess> {
  return (await spawnNode(options)).ready;
}

/**
 * A primary and the node that follows it, started side by side (a start is a second or two of
 * CPU, most of it loading modules): the follower once the primary holds the lease and has made
 * the stream and the lease bucket. A standby finding the lease free would take it and lead; and
 * with a replica started beside it, a primary on a 3-node cluster of a loaded machine once timed
 * out (5 s) reading the lease it had just made.
 */
export async function startPrimaryAnd(primary: Omit<NodeOptions, 'role'>, follower: NodeOptions & { role: 'replica' | 'standby' }): Promise<[ServerProcess, ServerProcess]> {
  const leading = await spawnNode(primary);
  await untilLeading(leading);
  const following = await spawnNode(follower);
  return Promise.all([leading.ready, following.ready]);
}

/** Resolves once a starting primary holds the lease and has made the stream and the lease bucket (before it is ready); rejects if it exits first. */
export function untilLeading(primary: StartingServerProcess): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const holds = (entry: Record<string, any>) => entry.msg === 'primary: journal shipped to JetStream';
    if (primary.log.some(holds)) return resolve();
    primary.onLog((entry) => holds(entry) && resolve());
    primary.ready.catch(reject);
  });
}

/** A GET of the trader's account on another node, with the token the primary gave it. */
export function readAs(node: ApiClient, trader: Trader, path: string) {
  return node.request('GET', path, undefined, trader.auth());
}

export interface StateAt {
  seq: number;
  hash: any;
  reads: string[];
}

/**
 * The state hash and `paths` read from `node` with nothing journaled between the first read
 * and the last (the journal's last seq the same before and after).
 */
export async function stateAt(node: ApiClient, paths: readonly string[], auth: Record<string, string> = {}): Promise<StateAt> {
  for (;;) {
    const before = (await node.operator('GET', '/operator/state-hash')).json();
    // GET /book says when it answered (`time`): the one field that is not the state's.
    const reads = await Promise.all(paths.map(async (p) => (await node.request('GET', p, undefined, auth)).text.replace(/,"time":\d+/, '')));
    const after = (await node.operator('GET', '/operator/state-hash')).json();
    if (before.lastSeq === after.lastSeq) return { seq: after.lastSeq, hash: after, reads };
  }
}

/**
 * Reads the primary and the replica until both are at one journal seq, and checks they agree
 * there: the state hash at once; the reads once the replica's history has caught up with its
 * journal (account orders and fills are read from history, which a replica projects a moment
 * after it applies a record — docs/replication.md), failing if they still differ at `within`.
 */
export async function assertSameState(primary: ApiClient, replica: ApiClient, paths: readonly string[], auth: Record<string, string> = {}, within = 10_000): Promise<number> {
  const until = Date.now() + within;
  for (;;) {
    const p = await stateAt(primary, paths, auth);
    let r = await stateAt(replica, paths, auth);
    // Paced: a node serves a source address at most 200 requests a second, and a replica a
    // moment behind would otherwise be asked several hundred times (429, not its state).
    while (r.seq < p.seq && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      r = await stateAt(replica, paths, auth);
    }
    if (r.seq === p.seq) {
      assert.equal(r.hash.problem, null);
      assert.deepEqual(r.hash, p.hash, `state hash at seq ${p.seq}`);
      const differs = paths.findIndex((_, i) => r.reads[i] !== p.reads[i]);
      if (differs < 0) return p.seq;
      if (Date.now() > until) assert.equal(r.reads[differs], p.reads[differs], `${paths[differs]} at seq ${p.seq}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      continue;
    }
    // The primary journaled something meanwhile (its clock's tick): read both again.
    if (Date.now() > until) assert.fail(`the replica never reached the primary's seq ${p.seq} (it is at ${r.seq})`);
  }
}

/**
 * Polls `node`'s GET /cluster until it says `primary`; resolves with the ms since `since`. While
 * its port moves from the replica's gateway to the primary's it may refuse or answer 503.
 */
export async function untilPrimary(node: ApiClient, since: number, withinMs = 60_000): Promise<number> {
  for (let role = ''; role !== 'primary'; await new Promise((resolve) => setTimeout(resolve, 50))) {
    assert.ok(Date.now() - since < withinMs, `the standby took over within ${withinMs} ms`);
    role = await node.request('GET', '/cluster').then((r) => r.json().role).catch(() => '');
  }
  return Date.now() - since;
}

/**
 * A primary frozen past its lease and a standby that took over: pauses `old` (SIGSTOP: a long GC
 * pause, a frozen VM) until `standby` leads, then places `on-new-primary` there through `trader`
 * (left pointed at the new primary) and returns its URL. `old` stays paused: the test resumes it
 * (SIGCONT) once what it wants to see on the way back is set up.
 */
export async function frozenPastLease(old: ServerProcess, standby: ServerProcess, trader: Trader): Promise<string> {
  process.kill(old.pid, 'SIGSTOP');
  await untilPrimary(standby.client, Date.now());
  trader.ex = standby.client;
  assert.equal((await trader.place({ price: '90001', quantity: '0.001', clientId: 'on-new-primary' })).status, 200);
  return `http://127.0.0.1:${standby.port}`;
}

/** What a node's process said before a wait on it failed: its exit, the end of its stderr, its last log lines. */
export function lastWords(node: ServerProcess): string {
  return `its exit ${node.exit()}, stderr ${node.stderr().slice(-400)}, last log lines:\n${node.log.slice(-12).map((e) => JSON.stringify(e)).join('\n')}`;
}

/**
 * Polls `node`'s GET /cluster until it says `standby` naming `primary` (a deposed primary
 * following the stream); resolves with that answer, or fails with the node's last words.
 */
export async function untilStandbyOf(node: ServerProcess, primary: string, withinMs = 30_000): Promise<Record<string, any>> {
  let cluster: any;
  for (const end = Date.now() + withinMs; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 100))) {
    cluster = await node.client.request('GET', '/cluster').then((r) => r.json()).catch(() => null);
    if (cluster?.role === 'standby' && cluster.primary === primary) return cluster;
  }
  assert.fail(`the deposed primary did not become a standby of ${primary} within ${withinMs} ms (last GET /cluster: ${JSON.stringify(cluster)}); ${lastWords(node)}`);
}
