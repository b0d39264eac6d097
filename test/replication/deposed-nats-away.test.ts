/**
 * A deposed primary that finds NATS out of reach as it turns into a standby waits for NATS, and
 * follows the stream once it answers. A change of role comes when something went wrong, NATS
 * often among it: before, the new link's one failed connect ended the process (exit 1,
 * `following the stream after being deposed failed`) — a helper's review of the failover chaos
 * test named it.
 *
 * Made to happen: the primary is paused past its lease and the standby takes over; resumed, the
 * old primary learns it was deposed (its renewal finds the lease taken) and stops its pipeline.
 * At that log line the NATS server is paused (SIGSTOP: its connections hang), so the link the
 * node opens to follow the stream times out. NATS resumes some seconds later: one node leads,
 * the other follows it, and both hold what the new primary acknowledged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fundedTraders } from '../e2e/harness.ts';
import { sleep } from '../harness/api-helpers.ts';
import { startNats } from './nats-servers.ts';
import { assertSameState, lastWords, startPrimaryAnd, untilPrimary } from './nodes.ts';

const LEASE_MS = 1500;

test('a deposed primary waits for NATS to follow the stream, where one failed connect ended it', { timeout: 180_000 }, async () => {
  const nats = await startNats(1);
  const [old, standby] = await startPrimaryAnd({ nats, durability: 'replicated', leaseMs: LEASE_MS }, { nats, role: 'standby', leaseMs: LEASE_MS });
  const [trader] = await fundedTraders(old.client, 1, '100000');
  assert.equal((await trader.place({ price: '90000', quantity: '0.001', clientId: 'before' })).status, 200);

  process.kill(old.pid, 'SIGSTOP');
  await untilPrimary(standby.client, Date.now());
  trader.ex = standby.client;
  assert.equal((await trader.place({ price: '90001', quantity: '0.001', clientId: 'on-new-primary' })).status, 200);

  process.kill(old.pid, 'SIGCONT');
  const said = (start: string) => old.log.some((e) => String(e.msg).startsWith(start));
  for (const end = Date.now() + 30_000; !said('deposed: stopping') && Date.now() < end; await sleep(5));
  assert.ok(said('deposed: stopping'), `it learned it was deposed; ${lastWords(old)}`);
  nats.nodes[0].signal('SIGSTOP');
  // Its connect times out (5 s) and it tries again: alive, and saying why it waits.
  for (const end = Date.now() + 30_000; !said('NATS out of reach') && old.exit() === undefined && Date.now() < end; await sleep(50));
  assert.ok(said('NATS out of reach'), `it tried to reach NATS while it was paused; ${lastWords(old)}`);
  await sleep(1500);
  assert.equal(old.exit(), undefined, `the deposed primary exited: ${lastWords(old)}`);
  nats.nodes[0].signal('SIGCONT');

  // One node leads (the new primary renews, or the other takes the lapsed lease) and the other
  // follows it, naming it; the lease may move once more as both come back, so a write goes to
  // whoever leads then, until one is taken (421 or 503 from a node changing role: nothing taken).
  const nodes = [old, standby];
  const settled = async () => {
    const views = await Promise.all(nodes.map((node) => node.client.request('GET', '/cluster').then((r) => (r.status === 200 ? r.json() : null), () => null)));
    const lead = views.findIndex((v) => v?.role === 'primary');
    const other = views[1 - lead];
    return lead >= 0 && other?.role === 'standby' && other.primary === views[lead].lease?.url ? [nodes[lead], nodes[1 - lead]] : null;
  };
  let pair: Awaited<ReturnType<typeof settled>> = null;
  let placed: Awaited<ReturnType<typeof trader.place>> | null = null;
  const taken = () => placed?.status === 200;
  for (const end = Date.now() + 90_000; !taken() && Date.now() < end; await sleep(100)) {
    for (const node of nodes) assert.equal(node.exit(), undefined, `a node exited: ${lastWords(node)}`);
    pair = await settled();
    if (pair === null) continue;
    trader.ex = pair[0].client;
    placed = await trader.place({ price: '90002', quantity: '0.001', clientId: 'after' }).catch(() => null);
    if (placed !== null && placed.status !== 200) assert.ok(placed.status === 421 || placed.status === 503, `${placed.status} ${placed.text}`);
  }
  assert.ok(taken(), `a write was taken once NATS was back: ${placed?.status} ${placed?.text}`);
  const [leader, follower] = pair!;
  const orders = `/account/orders?account=${trader.address}&subaccountIndex=0`;
  await assertSameState(leader.client, follower.client, [orders], trader.auth());
  const { bids } = (await trader.get(orders)).json();
  assert.deepEqual(bids.map((o: any) => o.clientId).sort(), ['after', 'before', 'on-new-primary']);
});
