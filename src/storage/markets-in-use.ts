/**
 * @module storage/markets-in-use
 *
 * The markets a data directory's state was built under, kept beside it
 * (`DIR/markets-in-use.json`, a markets file: `--markets` reads it), and the check a start makes
 * of its markets file against them before anything reads the state (config/market-changes sorts
 * the differences): a market moved, missing, or with another tickSize or lotSize is refused
 * (`DataRefusedError`, nothing changed) — before, the start read every position, order and
 * journal record of market N as whatever market the new file listed N-th, in its units.
 *
 * Parameters (fees, margins, leverage, funding…) are not checked here: the journal records them
 * (app/commands `Markets`), every replay runs each record under the markets of its time, and the
 * start journals a markets record when the file changes them (sequencer/markets-record). The
 * markets in use stand in for that record where the journal was written before it existed
 * (`recorded`: sequencer/start-state), so they are what the journal's end runs under:
 * `adopt` records them once the start has journaled them.
 * No record yet (a data directory written before this check): accepted, the file taken as the
 * markets in use.
 * May import: node:fs, node:path, config/market, config/market-changes, journal/refusal, storage/atomic-file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { marketsFileOf, parseMarkets, type MarketSpec } from '../config/market.ts';
import { diffMarkets } from '../config/market-changes.ts';
import { DataRefusedError } from '../journal/refusal.ts';
import { writeFileAtomically } from './atomic-file.ts';

export const MARKETS_IN_USE_FILE = 'markets-in-use.json';

export interface MarketsInUse {
  /** The markets recorded as in use, or null: a data directory written before they were recorded. */
  recorded: MarketSpec[] | null;
  /** Records `markets` as the markets the state goes on under (the journal's at its end). */
  adopt(markets: readonly MarketSpec[]): void;
}

/** Refuses (`DataRefusedError`) a markets file under which the state in `dataDir` cannot be read. */
export function checkMarketsInUse(dataDir: string, markets: readonly MarketSpec[]): MarketsInUse {
  const path = join(dataDir, MARKETS_IN_USE_FILE);
  const recorded = existsSync(path) ? recordedMarkets(path) : null;
  const refusal = recorded === null ? null : diffMarkets(recorded, markets).refusal;
  if (refusal !== null) throw new DataRefusedError(`the markets file does not match this data directory: ${refusal}. Nothing was changed; the markets in use are in ${path}.`);
  return {
    recorded,
    adopt(inUse) {
      const now = text(inUse);
      if (recorded === null || readFileSync(path, 'utf8') !== now) writeFileAtomically(path, now, 0o644);
    },
  };
}

function recordedMarkets(path: string): MarketSpec[] {
  try {
    return parseMarkets(JSON.parse(readFileSync(path, 'utf8')), 'recorded');
  } catch (error) {
    throw new DataRefusedError(`${path} (the markets this data directory was built under) cannot be read: ${(error as Error).message}. Restore it, or remove it to accept the markets file as it is.`);
  }
}

const text = (markets: readonly MarketSpec[]): string => `${JSON.stringify(marketsFileOf(markets), null, 2)}\n`;
