/**
 * A standby's takeover that finds the stream gone on past what it applied follows the stream
 * again, instead of ending its process. The standby reads the stream's end once it holds the
 * lease; the old primary, not yet aware that it lost the lease, may still have a block stored
 * after that read — and the primary pipeline's start then found the stream ahead of its journal
 * and refused as at an operator's start ("another primary has written since this node last was
 * one": exit 1). test/replication/failover-chaos (seeds 2 and 9: a NATS node paused or lost,
 * then a takeover) left a cluster without the standby that way.
 *
 * Made to happen, on one NATS node: the server is paused, so the primary's block of the first
 * order waits in its socket and the second order's block waits behind it in the primary; the
 * primary is paused once its lease has lapsed and the server resumed (it stores the first
 * block). The standby takes the lease and reads the stream's end, and is paused there; the
 * primary resumes, and ships the second block before its next renewal tells it the lease is
 * gone. The standby resumes: the stream is past its journal. It lets the lease go and follows
 * the stream; of the two standbys there are then, one takes the lease and leads, and both hold
 * every order that was answered 200.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fundedTraders } from '../e2e/harness.ts';
import { sleep } from '../harness/api-helpers.ts';
import { startNats } from './nats-servers.ts';
import { assertSameState, lastWords, startPrimaryAnd } from './nodes.ts';

const LEASE_MS = 1500;

test('a takeover that finds the stream gone on past the standby follows the stream again, and one of the two nodes leads', { timeout: 180_000 }, async () => {
  const nats = await startNats(1);
  const [old, standby] = await startPrimaryAnd({ nats, durability: 'replicated', leaseMs: LEASE_MS }, { nats, role: 'standby', leaseMs: LEASE_MS });
  const [trader] = await fundedTraders(old.client, 1, '100000');
  assert.equal((await trader.place({ price: '90000', quantity: '0.001', clientId: 'before' })).status, 200);

  nats.nodes[0].signal('SIGSTOP');
  const answers = [
    trader.place({ price: '90001', quantity: '0.001', clientId: 'in-the-socket' }).catch(() => null),
    sleep(100).then(() => trader.place({ price: '90002', quantity: '0.001', clientId: 'queued' }).catch(() => null)),
  ];
  for (let seen: any; !(seen?.lease.ageMs > LEASE_MS); await sleep(50)) seen = (await old.client.request('GET', '/cluster')).json();
  process.kill(old.pid, 'SIGSTOP');
  nats.nodes[0].signal('SIGCONT');

  // The standby has read the stream's end: held there while the old primary ships what it queued.
  await standby.untilLogged((e) => e.msg === 'lease taken: applying the rest of the journal stream', 'the lease taken', 30_000);
  process.kill(standby.pid, 'SIGSTOP');
  process.kill(old.pid, 'SIGCONT');
  await old.untilLogged((e) => e.msg === 'deposed: stopping the primary pipeline to follow the journal stream as a standby', 'the old primary deposed', 30_000);
  process.kill(standby.pid, 'SIGCONT');

  await standby.untilLogged((e) => e.msg === 'takeover: the journal stream went on past this node; following it again as a standby', 'the takeover given up', 30_000).catch((error) => assert.fail(`${error.message}; ${lastWords(standby)}`));
  let views: any[] = [];
  for (const end = Date.now() + 60_000; Date.now() < end; await sleep(100)) {
    for (const node of [old, standby]) assert.equal(node.exit(), undefined, `a node exited: ${lastWords(node)}`);
    views = await Promise.all([old, standby].map((node) => node.client.request('GET', '/cluster').then((r) => (r.status === 200 ? r.json() : null), () => null)));
    if (views.map((v) => v?.role).sort().join() === 'primary,standby') break;
  }
  assert.deepEqual(views.map((v) => v?.role).sort(), ['primary', 'standby'], JSON.stringify(views));
  const [leader, follower] = views[0].role === 'primary' ? [old, standby] : [standby, old];

  // What each caller was told is what happened: 200 and there, or 421 and nowhere.
  const orders = `/account/orders?account=${trader.address}&subaccountIndex=0`;
  trader.ex = leader.client;
  await assertSameState(leader.client, follower.client, [orders], trader.auth());
  const ids = (await trader.get(orders)).json().bids.map((o: any) => o.clientId);
  const told = await Promise.all(answers);
  ['in-the-socket', 'queued'].forEach((clientId, i) => {
    const answer = told[i];
    if (answer === null) return; // the connection closed as the gateway stopped: either may be
    if (answer.status === 200) assert.ok(ids.includes(clientId), `${clientId} was answered 200 and is there: ${ids.join()}`);
    else assert.ok(answer.status === 421 && !ids.includes(clientId), `${clientId} was answered ${answer.status} ${answer.text} and is nowhere: ${ids.join()}`);
  });
  assert.ok(ids.includes('before') && ids.includes('queued'), `the block the old primary shipped after the standby read the stream's end is there: ${ids.join()}`);
});
