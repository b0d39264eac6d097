/**
 * A gateway-like HTTP server with only the history routes, on a free loopback port, stopped
 * after the test file. Mirrors gateway.ts's route table so the tests need no edit there.
 */
import { after } from 'node:test';
import { get as httpGet } from 'node:http';
import { readFileSync } from 'node:fs';
import { parseMarkets } from '../../src/config/market.ts';
import { failure, GatewayCode } from '../../src/http/errors.ts';
import { startHttpServer, type Route } from '../../src/http/uws.ts';
import { candlesRoute } from '../../src/http/routes/candles.ts';
import { tradesRoute } from '../../src/http/routes/trades.ts';
import { pricesRoute, summaryRoute } from '../../src/http/routes/price.ts';
import type { MarketHistory, PriceSource } from '../../src/history/types.ts';

export const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));
export const NOW = 1_700_000_000_000;

export interface HistoryServer {
  get(path: string): Promise<{ status: number; text: string; contentType: string; json: () => unknown }>;
}

export async function startHistoryServer(
  history: MarketHistory,
  prices: PriceSource = () => ({ mark: 0, index: 0 }),
  clock = () => NOW,
): Promise<HistoryServer> {
  const marketData = { markets };
  const routes: Route[] = [candlesRoute(marketData, history), tradesRoute(marketData, history), pricesRoute(marketData, history, prices, clock), summaryRoute(marketData, history, clock)];
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    routes,
    maxBodyBytes: 1024,
    fallback: (req) => failure(GatewayCode.RouteNotFound, req.path),
    shuttingDown: failure(GatewayCode.Overloaded, 'shutting down'),
    onHandlerError: () => failure(GatewayCode.Internal),
  });
  after(() => server.close());
  const url = `http://127.0.0.1:${server.port}`;
  return {
    // No keep-alive (agent: false): the file ends as soon as its last test does.
    get: (path) =>
      new Promise((resolve, reject) => {
        httpGet(url + path, { agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, text, contentType: res.headers['content-type'] ?? '', json: () => JSON.parse(text) });
          });
          res.on('error', reject);
        }).on('error', reject);
      }),
  };
}

/** A history whose database is gone: every read throws, as lmdb-js does on a failed read. */
export const BROKEN_HISTORY: MarketHistory = {
  trades: () => { throw new Error('MDB_BAD_TXN'); },
  candles: () => { throw new Error('MDB_BAD_TXN'); },
  lastPrice: () => { throw new Error('MDB_BAD_TXN'); },
  summary24h: () => { throw new Error('MDB_BAD_TXN'); },
};

/** A history with nothing in it, for gateway tests that do not exercise these routes. */
export const NO_HISTORY: MarketHistory = {
  trades: () => [],
  candles: () => [],
  lastPrice: () => undefined,
  summary24h: (_marketIndex, now) => ({ from: now - (now % 60_000) + 60_000 - 86_400_000, window: undefined, lastPrice: undefined }),
};
