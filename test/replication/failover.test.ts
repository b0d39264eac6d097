/**
 * Failover: with `--durability replicated`, the primary is killed with SIGKILL while two
 * traders keep sending signed orders; the standby finds the lease expired, takes it, applies
 * the rest of the stream and becomes the primary on its own port within a few seconds — and
 * every order the old primary acknowledged is there (by orderId, with its clientId, through the new primary,
 * with the token the old one gave). The old primary, started again on its data directory,
 * refuses to start: another primary holds the lease.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Trader, fundedTraders } from '../e2e/harness.ts';
import { startNats } from './nats-servers.ts';
import { spawnNode, startPrimaryAnd, untilPrimary } from './nodes.ts';

const LEASE_MS = 1500;

test('kill -9 of the primary under load: the standby takes over and every acknowledged order is there; the old primary cannot come back', { timeout: 180_000 }, async (t) => {
  const nats = await startNats(1);
  const [primary, standby] = await startPrimaryAnd({ nats, durability: 'replicated', leaseMs: LEASE_MS }, { nats, role: 'standby', leaseMs: LEASE_MS });

  const traders = await fundedTraders(primary.client, 2, '1000000');
  const acknowledged: { trader: Trader; clientId: string; orderId: string }[] = [];
  let killed = false;
  // Each trader sends resting and crossing orders one after another until the primary is gone.
  const senders = traders.map(async (trader, n) => {
    for (let i = 0; !killed; i++) {
      const clientId = `t${n}-${i}`;
      try {
        const reply = await trader.place({ price: String(95_000 + (n === 0 ? -1 : 1) * (i % 7)), quantity: n === 0 ? '0.001' : '-0.001', clientId });
        if (reply.status === 200) acknowledged.push({ trader, clientId, orderId: reply.json()[0].orderId });
      } catch {
        return; // the connection died with the primary
      }
    }
  });
  while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 20));
  killed = true;
  await primary.kill('SIGKILL');
  const killedAt = Date.now();
  await Promise.all(senders);

  // The standby answers GET /cluster throughout, and says "primary" once it has taken over.
  const tookOverMs = await untilPrimary(standby.client, killedAt);
  t.diagnostic(`takeover: ${tookOverMs} ms after the kill (lease ${LEASE_MS} ms); ${acknowledged.length} orders acknowledged before it`);
  assert.ok(tookOverMs < 30_000, `takeover in ${tookOverMs} ms`);

  // By orderId: a lookup by clientId finds only orders still open, and many of these filled.
  for (const { trader, clientId, orderId } of acknowledged) {
    const reply = await standby.client.request('GET', `/account/order?orderId=${orderId}`, undefined, trader.auth());
    assert.equal(reply.status, 200, `acknowledged order ${clientId} on the new primary: ${reply.text}`);
    assert.equal(reply.json().clientId, clientId);
  }
  // The new primary takes writes, with the same tokens.
  traders[0].ex = standby.client;
  const after = await traders[0].place({ price: '90000', quantity: '0.001', clientId: 'after-failover' });
  assert.equal(after.status, 200, after.text);

  // The old primary, started again as it was, is refused: the lease is the new primary's.
  const returning = await spawnNode({ nats, durability: 'replicated', leaseMs: LEASE_MS, port: primary.port, dataDir: primary.dataDir });
  await assert.rejects(returning.ready, /exited \(exit code 1\)/);
  assert.match(returning.stderr(), new RegExp(`Cannot start: another primary holds the lease \\(http://127.0.0.1:${standby.port},`));
});
