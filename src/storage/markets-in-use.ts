/**
 * @module storage/markets-in-use
 *
 * The markets a data directory's state was built under, kept beside it
 * (`DIR/markets-in-use.json`, a markets file: `--markets` reads it), and what a start may do
 * with a markets file that differs (config/market-changes sorts the differences):
 *  - a market moved, missing, or with another tickSize or lotSize: refused
 *    (`DataRefusedError`, nothing changed) — before, the start read every position, order and
 *    journal record of market N as whatever market the new file listed N-th, in its units;
 *  - parameters changed (fees, margins, leverage, funding…) while the journal still holds
 *    records after the snapshot the start restores: refused — replay would execute commands the
 *    exchange already answered under other values, and their outcomes (fees charged, orders
 *    admitted) would change after the fact; the operator starts once on the markets in use,
 *    stops (the stop's snapshot covers the whole journal), then starts on the new file;
 *  - parameters changed with nothing to replay, markets appended, or no record yet (a data
 *    directory written before this check): accepted, the changes logged, and the new file
 *    recorded before anything is journaled under it.
 *
 * Two steps, so that a refusal of the first kind comes before anything reads the state under
 * the new file: `checkMarketsInUse` (before the snapshot is restored), then `adopt` once the
 * start knows which journal records it is to replay.
 * May import: node:fs, node:path, config/market, config/market-changes, journal/refusal, storage/atomic-file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { marketsFileOf, parseMarkets, type MarketSpec } from '../config/market.ts';
import { diffMarkets, type MarketsDiff } from '../config/market-changes.ts';
import { DataRefusedError } from '../journal/refusal.ts';
import { writeFileAtomically } from './atomic-file.ts';

export const MARKETS_IN_USE_FILE = 'markets-in-use.json';

export interface MarketsInUse {
  /**
   * Journal records `from`..`to` are to be replayed (none when `from > to`): refuses parameters
   * that changed under them, else logs what changed and records `markets` as in use.
   */
  adopt(tail: { from: number; to: number }, logger: { warn(fields: Record<string, unknown>, message: string): void }): void;
}

/** Refuses (`DataRefusedError`) a markets file under which the state in `dataDir` cannot be read. */
export function checkMarketsInUse(dataDir: string, markets: readonly MarketSpec[]): MarketsInUse {
  const path = join(dataDir, MARKETS_IN_USE_FILE);
  const recorded = existsSync(path) ? recordedMarkets(path) : null;
  const diff: MarketsDiff = recorded === null ? { refusal: null, parameters: [], added: [] } : diffMarkets(recorded, markets);
  if (diff.refusal !== null) throw new DataRefusedError(`the markets file does not match this data directory: ${diff.refusal}. Nothing was changed; the markets in use are in ${path}.`);
  return {
    adopt(tail, logger) {
      if (diff.parameters.length > 0 && tail.from <= tail.to) {
        throw new DataRefusedError(
          `the markets file changes ${diff.parameters.join('; ')} — but journal records ${tail.from}..${tail.to} (after the newest snapshot) were executed under the previous values, and replaying them under the new ones would change outcomes the exchange already gave. Nothing was changed. Start once with --markets ${path} (the markets in use), stop it with SIGTERM (its snapshot covers the whole journal), then start with the new file.`,
        );
      }
      if (diff.parameters.length > 0 || diff.added.length > 0) logger.warn({ changed: diff.parameters, added: diff.added }, 'markets file changed: the new values apply from this start on');
      const now = text(markets);
      if (recorded === null || readFileSync(path, 'utf8') !== now) writeFileAtomically(path, now, 0o644);
    },
  };
}

function recordedMarkets(path: string): MarketSpec[] {
  try {
    return parseMarkets(JSON.parse(readFileSync(path, 'utf8')));
  } catch (error) {
    throw new DataRefusedError(`${path} (the markets this data directory was built under) cannot be read: ${(error as Error).message}. Restore it, or remove it to accept the markets file as it is.`);
  }
}

const text = (markets: readonly MarketSpec[]): string => `${JSON.stringify(marketsFileOf(markets), null, 2)}\n`;
