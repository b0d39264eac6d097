/**
 * @module ws/feeds
 *
 * The streaming feeds: the WebSocket endpoint's protocol (docs/feeds.md) and the fan-out of
 * what the sequencer hands it (`FeedSink`, sequencer/feed-relay: frames of durable book deltas,
 * trades and numbered subaccount events).
 *
 * Public channels (`book.`, `trades.`, `candles.`, `prices.`, `summary.` + symbol) go through
 * uWS topics: a message is serialized once and uWS writes the one string to every subscriber.
 * A fan-out costs a write to every subscriber whatever the bytes, so a market's book and trades
 * go out at most once every `publishEveryMs`: the first frame after a quiet spell at once, the
 * frames within a window merged into one delta (levels carry totals: the newest wins) and one
 * trades message (in order). The book is kept here as published (a depth mirror updated by each
 * delta), so a snapshot on subscribe is exactly the state the next delta starts from (its
 * `previous_sequence_number`), and each delta's checksum is of the book after it.
 *
 * Private channels (`account.<address>.<subaccountIndex>`, after `login` with the JWT of POST
 * /auth/login; the account itself or a delegate holding `read`) carry every event numbered per
 * subaccount (history/account-events). A subscription with `since` first catches up: it waits
 * until everything up to now is flushed and in history, sends the events after `since` from
 * history, then what was published meanwhile, each number once (`sent` only grows), then
 * `live`. Private messages are sent to each subscriber directly (one string, few subscribers),
 * so a catching-up subscriber buffers instead of missing any; they are not held for a window.
 *
 * Limits: connections per source address (refused at the upgrade, 429), subscriptions per
 * connection; a connection whose unsent bytes exceed `slowConsumerBytes` is closed with 4008
 * and a reason, so it never slows the others nor sees a gap. Its unsent bytes grow only by what
 * is written to it, so they are read after each direct send, after each publish for connections
 * already past half the limit, and on every connection once half the limit has been published
 * since they were last all read (and every `SWEEP_MS` for what uWS writes itself: pongs).
 * Heartbeats every `heartbeatMs` on every connection; `ping` is answered `pong`.
 * May import: types/ids, config/, history/, engine/types, auth/, http/ (codes, views, uws types),
 * sequencer/feed-relay and app/depth-mirror (what the sequencer hands the feeds), ws/, pino.
 */
import type { Logger } from 'pino';
import { findMarket, type MarketSpec } from '../config/market.ts';
import { Side } from '../engine/types.ts';
import { toAddress, type Address } from '../auth/address.ts';
import type { AccessTokens } from '../auth/token.ts';
import type { DelegationStore } from '../auth/delegation.ts';
import type { AccountEventReader, AccountEventRecord } from '../history/account-events.ts';
import { CANDLE_INTERVALS, intervalByName, type CandleInterval } from '../history/candles.ts';
import type { MarketHistory } from '../history/types.ts';
import type { FeedFrame, FeedSink, PublicTrade } from '../sequencer/feed-relay.ts';
import { DepthMirror } from '../app/depth-mirror.ts';
import { codeFailure, failure, GatewayCode } from '../http/errors.ts';
import { statsView } from '../http/routes/account-stats.ts';
import type { AccountReadPort } from '../http/ports.ts';
import type { HttpServer, SocketConnection, SocketEndpoint } from '../http/uws.ts';
import { accountEventMessage, bookDelta, bookSnapshot, candleMessage, CHECKSUM_LEVELS, pricesMessage, summaryMessage, tradesMessage, type PriceFigures } from './messages.ts';
import type { MarketIndex } from '../types/ids.ts';

export interface FeedLimits {
  connectionsPerAddress: number;
  subscriptionsPerConnection: number;
  /** Unsent bytes above which a connection is closed as a slow consumer. */
  slowConsumerBytes: number;
  heartbeatMs: number;
  /** Most events a resume sends; further behind → `resync`. */
  maxResume: number;
  /** A market's book deltas and trades are published at most this often (merged in between). */
  publishEveryMs: number;
}

