/**
 * @module ws/feed-connections
 *
 * The feeds' open connections: their state, the per-source-address limit, and writing to
 * them — to one connection directly or to a topic's subscribers through the gateway's uWS
 * server (a message serialized once, uWS writes the one string to every subscriber).
 *
 * Slow consumers: a connection whose unsent bytes exceed `slowConsumerBytes` is closed with
 * 4008 and a reason, so it never slows the others nor sees a gap. Its unsent bytes grow only by
 * what is written to it, so they are read after each direct send, after each publish for
 * connections already past half the limit, and on every connection once half the limit has
 * been published since they were last all read (and every `SWEEP_MS`, by the feeds' timer, for
 * what uWS writes itself: pongs).
 * May import: auth/address (types), history/account-events (types), http/uws (types), ws/, pino (types).
 */
import type { Logger } from 'pino';
import type { Address } from '../auth/address.ts';
import type { AccountEventRecord } from '../history/account-events.ts';
import type { HttpServer, SocketConnection } from '../http/uws.ts';
import type { FeedLimits } from './feed-limits.ts';

/** The close code of a slow consumer (the 4000s are the application's). */
export const SLOW_CONSUMER_CLOSE = 4008;
/** What a WebSocket frame adds to a message written to a socket, at most (server frames are unmasked). */
const FRAME_HEADER_BYTES = 10;
/** Every connection is read at least this often: uWS's own writes (pongs to a client's pings) are not counted. */
export const SWEEP_MS = 1000;

/** A private subscription: `sent` is the newest event number it was sent; while catching up, `buffer` holds what was published meanwhile. */
export interface AccountFollower {
  conn: FeedConnection;
  sent: number;
  buffer: AccountEventRecord[] | null;
  /** Who subscribed (the connection's caller then) to which subaccount: a delegate's grant is checked again at each event. */
  reader: Address;
  account: Address;
  subaccountIndex: number;
}

export interface ConnectionState {
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

export type FeedConnection = SocketConnection<ConnectionState>;

export class FeedConnections {
  private server: Pick<HttpServer, 'publish' | 'subscribers'> | null = null;
  private readonly connections = new Set<FeedConnection>();
  private readonly perAddress = new Map<string, number>();
  /** Bytes published since every connection's unsent bytes were last read: none can have grown by more. */
  private publishedSinceSweep = 0;
  /** Connections past half the slow-consumer limit when last read: read again after each publish. */
  private readonly watched = new Set<FeedConnection>();

  constructor(
    private readonly limits: Pick<FeedLimits, 'connectionsPerAddress' | 'slowConsumerBytes'>,
    private readonly logger: Logger,
  ) {}

  /** Publishes through `server` (the gateway's) from now on. */
  attach(server: Pick<HttpServer, 'publish' | 'subscribers'>): void {
    this.server = server;
  }

  /** The feeds publish nothing before they are attached. */
  get attached(): boolean {
    return this.server !== null;
  }

  subscribers(topic: string): number {
    return this.server === null ? 0 : this.server.subscribers(topic);
  }

  admit(address: string): { state: ConnectionState } | { refuse: { status: number; body: string; headers: Record<string, string> } } {
    if ((this.perAddress.get(address) ?? 0) >= this.limits.connectionsPerAddress) {
      // A slot frees when one of the address's connections closes: a second is a fair first wait.
      return { refuse: { status: 429, body: `Too many connections: at most ${this.limits.connectionsPerAddress} per source address`, headers: { 'Retry-After': '1' } } };
    }
    return { state: { address, caller: null, channels: new Set(), followers: new Map(), afterLogin: null } };
  }

  opened(conn: FeedConnection): void {
    this.connections.add(conn);
    this.perAddress.set(conn.state.address, (this.perAddress.get(conn.state.address) ?? 0) + 1);
  }

  closed(conn: FeedConnection): void {
    this.connections.delete(conn);
    this.watched.delete(conn);
    const left = (this.perAddress.get(conn.state.address) ?? 1) - 1;
    if (left === 0) this.perAddress.delete(conn.state.address);
    else this.perAddress.set(conn.state.address, left);
  }

  /** Sends to one connection; one that has fallen too far behind is closed. */
  send(conn: FeedConnection, text: string): void {
    conn.send(text);
    this.checkBehind(conn);
  }

  error(conn: FeedConnection, id: unknown, message: string, channel?: string): void {
    this.send(conn, JSON.stringify({ type: 'error', id, channel, message }));
  }

  /**
   * Publishes to a topic's subscribers, then reads the unsent bytes of the connections that may
   * now be past the limit. A connection not watched had at most half the limit unsent when last
   * read, since the last sweep, and has grown by at most what was published since: so every
   * connection is read only once half the limit has been published, the watched ones each time.
   */
  publish(topic: string, text: string): void {
    this.server!.publish(topic, text);
    this.publishedSinceSweep += Buffer.byteLength(text) + FRAME_HEADER_BYTES;
    if (this.publishedSinceSweep > this.limits.slowConsumerBytes / 2) this.sweep();
    else for (const conn of this.watched) this.checkBehind(conn);
  }

  sweep(): void {
    this.publishedSinceSweep = 0;
    for (const conn of this.connections) this.checkBehind(conn);
  }

  private checkBehind(conn: FeedConnection): void {
    const unsent = conn.bufferedAmount();
    if (unsent > this.limits.slowConsumerBytes) {
      this.logger.info({ address: conn.state.address, unsent }, 'feed: slow consumer closed');
      conn.close(SLOW_CONSUMER_CLOSE, `Slow consumer: ${unsent} bytes unsent, more than ${this.limits.slowConsumerBytes}`);
    } else if (unsent > this.limits.slowConsumerBytes / 2) this.watched.add(conn);
    else this.watched.delete(conn);
  }
}
