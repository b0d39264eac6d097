/**
 * NATS servers for the replication tests: `nats-server` (Debian's package) with JetStream, on
 * free loopback ports and temporary store directories — one node, or a cluster of three routed
 * to each other — stopped and removed after the test, after the exchange nodes that use them
 * (`stopsFirst`). A node can be killed (SIGKILL) and started again on its store.
 */
import { randomUUID } from 'node:crypto';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

/** Every port `freePort` has handed out in this process. */
const handedOut = new Set<number>();

/**
 * A free loopback TCP port (the kernel's pick, released for the caller), never one it gave
 * before: ports taken together (a primary's and its replica's, a cluster's) are bound later,
 * and the kernel may pick a released one again meanwhile.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

export interface NatsNode {
  name: string;
  url: string;
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Pauses (SIGSTOP: a frozen VM, its connections open and their bytes queued) or resumes (SIGCONT) the server. */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** Every node's URL, comma-separated (what --nats takes). */
  urls: string;
  /**
   * Has `stop` run `stopClient` before it stops the servers: an exchange node stopping with
   * NATS gone waits out its JetStream timeouts (releasing its lease: 5 s) instead of stopping.
   */
  stopsFirst(stopClient: () => Promise<void>): void;
  /** Stops the clients given to `stopsFirst` (together), then the servers; again, does nothing. */
  stop(): Promise<void>;
}

/** Starts `size` JetStream nodes and stops them after the test (`launchNats` in a test). */
export async function startNats(size = 1): Promise<NatsCluster> {
  const cluster = await launchNats(size);
  // The one stop of a test's NATS servers and of the exchange nodes on them, whichever way the
  // test ends: the nodes first (`stopsFirst`) — here, not in hooks of their own, which node:test
  // would run after this one (a test's hooks run in the order they were registered).
  after(cluster.stop);
  return cluster;
}

/** Starts `size` JetStream nodes (clustered when more than one) and waits until JetStream answers; the caller stops them. */
export async function launchNats(size = 1): Promise<NatsCluster> {
  if (spawnSync('nats-server', ['--version']).error) throw new Error('nats-server is not installed: `apt-get install -y nats-server` (README, Replication; .ci/run installs it)');
  // A port freed for us may be bound by another process before our server binds it (the other
  // shard's tests): then our server exits, and its URL reaches someone else's — once in CI, the
  // "empty" stream of test/replication/diverged-journal was another test's. Launched again on new ports.
  for (let attempt = 1; ; attempt++) {
    const cluster = await launchOnce(size);
    if (await cluster.ownsItsPorts()) return cluster;
    await cluster.stop();
    if (attempt === 3) throw new Error('NATS: the ports chosen were taken by another process three times');
  }
}

async function launchOnce(size: number): Promise<NatsCluster & { ownsItsPorts(): Promise<boolean> }> {
  /** Each server's name, unique to this launch: what answers on its port says whether it is ours. */
  const launch = randomUUID().slice(0, 8);
  const dir = mkdtempSync(join(tmpdir(), 'perp-nats-'));
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })));
  const nodes: NatsNode[] = ports.map((port, i) => {
    const name = `n${i + 1}`;
    let child: ChildProcess | null = null;
    let exited: Promise<void> = Promise.resolve();
    const args = ['-a', '127.0.0.1', '-p', String(port.client), '-n', `${name}-${launch}`, '-js', '-sd', join(dir, name)];
    if (size > 1) {
      const routes = ports.filter((_, j) => j !== i).map((p) => `nats://127.0.0.1:${p.route}`).join(',');
      args.push('--cluster_name', 'perp', '--cluster', `nats://127.0.0.1:${port.route}`, '--routes', routes);
    }
    return {
      name,
      url: `nats://127.0.0.1:${port.client}`,
      start: async () => {
        child = spawn('nats-server', args, { stdio: 'ignore' });
        exited = new Promise((resolve) => child!.once('exit', () => resolve()));
      },
      signal: (signal) => void child?.kill(signal),
      kill: async () => {
        child?.kill('SIGKILL');
        await exited;
        child = null;
      },
    };
  });
  for (const node of nodes) await node.start();
  const urls = nodes.map((n) => n.url).join(',');
  await untilJetStream(urls);
  let clients: (() => Promise<void>)[] = [];
  const stop = async () => {
    const stopping = clients;
    clients = [];
    // A server the test left paused would hang its clients' stops.
    for (const node of nodes) node.signal('SIGCONT');
    try {
      await Promise.all(stopping.map((stopClient) => stopClient()));
    } finally {
      // A client's stop that failed (hung) fails the test, and leaves no server running.
      for (const node of nodes) await node.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const ownsItsPorts = async () => {
    for (const node of nodes) {
      const nc = await connect({ servers: [node.url], timeout: 1000 }).catch(() => null);
      const name = nc?.info?.server_name;
      await nc?.close();
      if (name !== `${node.name}-${launch}`) return false;
    }
    return true;
  };
  return { nodes, urls, stopsFirst: (stopClient) => void clients.push(stopClient), stop, ownsItsPorts };
}

/** Resolves once JetStream answers (a cluster has elected its meta leader). */
async function untilJetStream(urls: string): Promise<void> {
  const until = Date.now() + 20_000;
  for (;;) {
    try {
      const nc = await connect({ servers: urls.split(','), timeout: 1000 });
      try {
        await (await jetstreamManager(nc, { timeout: 1000 })).getAccountInfo();
        return;
      } finally {
        await nc.close();
      }
    } catch (error) {
      if (Date.now() > until) throw new Error(`NATS JetStream did not come up: ${error}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
