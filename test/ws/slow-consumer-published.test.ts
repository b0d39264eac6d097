/**
 * A subscriber that stops reading falls behind on published messages alone — no reply or
 * snapshot written to it directly — and is still closed with 4008 and the reason right after
 * the publish that took it past the limit, not at some later sweep; while the subscribers that
 * read are never closed, and their unsent bytes are read far less often than once a publish.
 *
 * Why not end to end: on loopback the kernel's socket buffers take megabytes before a stalled
 * client's bytes stay in uWS at all, so the feeds would have to publish megabytes of book
 * deltas (thousands of signed orders) first; test/e2e/feed-slow-consumer.test.ts proves the
 * close over a real socket. Here a server stands in for uWS: it adds each published message to
 * the unsent bytes of the stalled subscriber, and nothing to the others.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { parseMarkets } from '../../src/config/market.ts';
import { DepthMirror } from '../../src/app/depth-mirror.ts';
import { Feeds, SLOW_CONSUMER_CLOSE, type FeedPorts } from '../../src/ws/feeds.ts';
import type { SocketConnection } from '../../src/http/uws.ts';
import { marketNo } from '../fixtures/ids.ts';

const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));
const LIMIT = 64 * 1024;
const READERS = 200;
const TOPIC = `book.${markets[0].symbol}`;

/** A connection as uWS would hand it over: its unsent bytes grow only while it is stalled. */
class Subscriber implements SocketConnection<any> {
  readonly topics = new Set<string>();
  unsent = 0;
  reads = 0;
  closedWith: { code: number; reason: string; afterPublish: number } | null = null;
  readonly remoteAddress: string;

  constructor(
    readonly state: any,
    private readonly server: FakeServer,
    readonly stalled: boolean,
  ) {
    this.remoteAddress = state.address;
  }

  get closed(): boolean {
    return this.closedWith !== null;
  }
  take(bytes: number): void {
    if (this.stalled) this.unsent += bytes;
  }
  send(text: string): boolean {
    this.take(text.length);
    return true;
  }
  subscribe(topic: string): void {
    this.topics.add(topic);
  }
  unsubscribe(topic: string): void {
    this.topics.delete(topic);
  }
  bufferedAmount(): number {
    this.reads++;
    return this.unsent;
  }
  close(code: number, reason: string): void {
    this.closedWith ??= { code, reason, afterPublish: this.server.published };
  }
}

class FakeServer {
  readonly connections: Subscriber[] = [];
  published = 0;
  /** The publish after which the stalled subscriber first had more than the limit unsent. */
  crossedAt: number | null = null;

  publish(topic: string, text: string): void {
    this.published++;
    for (const c of this.connections) {
      if (c.closed || !c.topics.has(topic)) continue;
      c.take(text.length + 2);
      if (c.stalled && c.unsent > LIMIT) this.crossedAt ??= this.published;
    }
  }
  subscribers(topic: string): number {
    return this.connections.filter((c) => !c.closed && c.topics.has(topic)).length;
  }
}

test('a subscriber stalled on published messages is closed right after the publish that takes it past the limit; readers are not read each publish', () => {
  const nothing = {} as never;
  const ports: FeedPorts = {
    markets,
    startBooks: markets.map(() => new DepthMirror()),
    prices: () => ({ mark: 0, index: 0, last: undefined, fundingRate: null }),
    history: nothing,
    accounts: nothing,
    delegations: nothing,
    tokens: nothing,
    accountEvents: nothing,
    durableAndWritten: async () => {},
    clock: () => 1_800_000_000_000,
    logger: pino({ level: 'silent' }),
    // Every frame published at once: each is a pass over the subscribers.
    limits: { slowConsumerBytes: LIMIT, publishEveryMs: 0 },
  };
  const feeds = new Feeds(ports);
  const server = new FakeServer();
  feeds.attach(server);
  try {
    const connect = (i: number, stalled: boolean): Subscriber => {
      const admitted = feeds.endpoint.admit(`10.0.${i >> 8}.${i & 255}`);
      assert.ok('state' in admitted);
      const conn = new Subscriber(admitted.state, server, stalled);
      server.connections.push(conn);
      feeds.endpoint.open(conn);
      feeds.endpoint.message(conn, JSON.stringify({ op: 'subscribe', channels: [TOPIC] }));
      return conn;
    };
    const readers = Array.from({ length: READERS }, (_, i) => connect(i, false));
    const stalled = connect(READERS, true);
    const readsBefore = readers.reduce((a, c) => a + c.reads, 0);

    // Deltas of 40 bid levels each (≈ 1 KB): a few hundred take the stalled one past 64 KiB.
    let sequence = 0;
    for (let frame = 0; frame < 400 && !stalled.closed; frame++) {
      const bids: [number, number][] = Array.from({ length: 40 }, (_, i) => [900_000 + i, 1 + ((frame + i) % 7)]);
      feeds.frame({ seq: frame + 1, books: [{ market: marketNo(0), previous: sequence, sequence: sequence + 40, bids, asks: [] }], trades: [], accounts: [] });
      sequence += 40;
    }

    assert.ok(server.crossedAt !== null, 'the stalled subscriber went past the limit');
    assert.deepEqual(stalled.closedWith, { code: SLOW_CONSUMER_CLOSE, reason: `Slow consumer: ${stalled.unsent} bytes unsent, more than ${LIMIT}`, afterPublish: server.crossedAt });
    assert.ok(readers.every((c) => !c.closed), 'no reader was closed');
    const reads = readers.reduce((a, c) => a + c.reads, 0) - readsBefore;
    const deliveries = READERS * server.published;
    assert.ok(reads * 10 < deliveries, `readers' unsent bytes read ${reads} times for ${deliveries} messages published to them`);
  } finally {
    feeds.close();
  }
});
