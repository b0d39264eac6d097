/**
 * @module pipeline
 *
 * The whole exchange wired in one place. Read top to bottom, it is the path of a request:
 *
 *   ① gateway → ② signatures → ③ sequencer + risk → ④ market threads → ⑤ settlement
 *   → ⑥ journal (flushed) → ⑦ reply
 *
 * (docs/architecture.md explains each boundary.) Every stage is handed the interfaces it
 * needs; none reaches into another.
 */
import { mkdirSync } from 'node:fs';
import { open } from 'lmdb';
import type { Logger } from 'pino';
import type { Settings } from './config/process.ts';
import { FastOrderBook } from './engine/fast-book.ts';
import type { BookListener } from './engine/types.ts';
import { publishedTypedData } from './auth/typed-data.ts';
import { startGateway } from './http/gateway.ts';
import type { MarketDataPort } from './http/ports.ts';
import { HistoryReader } from './history/reader.ts';
import { openHistoryDatabases } from './history/store.ts';

export interface RunningExchange {
  port: number;
  stop(): Promise<void>;
}

/** Until the market threads run, the books live on this thread and ignore their events. */
const IGNORE_EVENTS: BookListener = {
  onAccepted() {},
  onRested() {},
  onFill() {},
  onCancelled() {},
  onExpired() {},
  onRejected() {},
  onLevel() {},
};

export async function startExchange(settings: Settings, logger: Logger, clock: () => number = Date.now): Promise<RunningExchange> {
  mkdirSync(settings.dataDir, { recursive: true });
  // ⑥ one LMDB environment holds the journal, snapshots and the history projections
  const env = open({ path: settings.dataDir, maxDbs: 32 });
  const history = new HistoryReader(openHistoryDatabases(env));

  // ④ market books, one per market
  const books = settings.markets.map((m) => new FastOrderBook(m.index, IGNORE_EVENTS, { minSizeLots: m.minSizeLots }));

  // ① gateway: reads go straight to the published books
  const typedData = publishedTypedData(settings.profile);
  const marketData: MarketDataPort = {
    profile: settings.profile,
    markets: settings.markets,
    book: (index) => books[index],
    typedData: () => typedData,
  };
  const server = await startGateway({
    host: settings.host,
    port: settings.port,
    clock,
    logger,
    marketData,
    history,
    prices: () => ({ mark: 0, index: 0 }),
  });

  return {
    port: server.port,
    async stop() {
      server.close();
      await env.close();
    },
  };
}
