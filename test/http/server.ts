/**
 * Starts the gateway (http/gateway `startGateway`, its whole route table for public market data)
 * on a free loopback port for a test, and stops it after, over the market data, history and
 * prices the test gives: a history with nothing in it (`NO_HISTORY`) unless the test's routes
 * read one, such as one it wrote (test/history/temp-store) or one whose database fails
 * (`BROKEN_HISTORY`).
 */
import { after } from 'node:test';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { parseMarkets } from '../../src/config/market.ts';
import { PROFILES } from '../../src/config/profile.ts';
import { startGateway } from '../../src/http/gateway.ts';
import type { Clock, MarketDataPort, MarketHistory, PriceSource } from '../../src/http/ports.ts';

/** The gateway's clock unless a test gives one: 2023-11-14T22:13:20Z. */
export const NOW = 1_700_000_000_000;

/** The demo markets (config/markets.json) with empty books. */
export const DEMO_MARKETS: MarketDataPort = {
  profile: PROFILES.testnet,
  markets: parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8'))),
  book: () => ({ sequence: 0, depth: () => [] }),
  typedData: () => ({}),
};

/** A history with nothing in it, for gateway tests that do not exercise these routes. */
export const NO_HISTORY: MarketHistory = {
  trades: () => [],
  candles: () => [],
  lastPrice: () => undefined,
  summary24h: (_marketIndex, now) => ({ from: now - (now % 60_000) + 60_000 - 86_400_000, window: undefined, lastPrice: undefined }),
};

/** A history whose database is gone: every read throws, as lmdb-js does on a failed read. */
export const BROKEN_HISTORY: MarketHistory = {
  trades: () => { throw new Error('MDB_BAD_TXN'); },
  candles: () => { throw new Error('MDB_BAD_TXN'); },
  lastPrice: () => { throw new Error('MDB_BAD_TXN'); },
  summary24h: () => { throw new Error('MDB_BAD_TXN'); },
};

export interface TestServer {
  url: string;
  get(path: string): Promise<{ status: number; text: string; json: () => unknown; headers: Headers }>;
  request(method: string, path: string, body?: string): Promise<{ status: number; text: string; headers: Headers }>;
}

export interface TestGatewayOptions {
  clock?: Clock;
  history?: MarketHistory;
  /** Mark and index per market; default none known (0). */
  prices?: PriceSource;
}

export async function startTestGateway(marketData: MarketDataPort, options: TestGatewayOptions = {}): Promise<TestServer> {
  const { clock = () => NOW, history = NO_HISTORY, prices = () => ({ mark: 0, index: 0 }) } = options;
  const server = await startGateway({ host: '127.0.0.1', port: 0, clock, logger: pino({ level: 'silent' }), marketData, history, prices });
  after(() => server.close());
  const url = `http://127.0.0.1:${server.port}`;
  const request = async (method: string, path: string, body?: string) => {
    const res = await fetch(url + path, { method, body, headers: body === undefined ? {} : { 'content-type': 'application/json' } });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
  return {
    url,
    request,
    get: async (path) => {
      const r = await request('GET', path);
      return { ...r, json: () => JSON.parse(r.text) };
    },
  };
}
