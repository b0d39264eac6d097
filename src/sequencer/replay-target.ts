/**
 * The operator tool's replay target: `npm run journal -- verify --data-dir DIR
 * --replay src/sequencer/replay-target.ts` replays every record into a fresh exchange and checks
 * its state hash against every stored snapshot's; with `--check-invariants`, the exchange's
 * invariants (`validateInternalState`) after every record. The exchange begins under the markets record
 * the journal begins with and follows every later one; a journal begun before the journal
 * recorded its markets is replayed under the settings' markets (MARKETS) until its first markets
 * record. The profile comes from the same settings as the server (PROFILE).
 */
import { loadSettings } from '../config/process.ts';
import type { ReplayTarget } from '../journal/verify.ts';
import type { JournalEntry } from '../journal/journal.ts';
import { Exchange } from '../app/exchange.ts';
import { NO_ROUTER } from '../app/ports.ts';
import { Replay } from './recovery.ts';
import { exchangeOptionsOf, marketsOfRecord } from './start-state.ts';

export default function replayTarget(): ReplayTarget {
  const settings = loadSettings([], process.env);
  let replay: { exchange: Exchange; replay: Replay } | undefined;
  // Built at the first record, which says under which markets the journal began (when it does).
  const begin = (first: JournalEntry) => {
    const exchange = new Exchange(marketsOfRecord(first) ?? settings.markets, NO_ROUTER, {}, exchangeOptionsOf(settings));
    return { exchange, replay: new Replay(exchange) };
  };
  return {
    apply: (entry) => (replay ??= begin(entry)).replay.apply(entry),
    stateHash: () => (replay?.exchange ?? new Exchange(settings.markets, NO_ROUTER, {}, exchangeOptionsOf(settings))).stateHash(),
    problem: () => {
      try {
        replay?.exchange.validateInternalState();
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    },
  };
}
