/**
 * A streaming-feed client for tests: a real WebSocket (the `ws` package) to the exchange's /ws,
 * every message kept in order, and waits for the one a test expects; and the reads of a private
 * stream that the resume tests share (on one exchange, or on a replica).
 */
import assert from 'node:assert/strict';
import WebSocket from 'ws';

export interface FeedMessage {
  type: string;
  channel?: string;
  [field: string]: any;
}

export class FeedClient {
  readonly messages: FeedMessage[] = [];
  readonly socket: WebSocket;
  closed: { code: number; reason: string } | null = null;
  private waiters: Array<() => void> = [];

  private constructor(url: string) {
    this.socket = new WebSocket(url.replace(/^http/, 'ws') + '/ws');
    this.socket.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)));
      this.wake();
    });
    this.socket.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
      this.wake();
    });
  }

  /** Connects to the exchange at `url` (http://host:port). */
  static async connect(url: string): Promise<FeedClient> {
    const client = new FeedClient(url);
    await new Promise<void>((resolve, reject) => {
      client.socket.once('open', () => resolve());
      client.socket.once('error', reject);
    });
    return client;
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves once `condition()` holds, checked now and at every message; fails after `timeoutMs`. */
  async until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (this.closed !== null) throw new Error(`feed closed (${this.closed.code} ${this.closed.reason}) while waiting for ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The first message from index `from` on that `match` accepts; fails after `timeoutMs`. */
  async next(match: (m: FeedMessage) => boolean, what: string, from = 0, timeoutMs = 10_000): Promise<FeedMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(from).find(match);
      if (found !== undefined) return found;
      if (this.closed !== null) throw new Error(`feed closed (${this.closed.code} ${this.closed.reason}) while waiting for ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${timeoutMs} ms; last messages: ${JSON.stringify(this.messages.slice(-3))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async login(token: string): Promise<void> {
    const from = this.messages.length;
    this.send({ op: 'login', id: 'login', token });
    const reply = await this.next((m) => m.id === 'login', 'login reply', from);
    if (reply.type !== 'login') throw new Error(`login refused: ${reply.message}`);
  }

  close(): Promise<void> {
    if (this.closed !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}

// ── private streams ─────────────────────────────────────────────────────────────────────────

const EVENT_TYPES = new Set(['order', 'fill', 'position', 'balance']);

/** The numbered events of `channel` a client got, in order. */
export function events(feed: FeedClient, channel: string): FeedMessage[] {
  return feed.messages.filter((m) => m.channel === channel && EVENT_TYPES.has(m.type));
}

/** A subscription to `channel` from `since` (or from now), once it is live. */
export async function follow(url: string, token: string, channel: string, since?: number): Promise<FeedClient> {
  const feed = await FeedClient.connect(url);
  await feed.login(token);
  feed.send({ op: 'subscribe', id: 's', channels: [since === undefined ? channel : { channel, since }] });
  await feed.next((m) => m.channel === channel && m.type === 'live', `${channel} live`);
  return feed;
}

/** The stream as a fresh subscription from 0 reads it, up to its newest number. */
export async function whole(url: string, token: string, channel: string): Promise<FeedMessage[]> {
  const feed = await follow(url, token, channel, 0);
  const all = events(feed, channel);
  await feed.close();
  return all;
}

/** What the first connection got, then the resumed one: the whole stream, every number once, each message the same text. */
export function assertResumed(first: FeedMessage[], resumed: FeedMessage[], all: FeedMessage[]): void {
  assert.ok(first.length > 0 && resumed.length > 0, 'both connections saw events');
  assert.deepEqual(
    [...first, ...resumed].map((m) => m.sequence),
    all.map((_, i) => i + 1),
    'the two connections together saw every number once, in order',
  );
  assert.deepEqual([...first, ...resumed], all, 'and the very messages of the whole stream');
}
