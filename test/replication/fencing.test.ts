/**
 * A deposed primary cannot write, and becomes a standby. The primary is paused (SIGSTOP: a long
 * GC pause, a frozen VM) past its lease; the standby takes over and writes. Resumed, the old
 * primary takes no write — the order sent to it is refused (its lease went unrenewed; a publish
 * would be fenced by the stream's expected sequence) and never appears anywhere — and it
 * follows the stream as a standby (nothing of its own is journaled after the lease lapsed; a
 * clock tick journaled before and never shipped is cut, test/replication/unshipped-tail — once
 * in CI this test's primary froze with one, and stopped, before that): GET /cluster says "standby" naming
 * the new primary, writes are refused with 421 naming it, and what the new primary writes is
 * there, in the same state at the same journal seq. Its data directory stays locked by it as a
 * standby (the LOCK names its process): before, the primary pipeline's stop removed the LOCK and
 * the standby took none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fundedTraders } from '../e2e/harness.ts';
import { startNats } from './nats-servers.ts';
import { assertSameState, frozenPastLease, startPrimaryAnd, untilStandbyOf } from './nodes.ts';

const LEASE_MS = 1500;

test('a primary paused past its lease comes back deposed: its writes are refused and go nowhere, and it follows the stream as a standby', { timeout: 180_000 }, async () => {
  const nats = await startNats(1);
  const [old, standby] = await startPrimaryAnd({ nats, durability: 'replicated', leaseMs: LEASE_MS }, { nats, role: 'standby', leaseMs: LEASE_MS });
  const [trader] = await fundedTraders(old.client, 1, '100000');
  assert.equal((await trader.place({ price: '90000', quantity: '0.001', clientId: 'before' })).status, 200);

  const newPrimary = await frozenPastLease(old, standby, trader);

  process.kill(old.pid, 'SIGCONT');
  trader.ex = old.client;
  // Its first answers come from the deposed pipeline (421) or, while it hands its port over, none.
  const refused = await trader.place({ price: '90002', quantity: '0.001', clientId: 'on-old-primary' }).catch(() => null);
  if (refused !== null) assert.ok(refused.status === 421 || refused.status === 503, `${refused.status} ${refused.text}`);
  // Then it follows the stream as a standby, naming the new primary.
  await untilStandbyOf(old, newPrimary);
  const again = await old.client.operator('POST', '/operator/deposit', { account: trader.address, subaccountIndex: 0, amount: '1' });
  assert.equal(again.status, 421);
  assert.equal(again.headers.get('x-primary-url'), newPrimary);
  assert.equal(again.text, `Not the primary: this node is a read standby; send writes to ${newPrimary}`);

  // What the new primary writes reaches it: the same state at the same journal seq.
  trader.ex = standby.client;
  assert.equal((await trader.place({ price: '90003', quantity: '0.001', clientId: 'after-return' })).status, 200);
  const orders = `/account/orders?account=${trader.address}&subaccountIndex=0`;
  await assertSameState(standby.client, old.client, [orders], trader.auth());
  const { bids } = (await trader.get(orders)).json();
  assert.deepEqual(bids.map((o: any) => o.clientId).sort(), ['after-return', 'before', 'on-new-primary']);
  assert.equal(Number(readFileSync(join(old.dataDir, 'LOCK'), 'utf8')), old.pid, 'the deposed primary, now a standby, still locks its data directory');
});
