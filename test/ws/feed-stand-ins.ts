/**
 * What the feeds' unit tests run `Feeds` on: the shipped markets, ports that answer with nothing
 * (`standInPorts`, each test overriding what it reads), and a connection that keeps what it is
 * sent, parsed, and the topics it holds (`RecordedConnection`).
 */
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { parseMarkets } from '../../src/config/market.ts';
import { DepthMirror } from '../../src/app/depth-mirror.ts';
import type { FeedPorts } from '../../src/ws/feeds.ts';
import type { SocketConnection } from '../../src/http/uws.ts';

export const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));

/** Ports with empty books, no prices, no history, and nothing behind the private channels; `overrides` replaces some. */
export function standInPorts(overrides: Partial<FeedPorts> = {}): FeedPorts {
  const nothing = {} as never;
  return {
    markets,
    startBooks: markets.map(() => new DepthMirror()),
    prices: () => ({ mark: 0, index: 0, last: undefined, fundingRate: null }),
    history: { candles: () => [], summary24h: () => ({ from: 0, window: undefined, lastPrice: undefined }) } as never,
    accounts: nothing,
    delegations: nothing,
    tokens: nothing,
    accountEvents: nothing,
    durableAndWritten: async () => {},
    clock: () => Date.now(),
    logger: pino({ level: 'silent' }),
    ...overrides,
  };
}

export class RecordedConnection implements SocketConnection<any> {
  readonly sent: any[] = [];
  readonly topics = new Set<string>();
  closed = false;
  constructor(readonly state: any, readonly remoteAddress: string) {}
  send(text: string): boolean {
    this.sent.push(JSON.parse(text));
    return true;
  }
  subscribe(topic: string): void {
    this.topics.add(topic);
  }
  unsubscribe(topic: string): void {
    this.topics.delete(topic);
  }
  bufferedAmount(): number {
    return 0;
  }
  close(): void {
    this.closed = true;
  }
}