export const DEFAULT_FEED_LIMITS: FeedLimits = {
  connectionsPerAddress: 50,
  subscriptionsPerConnection: 100,
  slowConsumerBytes: 4 * 1024 * 1024,
  heartbeatMs: 10_000,
  maxResume: 10_000,
  publishEveryMs: 100,
};

/** The close code of a slow consumer (the 4000s are the application's). */
export const SLOW_CONSUMER_CLOSE = 4008;
/** What a WebSocket frame adds to a message written to a socket, at most (server frames are unmasked). */
const FRAME_HEADER_BYTES = 10;
/** Every connection is read at least this often: uWS's own writes (pongs to a client's pings) are not counted. */
const SWEEP_MS = 1000;
const PRICES_EVERY_MS = 1000;
/** Candles of a market are looked at after each history write for this long after its last trade. */
const CANDLE_WATCH_MS = 5000;
const SUMMARY_EVERY_MS = 1000;
export const FEED_PATH = '/ws';

/**
 * What uWS registers for the feeds' endpoint when the gateway listens: the gateway of a server
 * listens during its start-up replay, before the feeds exist (they start from the replayed books).
 */
export function feedSocketSettings(limits?: Partial<FeedLimits>): Pick<SocketEndpoint<unknown>, 'path' | 'maxPayloadBytes' | 'idleTimeoutSeconds' | 'maxBackpressureBytes'> {
  const { slowConsumerBytes } = { ...DEFAULT_FEED_LIMITS, ...limits };
  // uWS would drop messages above maxBackpressureBytes: far above the slow-consumer limit, which closes first.
  return { path: FEED_PATH, maxPayloadBytes: 16 * 1024, idleTimeoutSeconds: 60, maxBackpressureBytes: slowConsumerBytes * 4 };
}

/** What the feeds read; the pipeline hands it in. */
export interface FeedPorts {
  markets: readonly MarketSpec[];
  /** Each market's book at start (before any frame). */
  startBooks: readonly DepthMirror[];
  prices(market: MarketIndex): PriceFigures;
  history: Pick<MarketHistory, 'candles' | 'summary24h'>;
  accounts: Pick<AccountReadPort['ledger'], 'findOwner' | 'identity' | 'stats'>;
  delegations: Pick<DelegationStore, 'authorizeCaller'>;
  tokens: Pick<AccessTokens, 'verify'>;
  accountEvents: AccountEventReader;
  /** Resolves once every journal record so far is flushed and its history written. */
  durableAndWritten(): Promise<void>;
  clock(): number;
  logger: Logger;
  limits?: Partial<FeedLimits>;
}

type Channel =
  | { kind: 'book' | 'trades' | 'prices' | 'summary'; name: string; market: MarketSpec }
  | { kind: 'candles'; name: string; market: MarketSpec; interval: CandleInterval }
  | { kind: 'account'; name: string; account: Address; subaccountIndex: number; since: number | undefined };

/** A private subscription: `sent` is the newest event number it was sent; while catching up, `buffer` holds what was published meanwhile. */
interface AccountFollower {
  conn: SocketConnection<ConnectionState>;
  sent: number;
  buffer: AccountEventRecord[] | null;
}

/** A market's frames not yet published: levels merged (new totals), trades in order. */
interface Unpublished {
  /** The sequence number the published book is at: the merged delta starts here. */
  previous: number;
  sequence: number;
  bids: Map<number, number>;
  asks: Map<number, number>;
  trades: PublicTrade[];
}

interface ConnectionState {
  address: string;
  caller: Address | null;
  channels: Set<string>;
  followers: Map<string, AccountFollower>;
  /**
   * While a login's token is being verified: the messages that came after it, handled in order
   * once it is done — so a client may send `login` then `subscribe` to a private channel
   * without waiting for the reply, as it would on any ordered stream.
   */
  afterLogin: string[] | null;
}

