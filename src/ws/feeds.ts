/**
 * @module ws/feeds
 *
 * The streaming feeds: the WebSocket endpoint's protocol (docs/feeds.md) and the fan-out of
 * what the relay hands it (`FeedSink`, ws/feed-relay: frames of durable book deltas,
 * trades and numbered subaccount events).
 *
 * This file owns the protocol: a connection's messages (`ping` → `pong`, `login` with the JWT
 * of POST /auth/login, `subscribe` / `unsubscribe`), each connection's channels, the snapshot a
 * channel starts with, and the timers (heartbeats every `heartbeatMs` on every connection, the
 * slow-consumer sweep, prices every second). Its parts: channel names (ws/channels), the
 * connections, their limits and slow consumers (ws/feed-connections, ws/feed-limits), the
 * public channels' windowed fan-out (ws/market-feed) and the private channels' numbered
 * catch-up (ws/account-feed).
 *
 * Every message is charged to its source address's budget (`messagesPerSecond`, all its
 * connections together, as the public REST routes are budgeted per address): one, and a
 * subscribe one per channel it names, and a private catch-up one per 50 events it sends
 * (ws/account-feed). Past it the message is refused with an error and nothing
 * of it is done, so no client can keep the main thread building snapshots for it.
 * May import: auth/token (types), config/market (types), app/depth-mirror (types), http/ (errors, rate-limit, uws types), ws/,
 * pino (types).
 */
import type { Logger } from 'pino';
import type { AccessTokens } from '../auth/token.ts';
import type { MarketSpec } from '../config/market.ts';
import type { DepthMirror } from '../app/depth-mirror.ts';
import type { FeedFrame, FeedSink } from './feed-relay.ts';
import { codeFailure } from '../http/errors.ts';
import type { HttpServer, SocketEndpoint } from '../http/uws.ts';
import { RateLimiter } from '../http/rate-limit.ts';
import { AccountFeed, type AccountFeedPorts } from './account-feed.ts';
import { parseChannel, type Channel, type ChannelPorts } from './channels.ts';
import { FeedConnections, SWEEP_MS, type ConnectionState, type FeedConnection } from './feed-connections.ts';
import { DEFAULT_FEED_LIMITS, feedSocketSettings, type FeedLimits } from './feed-limits.ts';
import { MarketFeed, type MarketFeedPorts } from './market-feed.ts';
import { candleMessage, summaryMessage } from './messages.ts';

export { SLOW_CONSUMER_CLOSE } from './feed-connections.ts';
export { DEFAULT_FEED_LIMITS, FEED_PATH, feedSocketSettings, type FeedLimits } from './feed-limits.ts';

const PRICES_EVERY_MS = 1000;

/** What the feeds read; gateway-ports hands it in (`streamingFeeds`). */
export interface FeedPorts extends MarketFeedPorts, AccountFeedPorts, ChannelPorts {
  tokens: Pick<AccessTokens, 'verify'>;
  logger: Logger;
  limits?: Partial<FeedLimits>;
}

/** Most messages held behind a login being verified; more are refused (the client is not waiting for anything). */
const MAX_HELD_BEHIND_LOGIN = 100;

