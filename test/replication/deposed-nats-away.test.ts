/**
 * A deposed primary that cannot reach NATS as it turns into a standby waits for NATS, and
 * follows the stream once it answers. A change of role comes when something went wrong, NATS
 * often among it: before, the new link's one failed connect ended the process (exit 1,
 * `following the stream after being deposed failed`) — a helper's review of the failover chaos
 * test named it.
 *
 * Made to happen, in this order whatever the machine's speed: the old primary reaches NATS
 * through a gate (a TCP relay in this test) that keeps its open connection and can refuse new
 * ones. The primary is paused past its lease and the standby takes over; the gate then refuses
 * new connections, and the old primary is resumed: over its open connection its renewal finds
 * the lease taken, it stops its pipeline, and the link it opens to follow the stream is refused.
 * It says so and keeps trying; the gate opens, and it follows the new primary with what that one
 * acknowledged.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect as tcpConnect, type Socket } from 'node:net';
import { fundedTraders } from '../e2e/harness.ts';
import { sleep } from '../harness/api-helpers.ts';
import { startNats, type NatsCluster } from './nats-servers.ts';
import { assertSameState, frozenPastLease, lastWords, startPrimaryAnd, untilStandbyOf } from './nodes.ts';

const LEASE_MS = 1500;

/** A relay to `url` whose open connections go on while new ones are refused (`refuseNew`). */
async function gateTo(url: string) {
  const { hostname, port } = new URL(url);
  const open = new Set<Socket>();
  const gate = { refuseNew: false, url: '' };
  const server = createServer((client) => {
    if (gate.refuseNew) return void client.destroy();
    const upstream = tcpConnect(Number(port), hostname);
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      open.add(a);
      a.pipe(b);
      a.on('error', () => b.destroy());
      a.on('close', () => (open.delete(a), b.destroy()));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gate.url = `nats://127.0.0.1:${(server.address() as { port: number }).port}`;
  after(() => {
    for (const socket of open) socket.destroy();
    server.close();
  });
  return gate;
}

test('a deposed primary waits for NATS to follow the stream, where one failed connect ended it', { timeout: 180_000 }, async () => {
  const nats = await startNats(1);
  const gate = await gateTo(nats.nodes[0].url);
  const throughGate: NatsCluster = { ...nats, urls: gate.url };
  const [old, standby] = await startPrimaryAnd({ nats: throughGate, durability: 'replicated', leaseMs: LEASE_MS }, { nats, role: 'standby', leaseMs: LEASE_MS });
  const [trader] = await fundedTraders(old.client, 1, '100000');
  assert.equal((await trader.place({ price: '90000', quantity: '0.001', clientId: 'before' })).status, 200);

  const newPrimary = await frozenPastLease(old, standby, trader);

  gate.refuseNew = true;
  process.kill(old.pid, 'SIGCONT');
  const said = (start: string) => old.log.some((e) => String(e.msg).startsWith(start));
  // It learns it was deposed over its open connection, stops its pipeline, and cannot open a new one.
  for (const end = Date.now() + 30_000; !said('NATS out of reach') && old.exit() === undefined && Date.now() < end; await sleep(50));
  assert.ok(said('deposed: stopping'), `it learned it was deposed; ${lastWords(old)}`);
  assert.ok(said('NATS out of reach'), `it said why it waits; ${lastWords(old)}`);
  await sleep(1500);
  assert.equal(old.exit(), undefined, `the deposed primary exited: ${lastWords(old)}`);
  gate.refuseNew = false;

  await untilStandbyOf(old, newPrimary);
  assert.equal((await trader.place({ price: '90002', quantity: '0.001', clientId: 'after' })).status, 200);
  const orders = `/account/orders?account=${trader.address}&subaccountIndex=0`;
  await assertSameState(standby.client, old.client, [orders], trader.auth());
  const { bids } = (await trader.get(orders)).json();
  assert.deepEqual(bids.map((o: any) => o.clientId).sort(), ['after', 'before', 'on-new-primary']);
});
