/**
 * A standby outlives its NATS server gone for longer than the lease. Its lease watcher, seeing no
 * renewal for a lease time, tries to take the lease; the read of the lease that begins the take
 * times out while the server is away — and a failure there was an unhandled rejection that ended
 * the standby's process (test/replication/failover-chaos, seeds 10 and 12: the NATS node killed
 * for two seconds, its JetStream slow to answer once back). The server comes back on its store: one node leads, the other follows it as a
 * standby, and the standby has what the primary acknowledged meanwhile.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fundedTraders } from '../e2e/harness.ts';
import { sleep } from '../harness/api-helpers.ts';
import { startNats } from './nats-servers.ts';
import { assertSameState, lastWords, startPrimaryAnd } from './nodes.ts';

const LEASE_MS = 1500;
/** How long a JetStream request waits for its answer (replication/jetstream) before it fails. */
const REQUEST_TIMEOUT_MS = 5000;

test('a standby outlives NATS gone for longer than the lease, and follows the primary once it is back', { timeout: 120_000 }, async () => {
  const nats = await startNats(1);
  const [primary, standby] = await startPrimaryAnd({ nats, durability: 'replicated', leaseMs: LEASE_MS }, { nats, role: 'standby', leaseMs: LEASE_MS });
  const [trader] = await fundedTraders(primary.client, 1, '100000');

  await nats.nodes[0].kill();
  // The standby's lease lapses a lease time on, and its watcher tries to take it: that read of
  // the lease waits for the server, and fails once it has waited a request's time.
  await sleep(LEASE_MS + REQUEST_TIMEOUT_MS + 1500);
  await nats.nodes[0].start();

  // One node leads again (the primary renews, or the standby takes over), and the other follows it.
  let views: any[] = [];
  for (const end = Date.now() + 60_000; Date.now() < end; await sleep(100)) {
    assert.equal(standby.exit(), undefined, `the standby exited: ${lastWords(standby)}`);
    assert.equal(primary.exit(), undefined, `the primary exited: ${lastWords(primary)}`);
    views = await Promise.all([primary, standby].map((node) => node.client.request('GET', '/cluster').then((r) => (r.status === 200 ? r.json() : null), () => null)));
    if (views.map((v) => v?.role).sort().join() === 'primary,standby') break;
  }
  assert.deepEqual(views.map((v) => v?.role).sort(), ['primary', 'standby'], JSON.stringify(views));
  const [leader, follower] = views[0].role === 'primary' ? [primary, standby] : [standby, primary];
  // It takes writes once its lease is renewed again (421 until then: nothing taken).
  trader.ex = leader.client;
  let placed = await trader.place({ price: '90000', quantity: '0.001', clientId: 'after-the-outage' });
  for (const end = Date.now() + 30_000; placed.status === 421 && Date.now() < end; await sleep(100)) placed = await trader.place({ price: '90000', quantity: '0.001', clientId: 'after-the-outage' });
  assert.equal(placed.status, 200, placed.text);
  await assertSameState(leader.client, follower.client, [`/account/orders?account=${trader.address}&subaccountIndex=0`], trader.auth());
});