/** The `id` of a message refused before it is handled, when it is a JSON object with one (else undefined). */
function messageId(text: string): string | number | undefined {
  try {
    const id = (JSON.parse(text) as { id?: unknown } | null)?.id;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

const REPLY_TYPES = { subscribe: 'subscribed', unsubscribe: 'unsubscribed' } as const;

export class Feeds implements FeedSink {
  readonly endpoint: SocketEndpoint<ConnectionState>;
  private readonly limits: FeedLimits;
  private readonly connections: FeedConnections;
  private readonly markets: MarketFeed;
  private readonly accounts: AccountFeed;
  private readonly timers: NodeJS.Timeout[] = [];
  /** Messages per source address (`messagesPerSecond`). */
  private readonly budget: RateLimiter;
  private readonly tooMany: string;

  /** What the feeds read, the markets included (`serveMarkets` changes them): the parts read it from here. */
  private readonly ports: FeedPorts;

  constructor(ports: FeedPorts) {
    this.ports = { ...ports };
    this.limits = { ...DEFAULT_FEED_LIMITS, ...this.ports.limits };
    this.budget = new RateLimiter(this.limits.messagesPerSecond);
    this.tooMany = `Too many messages: at most ${this.limits.messagesPerSecond} per second per source address (a subscribe costs one per channel), retry after the cool-down`;
    this.connections = new FeedConnections(this.limits, this.ports.logger);
    this.markets = new MarketFeed(this.ports, this.connections, this.limits.publishEveryMs);
    this.accounts = new AccountFeed(this.ports, this.connections, this.limits.maxResume, (conn, name) => this.leave(conn, name), (conn, cost) => (this.budget.take(conn.state.address, this.ports.clock(), cost).allowed ? null : this.tooMany));
    this.endpoint = {
      ...feedSocketSettings(this.ports.limits),
      admit: (address) => this.connections.admit(address),
      open: (conn) => this.open(conn),
      message: (conn, text) => this.onMessage(conn, text),
      close: (conn) => this.closed(conn),
    };
  }

  /** Starts publishing through `server` (the gateway's), with heartbeats and the slow-consumer sweep. */
  attach(server: Pick<HttpServer, 'publish' | 'subscribers'>): void {
    this.connections.attach(server);
    this.timers.push(
      setInterval(() => this.connections.publish('heartbeat', JSON.stringify({ type: 'heartbeat', time: this.ports.clock() })), this.limits.heartbeatMs),
      setInterval(() => {
        this.connections.sweep();
        this.budget.sweep(this.ports.clock());
      }, SWEEP_MS),
      setInterval(() => this.ports.markets.forEach((m) => this.markets.publishPrices(m)), PRICES_EVERY_MS),
    );
  }

  /**
   * Stops the timers and publishes what waits for a window, so the last trades before a stop
   * reach the subscribers; frames after it (a drain still finishing requests) go out at once.
   */
  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
    this.markets.close();
  }

  /**
   * Serves `markets` from now on (a replica that applied a markets record): the same markets in
   * their places, with their new parameters, and any appended, each starting from its book in
   * `books` (the exchange's depth mirrors); their channels can be subscribed from here on.
   */
  serveMarkets(markets: readonly MarketSpec[], books: readonly DepthMirror[]): void {
    this.ports.markets = markets;
    this.markets.addMarkets(books);
  }

  /** Public changes go out with their market's next publish (at once if the last is a window ago); account events now. */
  frame(frame: FeedFrame): void {
    this.markets.frame(frame);
    if (frame.accounts.length > 0) this.accounts.publish(frame.accounts);
  }

  historyWritten(): void {
    this.markets.historyWritten();
  }

  // ── connections ──────────────────────────────────────────────────────────────────────────

  private open(conn: FeedConnection): void {
    this.connections.opened(conn);
    conn.subscribe('heartbeat');
  }

  private closed(conn: FeedConnection): void {
    this.connections.closed(conn);
    for (const [name, follower] of conn.state.followers) this.accounts.unfollow(name, follower);
  }

  // ── the client's messages ────────────────────────────────────────────────────────────────

  /** Spends `cost` of the connection's address budget: false (and the error sent) when over it. */
  private charge(conn: FeedConnection, id: unknown, cost: number): boolean {
    if (this.budget.take(conn.state.address, this.ports.clock(), cost).allowed) return true;
    this.connections.error(conn, id, this.tooMany);
    return false;
  }

  private onMessage(conn: FeedConnection, text: string, charged = false): void {
    // Charged as it arrives, before anything else (a message held behind a login too: once).
    if (!charged && !this.charge(conn, messageId(text), 1)) return;
    const held = conn.state.afterLogin;
    if (held === null) this.handle(conn, text);
    else if (held.length < MAX_HELD_BEHIND_LOGIN) held.push(text);
    else this.connections.error(conn, undefined, `Too many messages behind a login: at most ${MAX_HELD_BEHIND_LOGIN}; wait for its reply`);
  }

  private handle(conn: FeedConnection, text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      msg = undefined;
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
      this.connections.error(conn, undefined, 'Invalid message: expected a JSON object with an op');
      return;
    }
    const { op, id } = msg as { op?: unknown; id?: unknown };
    const replyId = typeof id === 'string' || typeof id === 'number' ? id : undefined;
    switch (op) {
      case 'ping':
        this.connections.send(conn, JSON.stringify({ type: 'pong', id: replyId, time: this.ports.clock() }));
        return;
      case 'login':
        void this.login(conn, replyId, (msg as { token?: unknown }).token);
        return;
      case 'subscribe':
      case 'unsubscribe':
        this.subscription(conn, op, replyId, (msg as { channels?: unknown }).channels);
        return;
      default:
        this.connections.error(conn, replyId, `Unknown op ${JSON.stringify(op)}; allowed: subscribe, unsubscribe, login, ping`);
    }
  }

  private async login(conn: FeedConnection, id: unknown, token: unknown): Promise<void> {
    if (typeof token !== 'string') {
      this.connections.error(conn, id, 'token must be a string: the JWT of POST /auth/login');
      return;
    }
    conn.state.afterLogin = [];
    const verified = await this.ports.tokens.verify(token);
    if (conn.closed) return;
    if (!verified.ok) this.connections.error(conn, id, codeFailure(verified).body);
    else {
      conn.state.caller = verified.value;
      this.connections.send(conn, JSON.stringify({ type: 'login', id, account: verified.value }));
    }
    // The messages that came while the token was verified, in order (one may be a login again: it holds the rest).
    const held = conn.state.afterLogin;
    conn.state.afterLogin = null;
    for (const text of held) this.onMessage(conn, text, true);
  }

  /** Subscribes or unsubscribes every channel of the message, or none when one is refused. */
  private subscription(conn: FeedConnection, op: 'subscribe' | 'unsubscribe', id: unknown, list: unknown): void {
    if (!Array.isArray(list) || list.length === 0) {
      this.connections.error(conn, id, 'channels must be a non-empty array of channel names');
      return;
    }
    const channels: Channel[] = [];
    for (const entry of list) {
      const parsed = parseChannel(this.ports, conn.state.caller, entry, op === 'subscribe');
      if (typeof parsed === 'string') {
        this.connections.error(conn, id, parsed, typeof entry === 'string' ? entry : (entry as { channel?: string })?.channel);
        return;
      }
      // A channel named twice (as given and canonically, say) is one subscription: its first mention counts.
      if (!channels.some((c) => c.name === parsed.name)) channels.push(parsed);
    }
    // The message paid one; each further channel (a snapshot or a catch-up to start) one more.
    if (op === 'subscribe' && channels.length > 1 && !this.charge(conn, id, channels.length - 1)) return;
    const state = conn.state;
    if (op === 'unsubscribe') {
      for (const c of channels) this.leave(conn, c.name);
      this.connections.send(conn, JSON.stringify({ type: REPLY_TYPES[op], id, channels: channels.map((c) => c.name) }));
      return;
    }
    const added = new Set(channels.map((c) => c.name).filter((name) => !state.channels.has(name)));
    if (state.channels.size + added.size > this.limits.subscriptionsPerConnection) {
      this.connections.error(conn, id, `Too many subscriptions: at most ${this.limits.subscriptionsPerConnection} per connection`);
      return;
    }
    this.connections.send(conn, JSON.stringify({ type: REPLY_TYPES[op], id, channels: channels.map((c) => c.name) }));
    // Subscribing again starts the channel afresh (a new snapshot, a new catch-up).
    for (const c of channels) {
      this.leave(conn, c.name);
      this.join(conn, c);
    }
  }

  private leave(conn: FeedConnection, name: string): void {
    const state = conn.state;
    if (!state.channels.delete(name)) return;
    const follower = state.followers.get(name);
    if (follower !== undefined) this.accounts.unfollow(name, follower);
    else conn.unsubscribe(name);
  }

  private join(conn: FeedConnection, c: Channel): void {
    conn.state.channels.add(c.name);
    const now = this.ports.clock();
    switch (c.kind) {
      case 'book':
        conn.subscribe(c.name);
        this.connections.send(conn, this.markets.bookSnapshot(c.name, c.market, now));
        return;
      case 'trades':
        conn.subscribe(c.name);
        return;
      case 'candles': {
        conn.subscribe(c.name);
        const newest = this.ports.history.candles(c.market.index, c.interval, { limit: 1 })[0];
        if (newest !== undefined) this.connections.send(conn, candleMessage(c.name, c.market, newest));
        return;
      }
      case 'prices': {
        const first = this.markets.pricesOnSubscribe(c.market, now);
        conn.subscribe(c.name);
        this.connections.send(conn, first);
        return;
      }
      case 'summary':
        conn.subscribe(c.name);
        this.connections.send(conn, summaryMessage(c.name, c.market, this.ports.history.summary24h(c.market.index, now)));
        return;
      case 'account':
        void this.accounts.follow(conn, c);
    }
  }
}
