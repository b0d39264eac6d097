/**
 * @module log
 *
 * The process logger (pino: JSON lines, cheap when a level is off). `LOG_LEVEL` sets the level;
 * tests pass `silent`.
 */
import { pino, type Logger } from 'pino';

export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { service: 'perp-exchange' } });
}
export type { Logger };
