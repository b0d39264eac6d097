/**
 * @module sequencer/markets-record
 *
 * The markets record a primary's start journals (app/commands `Markets`): after the start-up
 * replay — which ran every record under the markets of its time — and before any new command,
 * when the markets file differs from the journal's markets at its end, and as the first record
 * of an empty journal (so a journal always says under which markets it began). It is applied
 * where it was written, by this start and by every later replay (a restart's tail, a rebuild
 * from seq 1, the snapshot thread, `journal verify --replay`, a replica), so the outcomes the
 * exchange gave before it keep the values they were given under, and the new values apply from
 * it on.
 *
 * Invariants: written only on the primary (a replica applies the primary's); the markets it
 * carries are the journal's in the same places and units (config/market-changes refuses
 * anything else before it is written, nothing changed).
 * May import: config/market, config/market-changes, app/commands, app/exchange (types),
 * journal/journal (types), journal/refusal, sequencer/recovery (types).
 */
import { marketsFileOf, type MarketSpec } from '../config/market.ts';
import { diffMarkets } from '../config/market-changes.ts';
import { CommandKind, encodeCommand, type MarketsCommand } from '../app/commands.ts';
import type { Exchange } from '../app/exchange.ts';
import type { Journal } from '../journal/journal.ts';
import { DataRefusedError } from '../journal/refusal.ts';
import type { Replay } from './recovery.ts';

/**
 * Refuses a markets file the journal's markets cannot go on under (a market moved, missing,
 * rescaled: the journal's records name markets by place, in their units).
 */
export function checkMarketsFollow(journaled: readonly MarketSpec[], markets: readonly MarketSpec[], whose: string): void {
  const refusal = diffMarkets(journaled, markets).refusal;
  if (refusal !== null) throw new DataRefusedError(`${whose} does not match the markets this data directory's journal runs under: ${refusal}. Nothing was changed by it.`);
}

/**
 * After the replay of `exchange` (by `replay`) to the journal's end: journals and applies a markets
 * record for `markets` when they differ from the journal's, or when the journal is empty. Returns
 * its seq, or null when none was needed.
 */
export function recordMarkets(
  exchange: Exchange,
  replay: Replay,
  journal: Journal,
  markets: readonly MarketSpec[],
  time: number,
  logger: { warn(fields: Record<string, unknown>, message: string): void },
): number | null {
  checkMarketsFollow(exchange.markets, markets, 'the markets file');
  const file = marketsFileOf(markets);
  if (journal.lastSeq() > 0 && JSON.stringify(marketsFileOf(exchange.markets)) === JSON.stringify(file)) return null;
  const { parameters, added } = diffMarkets(exchange.markets, markets);
  const command: MarketsCommand = { kind: CommandKind.Markets, time, markets: file.markets };
  const seq = journal.append(CommandKind.Markets, encodeCommand(command));
  replay.execute(command);
  if (parameters.length > 0 || added.length > 0) logger.warn({ seq, changed: parameters, added }, 'markets file changed: the new values apply from this journal seq on');
  return seq;
}
