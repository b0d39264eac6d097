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
 * May import: pino.
 */
import { pino, type Logger } from 'pino';

export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { service: 'perp-exchange' } }, pino.destination({ dest: 1, sync: true }));
}
export type { Logger };
