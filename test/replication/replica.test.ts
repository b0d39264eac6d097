/**
 * A read replica, on one NATS server and one `--durability local` primary that its four tests
 * share (an exchange process costs a second and a half of CPU to start; the tests trade with
 * traders of their own and compare whole states, which the others' orders do not disturb):
 *
 *  - Feeds: it serves the streaming feeds (GET /ws) from what it applies of the journal stream,
 *    with the primary's numbers. While orders trade on the primary, a client of the replica's
 *    feed holds a book rebuilt from the replica's snapshot and deltas that equals the replica's
 *    GET /book and the primary's at the same sequence number (each delta chaining on the last,
 *    its checksum matching); the trades it was sent are GET /trades of both nodes, in order; and
 *    a private stream read on the replica and resumed there with `since` after a dropped
 *    connection misses nothing and repeats nothing — the very events, numbered alike, that the
 *    primary's stream holds. First: every trade of its market is one its feed saw.
 *  - State: through a random trading session (three traders crossing on two markets, cancels
 *    among the orders), at each step the replica's state hash (every account, position, order
 *    and book), its books and each trader's positions and balance read through the replica with
 *    the primary's token equal the primary's at the same journal sequence. Writes sent to the
 *    replica are refused with 421 naming the primary; every reply carries its lag, and so do
 *    GET /ready and GET /metrics.
 *  - Restart: it follows the stream from its own position: stopped while the primary goes on
 *    trading, then started again on its data directory, it replays its local journal from the
 *    snapshot it took when it stopped (not from seq 1), takes from the stream only the records
 *    after its last, and reaches the primary's state hash at the same journal seq (its journal a
 *    byte-for-byte prefix of the primary's: appendRecord checks the chain). The restarted
 *    replica is the one the tests after it read.
 *  - Thread death: a replica whose history thread dies does not go on serving account reads
 *    that stand still while its books move: it answers GET /ready with 503 naming the thread (a
 *    load balancer then reads elsewhere), says so in GET /cluster, and still stops cleanly (at
 *    the end of the file). The thread is ended from outside through Node's inspector
 *    (test/e2e/end-thread), as the primary's thread-death tests do. Last: the replica is broken
 *    from then on.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type ApiClient, fundedTraders } from '../e2e/harness.ts';
import { BookCopy } from '../e2e/book-copy.ts';
import { assertResumed, events, FeedClient, follow, whole } from '../e2e/feed-client.ts';
import { endThread, INSPECT, inspectorUrl } from '../e2e/end-thread.ts';
import type { ServerProcess } from '../e2e/server-process.ts';
import { seeded } from '../../bench/seeded.ts';
import { launchNats, type NatsCluster } from './nats-servers.ts';
import { assertSameState, startNode, startPrimaryAnd } from './nodes.ts';

let nats: NatsCluster | undefined;
let primary: ServerProcess;
/** Every replica runs with the inspector (INSPECT), so the thread-death test can end a thread of whichever is current. */
let replica: ServerProcess;

before(async () => {
  nats = await launchNats(1);
  [primary, replica] = await startPrimaryAnd({ nats, durability: 'local' }, { nats, role: 'replica', env: INSPECT });
});
// The nodes first, then the server (launchNats' stop).
after(() => nats?.stop());

const SYMBOL = 'BTC-USD-PERP';
const BOOK = `/book/${SYMBOL}?depth=5000`;
const TRADES = `/trades/${SYMBOL}?limit=5000`;
const FEED_STEPS = 24;
const FEEDS_SEED = Number(process.env.REPLICA_FEEDS_SEED ?? Date.now() % 1_000_000);

/** GET /book without its `time` (the one field that is not the state's). */
async function book(node: ApiClient) {
  const { time: _time, ...rest } = (await node.request('GET', BOOK)).json();
  return rest;
}

