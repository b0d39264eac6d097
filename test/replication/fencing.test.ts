/**
 * A deposed primary cannot write. The primary is paused (SIGSTOP: a long GC pause, a frozen
 * VM) past its lease; the standby takes over and writes. Resumed, the old primary takes no
 * write: the order sent to it is refused — 421 naming the new primary, since its lease went
 * unrenewed, and a publish of it would be fenced by the stream's expected sequence — and the
 * order never appears on the new primary; GET /cluster on the old node says "deposed" and
 * names the new primary.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Trader } from '../e2e/harness.ts';
import { startNats } from './nats-servers.ts';
import { startNode, stopAll } from './nodes.ts';

const LEASE_MS = 1500;

test('a primary paused past its lease comes back deposed: its writes are refused and go nowhere', { timeout: 180_000 }, async (t) => {
  const nats = await startNats(1);
  const old = await startNode({ nats: nats.urls, durability: 'replicated', leaseMs: LEASE_MS });
  const standby = await startNode({ nats: nats.urls, role: 'standby', leaseMs: LEASE_MS });
  t.after(() => stopAll([old, standby], nats));
  const trader = await new Trader(old.client).login();
  await trader.fund('100000');
  assert.equal((await trader.place({ price: '90000', quantity: '0.001', clientId: 'before' })).status, 200);

  process.kill(old.pid, 'SIGSTOP');
  const until = Date.now() + 60_000;
  for (let role = ''; role !== 'primary'; await new Promise((resolve) => setTimeout(resolve, 100))) {
    assert.ok(Date.now() < until, 'the standby took over');
    // While its port moves from the replica's gateway to the primary's it may refuse or answer 503.
    role = await standby.client.request('GET', '/cluster').then((r) => r.json().role).catch(() => '');
  }
  const newPrimary = `http://127.0.0.1:${standby.port}`;
  trader.ex = standby.client;
  assert.equal((await trader.place({ price: '90001', quantity: '0.001', clientId: 'on-new-primary' })).status, 200);

  process.kill(old.pid, 'SIGCONT');
  trader.ex = old.client;
  const refused = await trader.place({ price: '90002', quantity: '0.001', clientId: 'on-old-primary' });
  assert.equal(refused.status, 421, refused.text);
  assert.match(refused.text, /^Not the primary: this node was deposed/);
  // Once its renewal has found the lease taken, the refusal and GET /cluster name the new primary.
  let cluster: any;
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 100))) {
    cluster = (await old.client.request('GET', '/cluster')).json();
    if (cluster.role === 'deposed' && cluster.primary === newPrimary) break;
  }
  assert.equal(cluster.role, 'deposed');
  assert.equal(cluster.primary, newPrimary);
  const again = await old.client.operator('POST', '/operator/deposit', { account: trader.address, subaccountIndex: 0, amount: '1' });
  assert.equal(again.status, 421);
  assert.equal(again.headers.get('x-primary-url'), newPrimary);
  assert.match(again.text, new RegExp(`send writes to ${newPrimary}$`));

  trader.ex = standby.client;
  const { bids } = (await trader.get(`/account/orders?account=${trader.address}&subaccountIndex=0`)).json();
  assert.deepEqual(bids.map((o: any) => o.clientId).sort(), ['before', 'on-new-primary']);
});
