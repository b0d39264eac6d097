/**
 * A NATS node lost under load loses nothing acknowledged: on a 3-node JetStream cluster with the
 * journal stream kept in 3 copies (`--nats-replicas 3`), one node is killed (SIGKILL) while
 * two traders send signed orders to a `--durability replicated` primary, and they go on sending
 * after it. Every order acknowledged — before, during and after the loss — is on the read
 * replica, which only knows what the stream holds, and at the end its state equals the
 * primary's at the same journal seq.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Trader, fundedTraders } from '../e2e/harness.ts';
import { startNats } from './nats-servers.ts';
import { assertSameState, readAs, startPrimaryAnd } from './nodes.ts';

test('a NATS node killed during load loses nothing acknowledged (3 nodes, 3 copies)', { timeout: 240_000 }, async (t) => {
  const nats = await startNats(3);
  // A lease longer than a stream leader election, so the primary keeps writing through it.
  const options = { nats, natsReplicas: 3, leaseMs: 8000 };
  const [primary, replica] = await startPrimaryAnd({ ...options, durability: 'replicated' }, { ...options, role: 'replica' });
  const traders = await fundedTraders(primary.client, 2, '1000000');

  const acknowledged: { trader: Trader; orderId: string; at: number }[] = [];
  let sending = true;
  const senders = traders.map(async (trader, n) => {
    for (let i = 0; sending; i++) {
      const reply = await trader.place({ price: String(95_000 + (n === 0 ? -1 : 1) * (i % 5)), quantity: n === 0 ? '0.001' : '-0.001', clientId: `t${n}-${i}` });
      if (reply.status === 200) acknowledged.push({ trader, orderId: reply.json()[0].orderId, at: Date.now() });
    }
  });
  while (acknowledged.length < 30) await new Promise((resolve) => setTimeout(resolve, 20));
  await nats.nodes[0].kill();
  const killedAt = Date.now();
  const before = acknowledged.length;
  while (acknowledged.length < before + 30 && Date.now() - killedAt < 60_000) await new Promise((resolve) => setTimeout(resolve, 20));
  sending = false;
  await Promise.all(senders);
  const afterKill = acknowledged.filter((a) => a.at > killedAt).length;
  t.diagnostic(`${before} orders acknowledged before the node was killed, ${afterKill} after`);
  assert.ok(afterKill >= 30, `the primary went on acknowledging after the loss (${afterKill})`);

  // The replica may have followed the stream through the killed node: it reconnects and catches
  // up. Once it stands at the primary's journal seq, every acknowledged order must be there.
  await assertSameState(primary.client, replica.client, ['/book/BTC-USD-PERP?depth=50'], {}, 30_000);
  // (A finished order is read from the replica's history, projected a batch after the seq.)
  const until = Date.now() + 10_000;
  for (const { trader, orderId } of acknowledged) {
    let reply = await readAs(replica.client, trader, `/account/order?orderId=${orderId}`);
    while (reply.status === 404 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      reply = await readAs(replica.client, trader, `/account/order?orderId=${orderId}`);
    }
    assert.equal(reply.status, 200, `acknowledged order ${orderId} on the replica: ${reply.text}`);
  }
});
