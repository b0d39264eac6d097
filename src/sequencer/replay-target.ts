/**
 * The operator tool's replay target: `npm run journal -- verify --data-dir DIR
 * --replay src/sequencer/replay-target.ts` replays every record into a fresh exchange and checks
 * its state hash against every stored snapshot's. Markets and profile come from the same
 * settings as the server (MARKETS, PROFILE), which must be the ones the journal was written with.
 */
import { loadSettings } from '../config/process.ts';
import type { ReplayTarget } from '../journal/verify.ts';
import { Exchange } from '../app/exchange.ts';
import { NO_ROUTER } from '../app/ports.ts';
import { Replay } from './recovery.ts';
import { exchangeOptionsOf } from './start-state.ts';


export default function replayTarget(): ReplayTarget {
  const settings = loadSettings([], process.env);
  const exchange = new Exchange(settings.markets, NO_ROUTER, {}, exchangeOptionsOf(settings));
  const replay = new Replay(exchange);
  return {
    apply: (entry) => replay.apply(entry),
    stateHash: () => exchange.stateHash(),
  };
}