test(`a replica's feeds: book, trades and a resumed private stream equal the primary's (seed ${FEEDS_SEED})`, { timeout: 180_000 }, async (t) => {
  const rand = seeded(FEEDS_SEED);
  const [maker, taker] = await fundedTraders(primary.client, 2, '1000000');

  const feed = await FeedClient.connect(replica.client.url);
  t.after(() => feed.close());
  feed.send({ op: 'subscribe', id: 1, channels: [`book.${SYMBOL}`, `trades.${SYMBOL}`] });
  await feed.next((m) => m.channel === `book.${SYMBOL}` && m.type === 'snapshot', 'the book snapshot');
  const copy = new BookCopy();
  let applied = 0;
  const catchUp = () => {
    for (; applied < feed.messages.length; applied++) {
      const m = feed.messages[applied];
      if (m.channel === `book.${SYMBOL}`) copy.apply(m);
    }
  };
  // The maker's private stream on the replica (with the primary's token: every node shares --jwt-secret).
  const channel = `account.${maker.address}.0`;
  let first: FeedClient | null = await follow(replica.client.url, maker.token, channel, 0);
  let seen: ReturnType<typeof events> = [];
  let resumed: FeedClient | null = null;

  for (let step = 0; step < FEED_STEPS; step++) {
    // Resting orders around the mid from the maker, and the taker crossing some of them.
    const trader = rand() < 0.5 ? maker : taker;
    const price = String(95_000 + Math.floor(rand() * 11) - 5);
    const lots = 1 + Math.floor(rand() * 5);
    const quantity = ((rand() < 0.5 ? -lots : lots) / 1000).toFixed(3);
    const placed = await trader.place({ symbol: SYMBOL, price, quantity, ioc: rand() < 0.2 });
    assert.equal(placed.status, 200, `step ${step}: ${placed.text}`);

    // The two nodes' books at one sequence number, then the feed's copy there.
    const atPrimary = await book(primary.client);
    let atReplica = await book(replica.client);
    const until = Date.now() + 10_000;
    // Paced, as assertSameState's reads: a node serves a source address at most 200 requests a
    // second, and a tight loop on a replica a moment behind once spent that (429, not its book).
    while (atReplica.sequence_number < atPrimary.sequence_number && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      atReplica = await book(replica.client);
    }
    assert.deepEqual(atReplica, atPrimary, `step ${step}: the replica's GET /book at the primary's sequence number`);
    await feed.until(() => (catchUp(), copy.sequence >= atReplica.sequence_number), `the feed's book at sequence ${atReplica.sequence_number}`);
    assert.equal(copy.sequence, atReplica.sequence_number, `step ${step}: the feed's book ran past GET /book`);
    assert.deepEqual({ bids: copy.sorted('bids'), asks: copy.sorted('asks') }, { bids: atReplica.bids, asks: atReplica.asks }, `step ${step}: the feed's book at ${copy.sequence}`);

    // Halfway the private connection drops (what it had not read is lost with it); two steps on
    // it is resumed on the replica from the last number it saw.
    if (step === FEED_STEPS / 2) {
      first!.socket.terminate();
      seen = events(first!, channel);
      first = null;
    }
    if (step === FEED_STEPS / 2 + 2) resumed = await follow(replica.client.url, maker.token, channel, seen.at(-1)!.sequence);
  }

  // The maker acts once more after the resume, so the resumed stream has events of its own to
  // send whatever the seed drew (seed 323528 gave the maker none after the halfway drop).
  const after = await maker.place({ symbol: SYMBOL, price: '94900', quantity: '0.001', ioc: false });
  assert.equal(after.status, 200, after.text);

  // Its feed subscribers are counted where the primary counts its own.
  assert.match((await replica.client.request('GET', '/metrics')).text, /^perp_ws_connections [1-9]\d*$/m);

  // Both nodes at one journal seq with the same state, trades and book.
  await assertSameState(primary.client, replica.client, [BOOK, TRADES]);
  const rest = (await replica.client.request('GET', TRADES)).json() as Record<string, unknown>[];
  assert.ok(rest.length > 0, 'the session traded');
  // Every trade the feed sent, in order, once: GET /trades (newest first) reversed.
  await feed.until(() => feed.messages.filter((m) => m.type === 'trades').flatMap((m) => m.trades).length >= rest.length, `${rest.length} trades on the feed`);
  const sent = feed.messages.filter((m) => m.type === 'trades').flatMap((m) => m.trades as { sequence_number: number }[]);
  const numbers = sent.map((s) => s.sequence_number);
  assert.deepEqual(numbers, [...new Set(numbers)].sort((a, b) => a - b), 'trades in order, each once');
  assert.deepEqual(sent.map(({ sequence_number: _n, ...trade }) => trade), rest.reverse(), "the feed's trades are GET /trades");

  // The private stream: the two connections together are the replica's whole stream, and that
  // is the primary's (the same numbers, the same messages).
  const all = await whole(replica.client.url, maker.token, channel);
  // The last event came on the resumed connection, or before the drop when nothing followed it.
  await resumed!.until(() => Math.max(events(resumed!, channel).at(-1)?.sequence ?? 0, seen.at(-1)?.sequence ?? 0) === all.length, `event ${all.length}`);
  assertResumed(seen, events(resumed!, channel), all);
  await resumed!.close();
  assert.deepEqual(all, await whole(primary.client.url, maker.token, channel), "the replica's private stream is the primary's");
});