/** Most messages held behind a login being verified; more are refused (the client is not waiting for anything). */
const MAX_HELD_BEHIND_LOGIN = 100;

const REPLY_TYPES = { subscribe: 'subscribed', unsubscribe: 'unsubscribed' } as const;

export class Feeds implements FeedSink {
  readonly endpoint: SocketEndpoint<ConnectionState>;
  private readonly limits: FeedLimits;
  private server: Pick<HttpServer, 'publish' | 'subscribers'> | null = null;
  private readonly connections = new Set<SocketConnection<ConnectionState>>();
  private readonly perAddress = new Map<string, number>();
  /** Private channel → its subscribers. */
  private readonly followers = new Map<string, Set<AccountFollower>>();
  /** The books as published. */
  private readonly books: DepthMirror[];
  private readonly lastTradeAt: number[];
  /** Per market: what waits for its window, when it was last published, the timer of its next window. */
  private readonly unpublished: (Unpublished | null)[];
  private readonly publishedAt: number[];
  private readonly windows: (NodeJS.Timeout | undefined)[];
  /** Closed: no more windows, each frame published as it comes. */
  private closing = false;
  /** Bytes published since every connection's unsent bytes were last read: none can have grown by more. */
  private publishedSinceSweep = 0;
  /** Connections past half the slow-consumer limit when last read: read again after each publish. */
  private readonly watched = new Set<SocketConnection<ConnectionState>>();
  private readonly lastSummaryAt: number[];
  /** The last text sent per candle / prices topic (so an unchanged one is not sent again). */
  private readonly lastSent = new Map<string, string>();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(private readonly ports: FeedPorts) {
    this.limits = { ...DEFAULT_FEED_LIMITS, ...ports.limits };
    this.books = ports.startBooks.map((b) => DepthMirror.restore(b.snapshot()));
    this.lastTradeAt = ports.markets.map(() => 0);
    this.unpublished = ports.markets.map(() => null);
    this.publishedAt = ports.markets.map(() => -Infinity);
    this.windows = ports.markets.map(() => undefined);
    this.lastSummaryAt = ports.markets.map(() => 0);
    this.endpoint = {
      ...feedSocketSettings(ports.limits),
      admit: (address) => this.admit(address),
      open: (conn) => this.open(conn),
      message: (conn, text) => this.onMessage(conn, text),
      close: (conn) => this.closed(conn),
    };
  }

  /** Starts publishing through `server` (the gateway's), with heartbeats and the slow-consumer sweep. */
  attach(server: Pick<HttpServer, 'publish' | 'subscribers'>): void {
    this.server = server;
    this.timers.push(
      setInterval(() => this.publish('heartbeat', JSON.stringify({ type: 'heartbeat', time: this.ports.clock() })), this.limits.heartbeatMs),
      setInterval(() => this.sweep(), SWEEP_MS),
      setInterval(() => this.ports.markets.forEach((m) => this.publishPrices(m)), PRICES_EVERY_MS),
    );
  }

  /**
   * Stops the timers and publishes what waits for a window, so the last trades before a stop
   * reach the subscribers; frames after it (a drain still finishing requests) go out at once.
   */
  close(): void {
    this.closing = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
    for (const timer of this.windows) clearTimeout(timer);
    this.windows.fill(undefined);
    for (const market of this.ports.markets) this.publishMarket(market.index);
  }

  // ── connections ──────────────────────────────────────────────────────────────────────────

  private admit(address: string): { state: ConnectionState } | { refuse: { status: number; body: string } } {
    if ((this.perAddress.get(address) ?? 0) >= this.limits.connectionsPerAddress) {
      return { refuse: { status: 429, body: `Too many connections: at most ${this.limits.connectionsPerAddress} per source address` } };
    }
    return { state: { address, caller: null, channels: new Set(), followers: new Map(), afterLogin: null } };
  }

  private open(conn: SocketConnection<ConnectionState>): void {
    this.connections.add(conn);
    this.perAddress.set(conn.state.address, (this.perAddress.get(conn.state.address) ?? 0) + 1);
    conn.subscribe('heartbeat');
  }

