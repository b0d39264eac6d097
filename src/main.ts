/**
 * The exchange process: reads settings (flags, environment), checks what they need of the
 * machine (config/preflight: the data directory, the listen addresses), starts the pipeline (or
 * the role replication/node gives it: replica, standby), and stops it cleanly on SIGTERM or SIGINT. A bad setting, or one the machine cannot honour,
 * exits with status 2 and one line naming it (`Cannot start: PORT: …`); refused data exits 1. A
 * thread the exchange cannot run without that dies is one fatal log line and exit status 70.
 * May import: config/ (market, process, preflight), log, replication/node, http/gateway (the
 * listen error it names), http/uws-native (the build it names), journal/refusal.
 */
import { loadSettings, usage } from './config/process.ts';
import { ConfigError } from './config/market.ts';
import { checkDataDirectory, checkListen } from './config/preflight.ts';
import { createLogger } from './log.ts';
import { startNode } from './replication/node.ts';
import { OPERATOR_HOST } from './http/gateway.ts';
import { uwsNative } from './http/uws-native.ts';
import { DataRefusedError } from './journal/refusal.ts';

/** A setting's one line and exit status 2; anything else is not a setting's fault and is rethrown. */
function refuseSetting(error: unknown): never {
  if (!(error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) throw error;
  console.error(`Cannot start: ${(error as Error).message}`);
  process.exit(2);
}

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(usage());
  process.exit(0);
}

let settings;
try {
  settings = loadSettings(process.argv.slice(2), process.env);
  // The HTTP server's native build, before anything is opened: a Node no build fits is one line.
  uwsNative();
  checkDataDirectory(settings.dataDir);
  await checkListen(settings.host, settings.port);
  if (settings.operatorPort !== null) await checkListen(OPERATOR_HOST, settings.operatorPort, 'OPERATOR_PORT');
} catch (error) {
  refuseSetting(error);
}
const logger = createLogger(settings.logLevel);

/** Why a start was given up: a stop signal arrived before it had finished. */
class StartCancelled extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`start cancelled by ${signal}`);
  }
}

// Signals are heard from the first moment: the listener answers probes during the start-up
// replay, so a process manager may well stop the process then.
const cancel = new AbortController();
let exchange: Awaited<ReturnType<typeof startNode>> | undefined;
let stopping = false;
let failing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    // Already on the way out (a stop, or a thread's death: bounded, whatever a stop would wait for).
    if (stopping || failing) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    // Still starting: the start gives up at its next pause and frees everything (below).
    if (exchange === undefined) return cancel.abort(new StartCancelled(signal));
    stopExchange(exchange);
  });
}

function stopExchange(running: NonNullable<typeof exchange>): void {
  running.stop().then(
    () => process.exit(0),
    (error) => {
      logger.error({ err: error }, 'stop failed');
      process.exit(1);
    },
  );
}

try {
  exchange = await startNode(settings, logger, { cancel: cancel.signal });
} catch (error) {
  if (error instanceof StartCancelled) {
    // Nothing was accepted yet: the journal is as it was, the next start replays it.
    logger.info({ signal: error.signal }, 'start cancelled: stopped before serving');
    process.exit(0);
  }
  if (error instanceof ConfigError) refuseSetting(error);
  if (!(error instanceof DataRefusedError)) {
    // Unforeseen (a full disk during the replay, say): one fatal line for the log's reader, then
    // the stack on stderr and exit 1, as Node ends on an uncaught error.
    logger.fatal({ err: error, dataDir: settings.dataDir }, 'start failed');
    throw error;
  }
  // The refusal is the operator's whole report: no stack, and the data directory untouched.
  logger.fatal({ dataDir: settings.dataDir }, 'refusing to start');
  console.error(`Cannot start: ${error.message}`);
  process.exit(1);
}
// A stop asked for in the moment between the start's last pause and its end.
if (stopping) stopExchange(exchange);
logger.info(
  {
    port: exchange.port,
    host: settings.host,
    operatorPort: exchange.operatorPort,
    profile: settings.profile.name,
    role: settings.replication.role,
    dataDir: settings.dataDir,
    markets: settings.markets.map((m) => m.symbol),
    httpServer: uwsNative().build,
    signatureBackend: exchange.threads?.signatureBackend,
    signatureThreads: exchange.threads?.signatureThreads,
    marketThreads: exchange.threads?.marketThreads,
    marketsPerThread: exchange.threads?.marketsPerThread,
    accessLog: settings.accessLog,
  },
  'exchange ready',
);

/**
 * Exit status when a thread the exchange cannot run without ended (EX_SOFTWARE): a process
 * manager restarts it (not 1 or 2, which a restart would not change), and the restart replays
 * the journal — nothing acknowledged is lost, as after kill -9.
 */
const EXIT_THREAD_STOPPED = 70;

const running = exchange;
void running.failed?.then(async (reason) => {
  failing = true;
  logger.fatal({ reason, exitCode: EXIT_THREAD_STOPPED }, 'exiting: a thread the exchange cannot run without stopped; the restart replays the journal');
  // Exit 70 whatever the abort meets: a rejection would end the process with 1, which a
  // process manager is told not to restart.
  try {
    await running.abort?.();
  } finally {
    process.exit(EXIT_THREAD_STOPPED);
  }
});
