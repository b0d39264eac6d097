/**
 * The feeds' messages are budgeted per source address, as the public REST routes are: one
 * unauthenticated client used to send a subscribe naming every public channel (45: a book, the
 * trades, prices, a summary and eleven candle intervals per market) as fast as its socket took
 * it, each one a book snapshot, candle reads and 24-hour summaries on the main thread — another
 * client's GET /book went from 2 ms to 1.8 s (p50) while it ran. Now a message costs one of the
 * address's 200 a second and a subscribe one per channel; past it the message is refused with an
 * error saying so, and nothing of it is done.
 *
 * And a book snapshot is built once per market and publish (and second), however many subscribe:
 * a deep book (every level of a thousand orders per subaccount) made each subscribe a fresh
 * walk and serialization of every level.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DepthMirror } from '../../src/app/depth-mirror.ts';
import { Side } from '../../src/engine/types.ts';
import { Feeds, type FeedPorts } from '../../src/ws/feeds.ts';
import { markets, RecordedConnection, standInPorts } from './feed-stand-ins.ts';
import { CANDLE_INTERVALS } from '../../src/history/candles.ts';

const T0 = 1_800_000_000_000;


/** Feeds over stand-in ports (`overrides` replaces some), and `connect`: a connection admitted and opened from `address`. */
function feedsAt(now: { t: number }, startBooks = markets.map(() => new DepthMirror()), overrides: Partial<FeedPorts> = {}): { feeds: Feeds; connect(address: string): RecordedConnection } {
  const ports = standInPorts({ startBooks, clock: () => now.t, ...overrides });
  const feeds = new Feeds(ports);
  feeds.attach({ publish: () => {}, subscribers: () => 0 });
  return {
    feeds,
    connect(address) {
      const admitted = feeds.endpoint.admit(address);
      assert.ok('state' in admitted);
      const conn = new RecordedConnection(admitted.state, address);
      feeds.endpoint.open(conn);
      return conn;
    },
  };
}

const TOO_MANY = 'Too many messages: at most 200 per second per source address (a subscribe costs one per channel), retry after the cool-down';

test('feed messages: 200 a second per source address, a subscribe one per channel; past it refused with the limit, other addresses served', () => {
  const now = { t: T0 };
  const { feeds, connect } = feedsAt(now);
  try {
    const a = connect('10.0.0.1');
    const a2 = connect('10.0.0.1');
    const b = connect('10.0.0.2');
    for (let i = 0; i < 150; i++) feeds.endpoint.message(a, JSON.stringify({ op: 'ping', id: i }));
    assert.equal(a.sent.filter((m) => m.type === 'pong').length, 150);
    // Every public channel of every market in one message: 45 of the 50 left.
    const every = markets.flatMap((m) => [`book.${m.symbol}`, `trades.${m.symbol}`, `prices.${m.symbol}`, `summary.${m.symbol}`, ...CANDLE_INTERVALS.map((i) => `candles.${m.symbol}.${i.name}`)]);
    assert.equal(every.length, 45);
    feeds.endpoint.message(a2, JSON.stringify({ op: 'subscribe', id: 'all', channels: every }));
    assert.equal(a2.sent.find((m) => m.id === 'all')?.type, 'subscribed');
    // The second costs 45 of the 5 left: refused, nothing subscribed afresh, no snapshot.
    const before = a2.sent.length;
    feeds.endpoint.message(a2, JSON.stringify({ op: 'subscribe', id: 'again', channels: every }));
    assert.deepEqual(a2.sent.slice(before), [{ type: 'error', id: 'again', message: TOO_MANY }]);
    // The address is cooling down: its other connection's ping is refused too.
    feeds.endpoint.message(a, JSON.stringify({ op: 'ping', id: 'late' }));
    assert.deepEqual(a.sent.at(-1), { type: 'error', id: 'late', message: TOO_MANY });
    // Another address is not held back.
    for (let i = 0; i < 200; i++) feeds.endpoint.message(b, JSON.stringify({ op: 'ping', id: i }));
    assert.equal(b.sent.filter((m) => m.type === 'pong').length, 200);
    // A second later the budget is back.
    now.t += 1000;
    feeds.endpoint.message(a, JSON.stringify({ op: 'ping', id: 'after' }));
    assert.equal(a.sent.at(-1).type, 'pong');
  } finally {
    feeds.close();
  }
});

