/**
 * @module client/feeds
 *
 * The streaming feeds (GET /ws, docs/feeds.md) as a client keeps them: one WebSocket, the
 * channels it should be subscribed to, and every message handed to the listeners. When the
 * connection drops (a restart of the exchange, a network cut, 30 s without even a heartbeat) it
 * reconnects with a growing delay (0.25 s doubling to 5 s), logs in again with a fresh token
 * when it holds private channels, and subscribes to every channel again: public channels start
 * afresh (a new book snapshot), private `account.<address>.<i>` channels resume with `since` =
 * the last `sequence` seen, so every numbered event arrives exactly once across the cut.
 *
 * Private subscriptions wait for the login's answer (the server checks the token
 * asynchronously); public ones go at once. Timers are unref'd: an open feed never keeps a
 * process alive by itself.
 *
 * WebSocket: the platform's (browsers, Node 22+), else the `ws` package (Node 20).
 *
 * May import: ws (loaded only when there is no global WebSocket).
 */

export interface FeedMessage {
  type: string;
  channel?: string;
  sequence?: number;
  id?: string | number;
  [field: string]: unknown;
}

/** The part of the WebSocket API used here (browsers and `ws` both have it). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'close' | 'error' | 'message', listener: (event: { data?: unknown; code?: number; reason?: string }) => void): void;
}

export type WebSocketFactory = (url: string) => WebSocketLike;

export interface FeedOptions {
  /** The exchange: http(s)://host:port. */
  url: string;
  /** A valid token for `login` (private channels); called again at every reconnect. */
  token?: () => Promise<string>;
  webSocket?: WebSocketFactory;
}

const OPEN = 1;
const SILENCE_MS = 30_000;
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5_000;

/** `account.<address>.<subaccountIndex>`, the address lowercased as the server names it. */
export const accountChannel = (address: string, subaccountIndex = 0): string => `account.${address.toLowerCase()}.${subaccountIndex}`;

const isPrivate = (channel: string): boolean => channel.startsWith('account.');

async function defaultFactory(): Promise<WebSocketFactory> {
  const platform = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
  if (platform !== undefined) return (url) => new platform(url);
  const { default: WebSocket } = await import('ws');
  return (url) => new WebSocket(url) as unknown as WebSocketLike;
}

export class Feed {
  /** Channels wanted, with the last private `sequence` seen (resume point), by canonical name. */
  private readonly channels = new Map<string, number | undefined>();
  private readonly listeners = new Set<(message: FeedMessage) => void>();
  private readonly stateListeners = new Set<(state: 'open' | 'closed') => void>();
  private socket: WebSocketLike | undefined;
  private loggedIn = false;
  /** The last state told to `onState` listeners; null before the first connection opened or failed. */
  private state: 'open' | 'closed' | null = null;
  private closed = false;
  private delay = FIRST_DELAY_MS;
  private silence: ReturnType<typeof setTimeout> | undefined;
  private nextId = 1;
  private opened!: () => void;
  /** Resolves once the first connection is open. */
  readonly ready = new Promise<void>((resolve) => (this.opened = resolve));

  constructor(private readonly options: FeedOptions) {
    void this.connect();
  }

  /** Every message from now on (snapshots, deltas, events, `live`, errors, heartbeats). Returns the unsubscriber. */
  onMessage(listener: (message: FeedMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Called with `open` at each (re)connection, and `closed` when the connection drops or the
   * first one fails — once: not again for each reconnect that fails meanwhile.
   */
  onState(listener: (state: 'open' | 'closed') => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /**
   * Subscribes to `channels` now and after every reconnect. A private channel resumes after
   * `since` (0: its whole history); without it, it starts live.
   */
  subscribe(channels: readonly string[], since?: number): void {
    const names = channels.map((c) => (isPrivate(c) ? c.toLowerCase() : c));
    for (const c of names) this.channels.set(c, isPrivate(c) ? since : undefined);
    this.sendSubscriptions(names);
  }

  unsubscribe(channels: readonly string[]): void {
    for (const c of channels) this.channels.delete(isPrivate(c) ? c.toLowerCase() : c);
    this.send({ op: 'unsubscribe', id: this.nextId++, channels });
  }

  /** The last numbered event seen on a private channel (where a resume starts). */
  lastSequence(channel: string): number | undefined {
    return this.channels.get(channel.toLowerCase());
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.silence);
    this.socket?.close(1000, 'client closed');
  }

  private async connect(): Promise<void> {
    const factory = this.options.webSocket ?? (await defaultFactory());
    if (this.closed) return;
    const socket = factory(this.options.url.replace(/^http/, 'ws') + '/ws');
    this.socket = socket;
    this.loggedIn = false;
    socket.addEventListener('open', () => {
      this.delay = FIRST_DELAY_MS;
      this.heard();
      this.opened();
      this.enter('open');
      this.sendSubscriptions([...this.channels.keys()]);
    });
    socket.addEventListener('message', (event) => {
      this.heard();
      const message = JSON.parse(String(event.data)) as FeedMessage;
      this.track(message);
      for (const l of this.listeners) l(message);
    });
    socket.addEventListener('error', () => {}); // a close follows; reconnecting is done there
    socket.addEventListener('close', () => {
      clearTimeout(this.silence);
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.enter('closed');
      if (this.closed) return;
      const wait = this.delay;
      this.delay = Math.min(MAX_DELAY_MS, this.delay * 2);
      setTimeout(() => void this.connect(), wait).unref?.();
    });
  }

  /** Tells the listeners of a change of state (a reconnect that fails again changes nothing). */
  private enter(state: 'open' | 'closed'): void {
    if (this.state === state) return;
    this.state = state;
    for (const l of this.stateListeners) l(state);
  }

  /** A connection silent for 30 s (heartbeats come every 10 s) is dead: drop it and reconnect. */
  private heard(): void {
    clearTimeout(this.silence);
    this.silence = setTimeout(() => this.socket?.close(4000, 'silent'), SILENCE_MS);
    this.silence.unref?.();
  }

  private track(message: FeedMessage): void {
    if (message.type === 'login') {
      this.loggedIn = true;
      this.sendSubscriptions([...this.channels.keys()].filter(isPrivate));
      return;
    }
    const channel = message.channel;
    if (channel === undefined || !isPrivate(channel) || typeof message.sequence !== 'number' || message.type === 'stats') return;
    if (this.channels.has(channel)) this.channels.set(channel, message.sequence);
  }

  private sendSubscriptions(names: readonly string[]): void {
    if (this.socket?.readyState !== OPEN) return;
    const publicOnes = names.filter((c) => !isPrivate(c));
    if (publicOnes.length > 0) this.send({ op: 'subscribe', id: this.nextId++, channels: publicOnes });
    const privateOnes = names.filter(isPrivate);
    if (privateOnes.length === 0) return;
    if (!this.loggedIn) {
      this.login();
      return;
    }
    const entries = privateOnes.map((channel) => {
      const since = this.channels.get(channel);
      return since === undefined ? channel : { channel, since };
    });
    this.send({ op: 'subscribe', id: this.nextId++, channels: entries });
  }

  private loggingIn: WebSocketLike | undefined;

  private login(): void {
    const token = this.options.token;
    if (token === undefined) throw new Error('private channels need a token: use ExchangeClient.feed() after login');
    if (this.loggingIn === this.socket) return;
    this.loggingIn = this.socket;
    void token().then((t) => this.send({ op: 'login', id: this.nextId++, token: t }));
  }

  private send(message: unknown): void {
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify(message));
  }
}
