/**
 * @module web/feed
 *
 * The page's one WebSocket to the exchange's `/ws` (docs/feeds.md): it sends what the page asks
 * (`subscribe`, `unsubscribe`), hands every message to the page, and reconnects by itself.
 * Its status — connecting, live, or disconnected with the reason and when the next attempt is —
 * is what the page shows, so a reader always knows whether the figures are live.
 *
 * Reconnection waits 1, 2, 4, 8 s, then 10 s between attempts; every open calls `open`, where the
 * page subscribes again and reloads what the gap may have cost it. A connection that hears
 * nothing for `SILENCE_MS` is taken as dead and replaced: the server sends a heartbeat every
 * 10 s, and a half-open TCP connection (a sleeping laptop, a dropped route) never reports that
 * it closed.
 * May import: web/ only (browser code).
 */

export interface FeedMessage {
  type: string;
  channel?: string;
  id?: string | number;
  message?: string;
  [field: string]: unknown;
}

export type FeedStatus =
  | { state: 'connecting' }
  | { state: 'live' }
  | { state: 'disconnected'; reason: string; retryInMs: number };

export interface FeedHandlers {
  /** The socket opened: subscribe to what the page shows. */
  open(): void;
  message(message: FeedMessage): void;
  status(status: FeedStatus): void;
}

const SILENCE_MS = 25_000;
const MAX_RETRY_MS = 10_000;

export class Feed {
  private socket: WebSocket | null = null;
  private failures = 0;
  private silence: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly url: string,
    private readonly handlers: FeedHandlers,
  ) {}

  start(): void {
    this.connect();
  }

  get live(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  /** Sends when live; while disconnected there is nothing to do: `open` sends everything again. */
  send(request: Record<string, unknown>): void {
    if (this.live) this.socket!.send(JSON.stringify(request));
  }

  private connect(): void {
    this.handlers.status({ state: 'connecting' });
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.onopen = () => {
      this.failures = 0;
      this.heard();
      this.handlers.status({ state: 'live' });
      this.handlers.open();
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      this.heard();
      this.handlers.message(JSON.parse(String(event.data)) as FeedMessage);
    };
    socket.onclose = (event) => {
      this.lost(socket, event.reason !== '' ? event.reason : event.code === 1006 ? 'connection lost' : `closed (${event.code})`);
    };
  }

  /** Shows the loss and schedules the next attempt, once per socket. */
  private lost(socket: WebSocket, reason: string): void {
    // A socket given up after a silence closes late: only the current one schedules a retry.
    if (this.socket !== socket) return;
    this.socket = null;
    clearTimeout(this.silence);
    const retryInMs = Math.min(1000 * 2 ** this.failures++, MAX_RETRY_MS);
    this.handlers.status({ state: 'disconnected', reason, retryInMs });
    setTimeout(() => this.connect(), retryInMs);
  }

  private heard(): void {
    clearTimeout(this.silence);
    const socket = this.socket!;
    this.silence = setTimeout(() => {
      this.lost(socket, `nothing heard for ${SILENCE_MS / 1000} s`);
      socket.close();
    }, SILENCE_MS);
  }
}