  private closed(conn: SocketConnection<ConnectionState>): void {
    this.connections.delete(conn);
    this.watched.delete(conn);
    const left = (this.perAddress.get(conn.state.address) ?? 1) - 1;
    if (left === 0) this.perAddress.delete(conn.state.address);
    else this.perAddress.set(conn.state.address, left);
    for (const [name, follower] of conn.state.followers) this.unfollow(name, follower);
  }

  /** Sends to one connection; one that has fallen too far behind is closed. */
  private send(conn: SocketConnection<ConnectionState>, text: string): void {
    conn.send(text);
    this.checkBehind(conn);
  }

  private checkBehind(conn: SocketConnection<ConnectionState>): void {
    const unsent = conn.bufferedAmount();
    if (unsent > this.limits.slowConsumerBytes) {
      this.ports.logger.info({ address: conn.state.address, unsent }, 'feed: slow consumer closed');
      conn.close(SLOW_CONSUMER_CLOSE, `Slow consumer: ${unsent} bytes unsent, more than ${this.limits.slowConsumerBytes}`);
    } else if (unsent > this.limits.slowConsumerBytes / 2) this.watched.add(conn);
    else this.watched.delete(conn);
  }

  /**
   * Publishes to a topic's subscribers, then reads the unsent bytes of the connections that may
   * now be past the limit. A connection not watched had at most half the limit unsent when last
   * read, since the last sweep, and has grown by at most what was published since: so every
   * connection is read only once half the limit has been published, the watched ones each time.
   */
  private publish(topic: string, text: string): void {
    this.server!.publish(topic, text);
    this.publishedSinceSweep += Buffer.byteLength(text) + FRAME_HEADER_BYTES;
    if (this.publishedSinceSweep > this.limits.slowConsumerBytes / 2) this.sweep();
    else for (const conn of this.watched) this.checkBehind(conn);
  }

  private sweep(): void {
    this.publishedSinceSweep = 0;
    for (const conn of this.connections) this.checkBehind(conn);
  }

  private error(conn: SocketConnection<ConnectionState>, id: unknown, message: string, channel?: string): void {
    this.send(conn, JSON.stringify({ type: 'error', id, channel, message }));
  }

  // ── the client's messages ────────────────────────────────────────────────────────────────

  private onMessage(conn: SocketConnection<ConnectionState>, text: string): void {
    const held = conn.state.afterLogin;
    if (held === null) this.handle(conn, text);
    else if (held.length < MAX_HELD_BEHIND_LOGIN) held.push(text);
    else this.error(conn, undefined, `Too many messages behind a login: at most ${MAX_HELD_BEHIND_LOGIN}; wait for its reply`);
  }

