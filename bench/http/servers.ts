/**
 * @module bench/http/servers
 *
 * The servers bench/http.bench.ts measures, all in the bench's own process (the load comes from a
 * child, see ./load.ts), so `process.cpuUsage()` is the server's CPU, every thread included:
 *  - `startBenchExchange`: the whole exchange (journal, market threads, signature pool, gateway
 *    and its feeds) on a temporary data directory and a free loopback port, as
 *    test/e2e/harness.ts starts it (bench/feeds.bench.ts runs it too);
 *  - `startBookGateway`: the production GET /book/:symbol handler behind the production public
 *    guard (`AccountGuard.publicLimited`) and uWS adapter, on another port, reading the running
 *    exchange's depth mirror. Only the per-source-address budget is raised: at 200 requests/s per
 *    address, a load generator on 127.0.0.1 would measure the 429 path, not the book;
 *  - `startBareRoute`: a bare uWebSockets.js route answering a fixed body (the baseline).
 *
 * May import: src/ (config, pipeline, http, ws types), pino, uWebSockets.js.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type * as Uws from '@btc-vision/uwebsockets.js';
import { uwsNative } from '../../src/http/uws-native.ts';
import { loadSettings, type Settings } from '../../src/config/process.ts';
import { startExchange, type RunningExchange } from '../../src/pipeline.ts';
import { AccountGuard } from '../../src/http/auth-guard.ts';
import { RateLimiter } from '../../src/http/rate-limit.ts';
import { bookRoutes } from '../../src/http/routes/book.ts';
import { failure, GatewayCode } from '../../src/http/errors.ts';
import { startHttpServer, type HttpServer } from '../../src/http/uws.ts';
import { publishedTypedData } from '../../src/auth/typed-data.ts';
import type { FeedLimits } from '../../src/ws/feeds.ts';


export interface BenchExchange {
  url: string;
  /** The temporary data directory (removed by `stop`). */
  dataDir: string;
  settings: Settings;
  exchange: RunningExchange;
  /** Stops the exchange and removes its data directory. */
  stop(): Promise<void>;
}

/** `feedLimits`: the feeds' settings where a bench compares them (bench:feeds' window). */
export async function startBenchExchange(options: { feedLimits?: Partial<FeedLimits> } = {}): Promise<BenchExchange> {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-bench-http-'));
  try {
    // SIGNATURE_THREADS passes through, to compare pool sizes; nothing else of the environment does.
    const threads = process.env.SIGNATURE_THREADS;
    const settings = loadSettings(['--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], threads === undefined ? {} : { SIGNATURE_THREADS: threads });
    // Clock ticks (testnet index feed, funding, expiry) once a minute: the bench measures requests.
    const exchange = await startExchange(settings, pino({ level: 'silent' }), { tickMs: 60_000, feedLimits: options.feedLimits });
    return {
      url: `http://127.0.0.1:${exchange.port}`,
      dataDir,
      settings,
      exchange,
      async stop() {
        try {
          await exchange.stop();
        } finally {
          rmSync(dataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** GET /book/:symbol of `ex`, through the production guard with a budget no bench reaches. */
export function startBookGateway(ex: BenchExchange): Promise<HttpServer> {
  const { profile, markets } = ex.settings;
  const exchange = ex.exchange.sequencer.exchange;
  const typedData = publishedTypedData(profile);
  const guard = new AccountGuard({
    tokens: {
      verifyHeader: () => {
        throw new Error('the book gateway has no authenticated route');
      },
    },
    delegations: exchange.delegations,
    clock: Date.now,
    addressLimiter: new RateLimiter(10_000_000),
  });
  const book = bookRoutes({ profile, markets, book: (index) => exchange.depth[index], typedData: () => typedData }, Date.now).book;
  return startHttpServer({
    host: '127.0.0.1',
    port: 0,
    routes: [guard.publicLimited(book)],
    fallback: (req) => failure(GatewayCode.RouteNotFound, req.path),
    shuttingDown: failure(GatewayCode.Overloaded, 'shutting down'),
    onHandlerError: (error) => {
      throw error;
    },
    maxBodyBytes: 64 * 1024,
  });
}

/** A bare uWebSockets.js app: GET /* answers `body` as JSON, nothing else. */
export function startBareRoute(body: string): Promise<Pick<HttpServer, 'port' | 'close'>> {
  const { uws } = uwsNative();
  const app = uws.App();
  app.get('/*', (res) => {
    res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(body);
  });
  return new Promise((resolve, reject) => {
    app.listen('127.0.0.1', 0, (socket) => {
      if (!socket) {
        reject(new Error('bare route: cannot listen on 127.0.0.1'));
        return;
      }
      resolve({ port: uws.us_socket_local_port(socket as unknown as Uws.us_socket), close: () => uws.us_listen_socket_close(socket) });
    });
  });
}
