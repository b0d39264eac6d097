/**
 * The exchange process: reads settings (flags, environment), starts the pipeline (or the role
 * replication/node gives it: replica, standby), and stops it
 * cleanly on SIGTERM or SIGINT. A bad setting exits with status 2 and a message naming it.
 */
import { loadSettings } from './config/process.ts';
import { ConfigError } from './config/market.ts';
import { createLogger } from './log.ts';
import { startNode } from './replication/node.ts';
import { DataRefusedError } from './journal/refusal.ts';

const logger = createLogger();

let settings;
try {
  settings = loadSettings(process.argv.slice(2), process.env);
} catch (error) {
  if (!(error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) throw error;
  console.error(`Cannot start: ${(error as Error).message}`);
  process.exit(2);
}

let exchange;
try {
  exchange = await startNode(settings, logger);
} catch (error) {
  if (!(error instanceof DataRefusedError)) throw error;
  // The refusal is the operator's whole report: no stack, and the data directory untouched.
  logger.fatal({ dataDir: settings.dataDir }, 'refusing to start');
  console.error(`Cannot start: ${error.message}`);
  process.exit(1);
}
logger.info({ port: exchange.port, profile: settings.profile.name, role: settings.replication.role, dataDir: settings.dataDir, markets: settings.markets.map((m) => m.symbol) }, 'exchange ready');

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    exchange.stop().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'stop failed');
        process.exit(1);
      },
    );
  });
}
