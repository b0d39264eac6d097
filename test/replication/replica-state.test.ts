/**
 * A read replica holds the primary's state: through a random trading session (three traders
 * crossing on two markets, cancels among the orders), at each step the replica's state hash
 * (every account, position, order and book), its books and each trader's positions and
 * balance read through the replica with the primary's token equal the primary's at the same
 * journal sequence. Writes sent to the replica are refused with 421 naming the primary; every
 * reply carries its lag, and so do GET /ready and GET /metrics.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fundedTraders } from '../e2e/harness.ts';
import { startNats } from './nats-servers.ts';
import { assertSameState, startPrimaryAnd } from './nodes.ts';

const SEED = Number(process.env.REPLICA_SEED ?? Date.now() % 1_000_000);
const STEPS = 6;
const ORDERS_PER_STEP = 12;

function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

test(`a replica's book, positions and state hash equal the primary's at the same journal seq (seed ${SEED})`, { timeout: 180_000 }, async () => {
  const nats = await startNats(1);
  const [primary, replica] = await startPrimaryAnd({ nats, durability: 'local' }, { nats, role: 'replica' });
  const rand = random(SEED);
  const traders = await fundedTraders(primary.client, 3, '1000000');
  const markets = [
    { symbol: 'BTC-USD-PERP', mid: 95_000, tick: 1 },
    { symbol: 'ETH-USD-PERP', mid: 3_500, tick: 0.1 },
  ];
  const publicPaths = markets.map((m) => `/book/${m.symbol}?depth=50`);
  for (let step = 0; step < STEPS; step++) {
    const placed: string[] = [];
    for (let i = 0; i < ORDERS_PER_STEP; i++) {
      const trader = traders[Math.floor(rand() * traders.length)];
      const market = markets[Math.floor(rand() * markets.length)];
      const buy = rand() < 0.5;
      // Around the mid, so about half the orders cross a resting one.
      const price = (market.mid + Math.round((rand() - 0.5) * 20) * market.tick * 5).toFixed(1);
      const reply = await trader.place({ symbol: market.symbol, price, quantity: buy ? '0.01' : '-0.01', clientId: `s${step}-${i}` });
      assert.equal(reply.status, 200, reply.text);
      placed.push(reply.json().orderId);
    }
    // Some of them cancelled (those already filled answer 404: the replica must agree either way).
    const owner = traders[0];
    await owner.send('DELETE', `/account/orders?account=${owner.address}&subaccountIndex=0`);
    for (const trader of traders) {
      const auth = trader.auth();
      await assertSameState(primary.client, replica.client, [
        ...publicPaths,
        `/account/positions?account=${trader.address}&subaccountIndex=0`,
        `/account/balance?account=${trader.address}&subaccountIndex=0`,
        `/account/orders?account=${trader.address}&subaccountIndex=0`,
      ], auth);
    }
  }

  // The session traded: positions exist, so the comparisons above covered fills, not only resting orders.
  const positions = await Promise.all(traders.map(async (trader) => (await trader.get(`/account/positions?account=${trader.address}&subaccountIndex=0`)).json().positions.length));
  assert.ok(positions.some((n) => n > 0), 'some trader holds a position');

  const refused = await replica.client.operator('POST', '/operator/deposit', { account: traders[0].address, subaccountIndex: 0, amount: '1' });
  assert.equal(refused.status, 421);
  assert.equal(refused.text, `Not the primary: this node is a read replica; send writes to http://127.0.0.1:${primary.port}`);
  assert.match(refused.headers.get('x-replica-lag') ?? '', /^seq=\d+, ms=\d+$/);
  // Its lag, for a load balancer and for Prometheus.
  const ready = await replica.client.request('GET', '/ready');
  assert.equal(ready.status, 200, ready.text);
  assert.match(ready.headers.get('x-replica-lag') ?? '', /^seq=\d+, ms=\d+$/);
  const metrics = (await replica.client.request('GET', '/metrics')).text;
  assert.match(metrics, /^perp_replica_lag_records \d+$/m);
  assert.match(metrics, /^perp_replica_lag_seconds [\d.e-]+$/m);
  const cluster = (await replica.client.request('GET', '/cluster')).json();
  assert.equal(cluster.role, 'replica');
  assert.equal(cluster.primary, `http://127.0.0.1:${primary.port}`);
});
