/**
 * @module sequencer/start-state
 *
 * Where a start begins, on every node that keeps a journal (the primary's pipeline, a replica,
 * a standby): the newest snapshot that history has caught up with and that restores to its
 * recorded hash, or an empty exchange at seq 0. The caller then replays the journal from the
 * record after it (`recover` with `from` and `books`). A snapshot is an optimization — the
 * journal is the truth — so one that does not restore is logged loudly and an older one (or
 * none) used. So is one not taken of this journal (journal/snapshot-tie: a version 3 snapshot
 * whose tie differs from the journal's record at its seq, as when `journal/` was replaced and
 * `snapshots/` kept): `snapshot at seq N was not taken of this journal (its record N differs): skipped`.
 *
 * The markets it begins under are the journal's at that point, not the markets file's: a
 * snapshot's own (it carries them), or, from seq 0, those of the markets record the journal
 * begins with. The markets in use (storage/markets-in-use) stand in for them where the journal
 * was written before it recorded its markets. The markets file applies from the markets record
 * the start journals after its replay (sequencer/markets-record).
 * May import: config/, app/exchange, app/ports, app/commands, journal/journal, journal/snapshots (types), journal/snapshot-tie, sequencer/snapshot-codec.
 */
import { parseMarkets, type MarketSpec } from '../config/market.ts';
import { Exchange, type ExchangeOptions } from '../app/exchange.ts';
import { NO_ROUTER, type ExchangeListeners } from '../app/ports.ts';
import { CommandKind, decodeCommand, type MarketsCommand } from '../app/commands.ts';
import { payloadView, type Journal, type JournalEntry } from '../journal/journal.ts';
import type { Snapshots } from '../journal/snapshots.ts';
import { takenOfJournal, type JournalChains } from '../journal/snapshot-tie.ts';
import type { Settings } from '../config/process.ts';
import { decodeSnapshot, marketsOf, type SystemSnapshot } from './snapshot-codec.ts';

export interface StartState {
  exchange: Exchange;
  /** The snapshot the exchange was restored from, or undefined: replay from seq 1. */
  start?: { seq: number; saved: SystemSnapshot };
  /** The markets the exchange begins under (the snapshot thread's copy begins under the same). */
  markets: readonly MarketSpec[];
}

/** The markets a start may begin under. */
export interface StartMarkets {
  /** Before the journal's first record: its markets record's, or the markets in use for a journal begun before they were recorded. */
  first: readonly MarketSpec[];
  /** The markets in use: a snapshot that does not carry its own markets is restored under these. */
  inUse: readonly MarketSpec[];
}

/** The exchange's options as a process's settings give them (the faucet, the account limits): every node builds its exchange with these. */
export function exchangeOptionsOf(settings: Settings): ExchangeOptions {
  return { ledger: { faucet: settings.profile.faucet }, accountLimits: { minTransfer: settings.minTransfer, maxSubaccounts: settings.maxSubaccounts } };
}

/** The markets `entry` sets when it is a markets record, else null. */
export function marketsOfRecord(entry: JournalEntry): MarketSpec[] | null {
  return entry.kind === CommandKind.Markets ? parseMarkets({ markets: (decodeCommand(payloadView(entry)) as MarketsCommand).markets }, 'recorded') : null;
}

/** The markets record a journal begins with, or null: an empty journal, or one begun before the journal recorded its markets. */
export function journalStartMarkets(journal: Pick<Journal, 'range' | 'lastSeq'>): MarketSpec[] | null {
  if (journal.lastSeq() === 0) return null;
  for (const entry of journal.range(1, 1)) return marketsOfRecord(entry);
  return null;
}

/** What a start on `journal` may begin under, `inUse` standing in for what the journal does not record. */
export function startMarkets(journal: Pick<Journal, 'range' | 'lastSeq'>, inUse: readonly MarketSpec[]): StartMarkets {
  return { first: journalStartMarkets(journal) ?? inUse, inUse };
}

export function startState(
  /** The data directory's snapshots (the simulator's and the in-process test exchange's are in memory). */
  snapshots: Pick<Snapshots, 'validNewestFirst'>,
  /** The journal the start replays: a snapshot not taken of it is skipped (journal/snapshot-tie). */
  journal: JournalChains,
  /** History's position: a snapshot past it cannot be used (history would miss what replay skips). */
  projectedSeq: number,
  markets: StartMarkets,
  listeners: ExchangeListeners,
  options: ExchangeOptions,
  logger: { error(fields: Record<string, unknown>, message: string): void },
): StartState {
  for (const candidate of takenOfJournal(snapshots.validNewestFirst(), journal, logger)) {
    if (candidate.seq > projectedSeq) continue;
    const saved = decodeSnapshot(candidate.bytes);
    const under = marketsOf(saved, markets.inUse);
    const restored = new Exchange(under, NO_ROUTER, listeners, options, saved.exchange);
    // A snapshot that does not carry its markets is restored under the markets in use, which may
    // list markets appended since: its hash is of the markets it was taken with, restored alone to check it.
    const taken = saved.exchange.ledger.markets.length;
    const checked = taken < under.length ? new Exchange(under.slice(0, taken), NO_ROUTER, {}, options, saved.exchange) : restored;
    if (checked.stateHash() === candidate.stateHash) return { exchange: restored, start: { seq: candidate.seq, saved }, markets: under };
    const now = checked.stateHashes();
    const differ = Object.keys(now).filter((part) => now[part] !== saved.hashes?.[part]);
    logger.error({ seq: candidate.seq, differ }, 'snapshot does not restore to its recorded state hash: trying an older one');
  }
  return { exchange: new Exchange(markets.first, NO_ROUTER, listeners, options), markets: markets.first };
}
