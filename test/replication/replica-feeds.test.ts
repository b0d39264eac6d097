/**
 * A read replica serves the streaming feeds (GET /ws) from what it applies of the journal
 * stream, with the primary's numbers. While orders trade on the primary, a client of the
 * replica's feed holds a book rebuilt from the replica's snapshot and deltas that equals the
 * replica's GET /book and the primary's at the same sequence number (each delta chaining on the
 * last, its checksum matching); the trades it was sent are GET /trades of both nodes, in order;
 * and a private stream read on the replica and resumed there with `since` after a dropped
 * connection misses nothing and repeats nothing — the very events, numbered alike, that the
 * primary's stream holds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ApiClient, fundedTraders } from '../e2e/harness.ts';
import { BookCopy } from '../e2e/book-copy.ts';
import { assertResumed, events, FeedClient, follow, whole } from '../e2e/feed-client.ts';
import { seeded } from '../../bench/seeded.ts';
import { startNats } from './nats-servers.ts';
import { assertSameState, startPrimaryAnd } from './nodes.ts';

const SYMBOL = 'BTC-USD-PERP';
const BOOK = `/book/${SYMBOL}?depth=5000`;
const TRADES = `/trades/${SYMBOL}?limit=5000`;
const STEPS = 24;
const SEED = Number(process.env.REPLICA_FEEDS_SEED ?? Date.now() % 1_000_000);

/** GET /book without its `time` (the one field that is not the state's). */
async function book(node: ApiClient) {
  const { time: _time, ...rest } = (await node.request('GET', BOOK)).json();
  return rest;
}

test(`a replica's feeds: book, trades and a resumed private stream equal the primary's (seed ${SEED})`, { timeout: 180_000 }, async (t) => {
  const nats = await startNats(1);
  const [primary, replica] = await startPrimaryAnd({ nats, durability: 'local' }, { nats, role: 'replica' });
  const rand = seeded(SEED);
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

  for (let step = 0; step < STEPS; step++) {
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
    while (atReplica.sequence_number < atPrimary.sequence_number && Date.now() < until) atReplica = await book(replica.client);
    assert.deepEqual(atReplica, atPrimary, `step ${step}: the replica's GET /book at the primary's sequence number`);
    await feed.until(() => (catchUp(), copy.sequence >= atReplica.sequence_number), `the feed's book at sequence ${atReplica.sequence_number}`);
    assert.equal(copy.sequence, atReplica.sequence_number, `step ${step}: the feed's book ran past GET /book`);
    assert.deepEqual({ bids: copy.sorted('bids'), asks: copy.sorted('asks') }, { bids: atReplica.bids, asks: atReplica.asks }, `step ${step}: the feed's book at ${copy.sequence}`);

    // Halfway the private connection drops (what it had not read is lost with it); two steps on
    // it is resumed on the replica from the last number it saw.
    if (step === STEPS / 2) {
      first!.socket.terminate();
      seen = events(first!, channel);
      first = null;
    }
    if (step === STEPS / 2 + 2) resumed = await follow(replica.client.url, maker.token, channel, seen.at(-1)!.sequence);
  }

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
  await resumed!.until(() => events(resumed!, channel).at(-1)?.sequence === all.length, `event ${all.length}`);
  assertResumed(seen, events(resumed!, channel), all);
  await resumed!.close();
  assert.deepEqual(all, await whole(primary.client.url, maker.token, channel), "the replica's private stream is the primary's");
});