test('a book snapshot is built once per market while the book and the second are unchanged, however many subscribe', () => {
  const deep = new DepthMirror();
  for (let i = 0; i < 2000; i++) deep.level(1, Side.Buy, 900_000 - i, 1 + (i % 5));
  const now = { t: T0 };
  const { feeds, connect } = feedsAt(now, markets.map((_, i) => (i === 0 ? deep : new DepthMirror())));
  const depth = DepthMirror.prototype.depth;
  let walks = 0;
  DepthMirror.prototype.depth = function (side, levels, multiple) {
    if (levels > 5000) walks++;
    return depth.call(this, side, levels, multiple);
  };
  try {
    const snapshots: string[] = [];
    for (let i = 0; i < 40; i++) {
      const conn = connect(`10.0.1.${i}`);
      feeds.endpoint.message(conn, JSON.stringify({ op: 'subscribe', channels: [`book.${markets[0].symbol}`] }));
      feeds.endpoint.message(conn, JSON.stringify({ op: 'subscribe', channels: [`book.${markets[0].symbol}`] }));
      for (const m of conn.sent) if (m.type === 'snapshot') snapshots.push(JSON.stringify(m));
    }
    assert.equal(snapshots.length, 80);
    assert.equal(new Set(snapshots).size, 1);
    assert.equal(JSON.parse(snapshots[0]).bids.length, 2000);
    assert.equal(walks, 2, `every level walked ${walks / 2} times for 80 snapshots of one book`);
    // The next second, a new snapshot (its time moved).
    now.t += 1000;
    const late = connect('10.0.2.1');
    feeds.endpoint.message(late, JSON.stringify({ op: 'subscribe', channels: [`book.${markets[0].symbol}`] }));
    assert.equal(walks, 4);
    assert.equal(late.sent.find((m) => m.type === 'snapshot').time, JSON.parse(snapshots[0]).time + 1);
  } finally {
    DepthMirror.prototype.depth = depth;
    feeds.close();
  }
});

test('a private catch-up is charged one message per 50 events it sends: re-subscribing from 0 is refused once the budget is spent', async () => {
  const now = { t: T0 };
  const me = '0x' + 'ab'.repeat(20);
  const EVENTS = 5000;
  let read = 0;
  const balance = (seq: number) => ({ owner: 7, seq, kind: 'balance' as const, balance: { collateral: 1_000_000n, delta: 1n, reason: 'deposit', time: T0 } });
  const { feeds, connect } = feedsAt(now, undefined, {
    accounts: { findOwner: () => 7, identity: () => ({ address: me, subaccountIndex: 0 }), stats: () => undefined } as never,
    delegations: { authorizeCaller: () => ({ ok: true }) } as never,
    tokens: { verify: async () => ({ ok: true, value: me }) } as never,
    accountEvents: {
      lastSeq: () => EVENTS,
      after: (_owner: number, since: number, limit: number) => {
        const out = [];
        for (let seq = since + 1; seq <= Math.min(EVENTS, since + limit); seq++) out.push(balance(seq));
        read += out.length;
        return out as never;
      },
    },
  });
  try {
    const conn = connect('10.0.3.1');
    feeds.endpoint.message(conn, JSON.stringify({ op: 'login', token: 'jwt' }));
    const channel = `account.${me}.0`;
    const settle = async () => {
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    // Each catch-up done before the next subscribe (a subscribe while one runs would replace it).
    for (let i = 0; i < 10; i++) {
      feeds.endpoint.message(conn, JSON.stringify({ op: 'subscribe', id: i, channels: [{ channel, since: 0 }] }));
      await settle();
    }
    // 200 a second: the login (1), then each catch-up of 5,000 events costs 1 + 100 — one is paid, the second refused.
    const lives = conn.sent.filter((m) => m.type === 'live').length;
    assert.equal(lives, 1, `${lives} catch-ups of ${EVENTS} events served in one second`);
    assert.equal(read, EVENTS, `${read} events read`);
    assert.ok(conn.sent.some((m) => m.type === 'error' && m.channel === channel && m.message === TOO_MANY));
    // A second later, one more.
    now.t += 1000;
    feeds.endpoint.message(conn, JSON.stringify({ op: 'subscribe', id: 'later', channels: [{ channel, since: EVENTS - 10 }] }));
    await settle();
    assert.equal(conn.sent.filter((m) => m.type === 'live').length, 2);
  } finally {
    feeds.close();
  }
});