  private handle(conn: SocketConnection<ConnectionState>, text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      msg = undefined;
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
      this.error(conn, undefined, 'Invalid message: expected a JSON object with an op');
      return;
    }
    const { op, id } = msg as { op?: unknown; id?: unknown };
    const replyId = typeof id === 'string' || typeof id === 'number' ? id : undefined;
    switch (op) {
      case 'ping':
        this.send(conn, JSON.stringify({ type: 'pong', id: replyId, time: this.ports.clock() }));
        return;
      case 'login':
        void this.login(conn, replyId, (msg as { token?: unknown }).token);
        return;
      case 'subscribe':
      case 'unsubscribe':
        this.subscription(conn, op, replyId, (msg as { channels?: unknown }).channels);
        return;
      default:
        this.error(conn, replyId, `Unknown op ${JSON.stringify(op)}; allowed: subscribe, unsubscribe, login, ping`);
    }
  }

  private async login(conn: SocketConnection<ConnectionState>, id: unknown, token: unknown): Promise<void> {
    if (typeof token !== 'string') {
      this.error(conn, id, 'token must be a string: the JWT of POST /auth/login');
      return;
    }
    conn.state.afterLogin = [];
    const verified = await this.ports.tokens.verify(token);
    if (conn.closed) return;
    if (!verified.ok) this.error(conn, id, codeFailure(verified).body);
    else {
      conn.state.caller = verified.value;
      this.send(conn, JSON.stringify({ type: 'login', id, account: verified.value }));
    }
    // The messages that came while the token was verified, in order (one may be a login again: it holds the rest).
    const held = conn.state.afterLogin;
    conn.state.afterLogin = null;
    for (const text of held) this.onMessage(conn, text);
  }

  /** Subscribes or unsubscribes every channel of the message, or none when one is refused. */
  private subscription(conn: SocketConnection<ConnectionState>, op: 'subscribe' | 'unsubscribe', id: unknown, list: unknown): void {
    if (!Array.isArray(list) || list.length === 0) {
      this.error(conn, id, 'channels must be a non-empty array of channel names');
      return;
    }
    const channels: Channel[] = [];
    for (const entry of list) {
      const parsed = this.parseChannel(conn, entry, op === 'subscribe');
      if (typeof parsed === 'string') {
        this.error(conn, id, parsed, typeof entry === 'string' ? entry : (entry as { channel?: string })?.channel);
        return;
      }
      // A channel named twice (as given and canonically, say) is one subscription: its first mention counts.
      if (!channels.some((c) => c.name === parsed.name)) channels.push(parsed);
    }
    const state = conn.state;
    if (op === 'unsubscribe') {
      for (const c of channels) this.leave(conn, c.name);
      this.send(conn, JSON.stringify({ type: REPLY_TYPES[op], id, channels: channels.map((c) => c.name) }));
      return;
    }
    const added = new Set(channels.map((c) => c.name).filter((name) => !state.channels.has(name)));
    if (state.channels.size + added.size > this.limits.subscriptionsPerConnection) {
      this.error(conn, id, `Too many subscriptions: at most ${this.limits.subscriptionsPerConnection} per connection`);
      return;
    }
    this.send(conn, JSON.stringify({ type: REPLY_TYPES[op], id, channels: channels.map((c) => c.name) }));
    // Subscribing again starts the channel afresh (a new snapshot, a new catch-up).
    for (const c of channels) {
      this.leave(conn, c.name);
      this.join(conn, c);
    }
  }

  /** A channel entry: a name, or `{channel, since}` for a private channel; the refusal text otherwise. */
  private parseChannel(conn: SocketConnection<ConnectionState>, entry: unknown, subscribing: boolean): Channel | string {
    let name: unknown = entry;
    let since: number | undefined;
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
      const e = entry as { channel?: unknown; since?: unknown };
      name = e.channel;
      if (e.since !== undefined) {
        if (typeof e.since !== 'number' || !Number.isSafeInteger(e.since) || e.since < 0) return `since must be an integer >= 0, got ${JSON.stringify(e.since)}`;
        since = e.since;
      }
    }
    if (typeof name !== 'string') return 'A channel is a name, or {"channel": name, "since": n}';
    const parts = name.split('.');
    const kind = parts[0];
    if (kind === 'account') {
      if (parts.length !== 3) return `Unknown channel ${name}; an account channel is account.<address>.<subaccountIndex>`;
      const account = toAddress(parts[1]);
      if (account === undefined) return 'account must be a 0x-prefixed 20-byte hex address';
      const subaccountIndex = /^\d{1,10}$/.test(parts[2]) ? Number(parts[2]) : -1;
      const canonical = `account.${account}.${subaccountIndex}`;
      if (!subscribing) return { kind, name: canonical, account, subaccountIndex, since };
      const caller = conn.state.caller;
      if (caller === null) return 'Please log in first: {"op": "login", "token": <JWT of POST /auth/login>}';
      const allowed = this.ports.delegations.authorizeCaller(caller, account, subaccountIndex, 'read');
      if (!allowed.ok) return codeFailure(allowed).body;
      return { kind, name: canonical, account, subaccountIndex, since };
    }
    if (since !== undefined) return `since applies to account channels only, not ${name}`;
    if (kind !== 'book' && kind !== 'trades' && kind !== 'prices' && kind !== 'summary' && kind !== 'candles') {
      return `Unknown channel ${name}; channels: book.<symbol>, trades.<symbol>, candles.<symbol>.<interval>, prices.<symbol>, summary.<symbol>, account.<address>.<subaccountIndex>`;
    }
    const market = parts[1] === undefined ? undefined : findMarket(this.ports.markets, parts[1]);
    if (market === undefined) return failure(GatewayCode.SymbolNotFound).body;
    if (kind === 'candles') {
      const interval = parts.length === 3 ? intervalByName(parts[2]) : undefined;
      if (interval === undefined) return `Interval must be one of ${CANDLE_INTERVALS.map((i) => i.name).join(', ')}, got ${parts[2] ?? ''}`;
      return { kind, name: `candles.${market.symbol}.${interval.name}`, market, interval };
    }
    if (parts.length !== 2) return `Unknown channel ${name}`;
    return { kind, name: `${kind}.${market.symbol}`, market };
  }

  private leave(conn: SocketConnection<ConnectionState>, name: string): void {
    const state = conn.state;
    if (!state.channels.delete(name)) return;
    const follower = state.followers.get(name);
    if (follower !== undefined) this.unfollow(name, follower);
    else conn.unsubscribe(name);
  }

  private join(conn: SocketConnection<ConnectionState>, c: Channel): void {
    conn.state.channels.add(c.name);
    const now = this.ports.clock();
    switch (c.kind) {
      case 'book': {
        const book = this.books[c.market.index];
        const all = Number.MAX_SAFE_INTEGER;
        conn.subscribe(c.name);
        this.send(conn, bookSnapshot(c.name, c.market, book.sequence, book.depth(Side.Buy, all, 1), book.depth(Side.Sell, all, 1), now));
        return;
      }
      case 'trades':
        conn.subscribe(c.name);
        return;
      case 'candles': {
        conn.subscribe(c.name);
        const newest = this.ports.history.candles(c.market.index, c.interval, { limit: 1 })[0];
        if (newest !== undefined) this.send(conn, candleMessage(c.name, c.market, newest));
        return;
      }
      case 'prices':
        conn.subscribe(c.name);
        this.send(conn, pricesMessage(c.name, c.market, this.ports.prices(c.market.index), now));
        return;
      case 'summary':
        conn.subscribe(c.name);
        this.send(conn, summaryMessage(c.name, c.market, this.ports.history.summary24h(c.market.index, now)));
        return;
      case 'account':
        void this.follow(conn, c);
    }
  }

  // ── private channels ─────────────────────────────────────────────────────────────────────

  /** Catches a private subscription up from `since` (or from now), then makes it live. */
  private async follow(conn: SocketConnection<ConnectionState>, c: Extract<Channel, { kind: 'account' }>): Promise<void> {
    const follower: AccountFollower = { conn, sent: 0, buffer: [] };
    conn.state.followers.set(c.name, follower);
    let set = this.followers.get(c.name);
    if (set === undefined) this.followers.set(c.name, (set = new Set()));
    set.add(follower);
    try {
      await this.ports.durableAndWritten();
    } catch {
      this.error(conn, undefined, failure(GatewayCode.DatabaseFailure).body, c.name);
      this.leave(conn, c.name);
      return;
    }
    // Unsubscribed, subscribed afresh or gone meanwhile.
    if (conn.state.followers.get(c.name) !== follower) return;
    const owner = this.ports.accounts.findOwner(c.account, c.subaccountIndex);
    // Everything numbered before the wait is in history now; what was published since is in `buffer`.
    const newest = owner === undefined ? 0 : this.ports.accountEvents.lastSeq(owner);
    const since = c.since ?? newest;
    const buffered = follower.buffer!;
    follower.buffer = null;
    if (since > newest) {
      this.send(conn, JSON.stringify({ channel: c.name, type: 'resync', sequence: newest, message: `Sequence ${since} is ahead of the account's newest event ${newest}: take a fresh snapshot (REST)` }));
      follower.sent = newest;
    } else if (newest - since > this.limits.maxResume) {
      this.send(conn, JSON.stringify({ channel: c.name, type: 'resync', sequence: newest, message: `Sequence ${since} is more than ${this.limits.maxResume} events behind the account's newest ${newest}: take a fresh snapshot (REST)` }));
      follower.sent = newest;
    } else {
      follower.sent = since;
      if (owner !== undefined && since < newest) for (const e of this.ports.accountEvents.after(owner, since, this.limits.maxResume)) this.deliver(follower, c.name, e, accountEventMessage(c.name, this.ports.markets, e));
    }
    for (const e of buffered) if (e.seq > follower.sent) this.deliver(follower, c.name, e, accountEventMessage(c.name, this.ports.markets, e));
    this.send(conn, JSON.stringify({ channel: c.name, type: 'live', sequence: follower.sent }));
    const found = owner ?? this.ports.accounts.findOwner(c.account, c.subaccountIndex);
    if (found !== undefined) this.sendStats(c.name, found, [follower]);
  }

  private unfollow(name: string, follower: AccountFollower): void {
    follower.conn.state.followers.delete(name);
    const set = this.followers.get(name);
    set?.delete(follower);
    if (set?.size === 0) this.followers.delete(name);
  }

  /** One event to one follower, unless it had it already: numbers only grow. */
  private deliver(follower: AccountFollower, channel: string, e: AccountEventRecord, text: string): void {
    if (follower.buffer !== null) {
      follower.buffer.push(e);
      return;
    }
    if (e.seq <= follower.sent) return;
    follower.sent = e.seq;
    this.send(follower.conn, text);
  }

  private sendStats(channel: string, owner: number, to: Iterable<AccountFollower>): void {
    const identity = this.ports.accounts.identity(owner);
    const stats = this.ports.accounts.stats(owner);
    if (identity === undefined || stats === undefined) return;
    for (const follower of to) {
      if (follower.buffer !== null) continue;
      this.send(follower.conn, JSON.stringify({ channel, type: 'stats', sequence: follower.sent, stats: statsView(identity.address, identity.subaccountIndex, stats) }));
    }
  }

  // ── what the sequencer hands on ────────────────────────────────────────────────────────────

  /** Public changes go out with their market's next publish (at once if the last is a window ago); account events now. */
  frame(frame: FeedFrame): void {
    const touched = new Set<MarketIndex>();
    for (const delta of frame.books) {
      const u = this.unpublishedOf(delta.market);
      for (const [price, quantity] of delta.bids) u.bids.set(price, quantity);
      for (const [price, quantity] of delta.asks) u.asks.set(price, quantity);
      u.sequence = delta.sequence;
      touched.add(delta.market);
    }
    const now = this.ports.clock();
    for (const t of frame.trades) {
      this.unpublishedOf(t.market).trades.push(t);
      // The candles are watched from the trade on, not from its window: its history write may
      // be reported before the window publishes.
      this.lastTradeAt[t.market] = now;
      touched.add(t.market);
    }
    for (const market of touched) this.schedule(market);
    if (frame.accounts.length > 0) this.publishAccounts(frame.accounts);
  }

  private unpublishedOf(market: MarketIndex): Unpublished {
    const sequence = this.books[market].sequence;
    return (this.unpublished[market] ??= { previous: sequence, sequence, bids: new Map(), asks: new Map(), trades: [] });
  }

  /**
   * Publishes the market now if its last publish is a window ago, else once it is (one timer).
   * The window is measured in this process's monotonic time (`performance.now()`), not the
   * exchange's clock (`ports.clock`, which stamps messages): the timer that ends it is a real
   * one, and a clock a test or an operator sets must not stretch or skip it.
   */
  private schedule(market: MarketIndex): void {
    if (this.closing) return this.publishMarket(market);
    if (this.windows[market] !== undefined) return;
    const wait = this.publishedAt[market] + this.limits.publishEveryMs - performance.now();
    if (wait <= 0) {
      this.publishMarket(market);
      return;
    }
    this.windows[market] = setTimeout(() => {
      this.windows[market] = undefined;
      this.publishMarket(market);
    }, wait);
  }

  /** The market's merged delta onto the published book, then its trades and prices. */
  private publishMarket(index: MarketIndex): void {
    const u = this.unpublished[index];
    if (u === null) return;
    this.unpublished[index] = null;
    this.publishedAt[index] = performance.now();
    const now = this.ports.clock();
    const market = this.ports.markets[index];
    const book = this.books[index];
    for (const [price, quantity] of u.bids) book.level(u.sequence, Side.Buy, price, quantity);
    for (const [price, quantity] of u.asks) book.level(u.sequence, Side.Sell, price, quantity);
    book.saw(u.sequence);
    const server = this.server;
    if (server === null) return;
    const bookTopic = `book.${market.symbol}`;
    if (u.sequence !== u.previous && server.subscribers(bookTopic) > 0) {
      const delta = { market: index, previous: u.previous, sequence: u.sequence, bids: [...u.bids], asks: [...u.asks] };
      this.publish(bookTopic, bookDelta(bookTopic, market, delta, { bids: book.depth(Side.Buy, CHECKSUM_LEVELS, 1), asks: book.depth(Side.Sell, CHECKSUM_LEVELS, 1) }, now));
    }
    if (u.trades.length === 0) return;
    const tradesTopic = `trades.${market.symbol}`;
    if (server.subscribers(tradesTopic) > 0) this.publish(tradesTopic, tradesMessage(tradesTopic, market, u.trades));
    this.publishPrices(market);
  }

  private publishAccounts(events: readonly AccountEventRecord[]): void {
    const touched = new Map<number, string>();
    for (const e of events) {
      const identity = this.ports.accounts.identity(e.owner);
      if (identity === undefined) continue;
      const channel = `account.${identity.address}.${identity.subaccountIndex}`;
      const set = this.followers.get(channel);
      if (set === undefined) continue;
      const text = accountEventMessage(channel, this.ports.markets, e);
      for (const follower of set) this.deliver(follower, channel, e, text);
      touched.set(e.owner, channel);
    }
    for (const [owner, channel] of touched) this.sendStats(channel, owner, this.followers.get(channel) ?? []);
  }

  private publishPrices(market: MarketSpec): void {
    const topic = `prices.${market.symbol}`;
    if (this.server === null || this.server.subscribers(topic) === 0) return;
    const figures = this.ports.prices(market.index);
    const key = `${figures.mark}:${figures.index}:${figures.last}:${figures.fundingRate}`;
    if (this.lastSent.get(topic) === key) return;
    this.lastSent.set(topic, key);
    this.publish(topic, pricesMessage(topic, market, figures, this.ports.clock()));
  }

  historyWritten(): void {
    const server = this.server;
    if (server === null) return;
    const now = this.ports.clock();
    for (const market of this.ports.markets) {
      if (now - this.lastTradeAt[market.index] > CANDLE_WATCH_MS) continue;
      for (const interval of CANDLE_INTERVALS) {
        const topic = `candles.${market.symbol}.${interval.name}`;
        if (server.subscribers(topic) === 0) continue;
        const newest = this.ports.history.candles(market.index, interval, { limit: 1 })[0];
        if (newest === undefined) continue;
        const text = candleMessage(topic, market, newest);
        if (this.lastSent.get(topic) === text) continue;
        this.lastSent.set(topic, text);
        this.publish(topic, text);
      }
      const topic = `summary.${market.symbol}`;
      if (server.subscribers(topic) > 0 && now - this.lastSummaryAt[market.index] >= SUMMARY_EVERY_MS) {
        this.lastSummaryAt[market.index] = now;
        this.publish(topic, summaryMessage(topic, market, this.ports.history.summary24h(market.index, now)));
      }
    }
  }
}
