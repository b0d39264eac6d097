/**
 * A replica whose history thread dies does not go on serving account reads that stand still
 * while its books move: it answers GET /ready with 503 naming the thread (a load balancer then
 * reads elsewhere), says so in GET /cluster, and still stops cleanly. The thread is ended from
 * outside through Node's inspector (test/e2e/end-thread), as the primary's thread-death tests do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fundedTraders } from '../e2e/harness.ts';
import { endThread, INSPECT, inspectorUrl } from '../e2e/end-thread.ts';
import { startNats } from './nats-servers.ts';
import { assertSameState, startPrimaryAnd } from './nodes.ts';

const PROJECTION_THREAD = `typeof data?.path === 'string'`;

test("a replica whose history thread dies answers /ready with 503 naming it, and stops cleanly", { timeout: 120_000 }, async () => {
  const nats = await startNats(1);
  const [primary, replica] = await startPrimaryAnd({ nats, durability: 'local' }, { nats, role: 'replica', env: INSPECT });
  const [trader] = await fundedTraders(primary.client, 1, '100000');
  assert.equal((await trader.place({ price: '90000', quantity: '0.01' })).status, 200);
  await assertSameState(primary.client, replica.client, [`/account/orders?account=${trader.address}&subaccountIndex=0`], trader.auth());
  assert.equal((await replica.client.request('GET', '/ready')).status, 200, 'ready before');

  await (await endThread(inspectorUrl(replica.stderr()), PROJECTION_THREAD)).ended;
  const deadline = Date.now() + 10_000;
  let ready = await replica.client.request('GET', '/ready');
  while (ready.status === 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    ready = await replica.client.request('GET', '/ready');
  }
  assert.equal(ready.status, 503, 'not ready once its history thread is gone');
  assert.match(ready.text, /projection thread exited \(code 1\)/);
  assert.match((await replica.client.request('GET', '/cluster')).json().failure, /projection thread exited/);
  assert.ok(replica.errors.some((e) => e.msg === 'replica: its history thread stopped; /ready answers 503'), 'one fatal line');
  assert.equal(replica.exit(), undefined, 'it serves on (books, market data) until the operator acts');
});