const STATE_SEED = Number(process.env.REPLICA_SEED ?? Date.now() % 1_000_000);
const STATE_STEPS = 6;
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

test(`a replica's book, positions and state hash equal the primary's at the same journal seq (seed ${STATE_SEED})`, { timeout: 180_000 }, async () => {
  const rand = random(STATE_SEED);
  const traders = await fundedTraders(primary.client, 3, '1000000');
  const markets = [
    { symbol: 'BTC-USD-PERP', mid: 95_000, tick: 1 },
    { symbol: 'ETH-USD-PERP', mid: 3_500, tick: 0.1 },
  ];
  const publicPaths = markets.map((m) => `/book/${m.symbol}?depth=50`);
  for (let step = 0; step < STATE_STEPS; step++) {
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

test('a replica restarted on its data directory catches up from its own position', { timeout: 180_000 }, async () => {
  const first = replica;
  const traders = await fundedTraders(primary.client, 2, '100000');
  const trade = async (round: string) => {
    for (let i = 0; i < 6; i++) {
      for (const [n, trader] of traders.entries()) {
        const reply = await trader.place({ price: String(95_000 + (i % 3)), quantity: n === 0 ? '0.001' : '-0.001', clientId: `${round}-${n}-${i}` });
        assert.equal(reply.status, 200, reply.text);
      }
    }
  };
  await trade('a');
  const before = await assertSameState(primary.client, first.client, ['/book/BTC-USD-PERP?depth=50']);
  await first.stop(true);

  await trade('b');
  const again = await startNode({ nats: nats!, role: 'replica', port: first.port, dataDir: first.dataDir, env: INSPECT });
  replica = again;
  const replayed = again.logged('replaying local journal');
  assert.ok(replayed !== undefined && replayed.lastSeq >= before, `it started from its own journal (seq ${replayed?.lastSeq}, ${before} compared before the stop)`);
  assert.ok(replayed.snapshotSeq >= before, `it started from the snapshot it took at its stop (seq ${replayed.snapshotSeq}), not from seq 1`);
  const local = again.logged('local journal replayed')!;
  assert.equal(local.commands + local.events, replayed.lastSeq - replayed.snapshotSeq, 'only the records after the snapshot were replayed');
  const caughtUp = await assertSameState(primary.client, again.client, ['/book/BTC-USD-PERP?depth=50', `/account/positions?account=${traders[0].address}&subaccountIndex=0`], traders[0].auth());
  assert.ok(caughtUp > before, 'the records traded while it was down are applied');
});

const PROJECTION_THREAD = `typeof data?.path === 'string'`;

test("a replica whose history thread dies answers /ready with 503 naming it, and stops cleanly", { timeout: 120_000 }, async () => {
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
