/**
 * @module log
 *
 * The process logger (pino: JSON lines, cheap when a level is off). `LOG_LEVEL` sets the level;
 * tests pass `silent`. Lines are written to stdout when they are logged (synchronously): the
 * exchange logs little besides start-up, snapshots, 503s and failures unless the operator asks
 * for more (the access log, `debug`: a write each per request), and a line logged before a long
 * synchronous step — `replaying journal` before the start-up replay — must reach the operator
 * before that step ends, not after it (pino's default asynchronous stream holds a line while an
 * earlier write is in flight, until the main thread is free again).
 * The operator's alarms that are log lines are here too (`withShortfallAlarm`).
 * May import: pino, app/ports (types).
 */
import { pino, type Logger } from 'pino';
import type { ExchangeListeners } from './app/ports.ts';

export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { service: 'perp-exchange' } }, pino.destination({ dest: 1, sync: true }));
}
export type { Logger };

/**
 * The operator's alarm for the insurance fund: every shortfall it covers (a trading loss beyond
 * an account's equity) is logged at warn, and at error when it leaves the fund in deficit — the
 * exchange then owes more than it holds (the ledger has `fundInsurance`; no operator route
 * calls it yet). The same lines come back when a restart replays the journal.
 */
export function withShortfallAlarm(listeners: ExchangeListeners, logger: Logger): ExchangeListeners {
  const next = listeners.ledgerEvent;
  return {
    ...listeners,
    ledgerEvent: (e) => {
      next?.(e);
      if (e.type !== 'insurance' || e.reason !== 'shortfall') return;
      const fields = { owner: e.owner, shortfall: String(-e.delta), insuranceFund: String(e.fund) };
      if (e.fund < 0n) logger.error(fields, 'insurance fund in deficit: a shortfall exceeded it');
      else logger.warn(fields, 'insurance fund covered a shortfall');
    },
  };
}
