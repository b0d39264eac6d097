/**
 * @module sequencer/start-state
 *
 * Where a start begins, on every node that keeps a journal (the primary's pipeline, a replica,
 * a standby): the newest snapshot that history has caught up with and that restores to its
 * recorded hash, or an empty exchange at seq 0. The caller then replays the journal from the
 * record after it (`recover` with `from` and `books`). A snapshot is an optimization — the
 * journal is the truth — so one that does not restore is logged loudly and an older one (or
 * none) used.
 * May import: config/, app/exchange, app/ports, journal/snapshots (types), sequencer/snapshot-codec.
 */
import type { MarketSpec } from '../config/market.ts';
import { Exchange, type ExchangeOptions } from '../app/exchange.ts';
import { NO_ROUTER, type ExchangeListeners } from '../app/ports.ts';
import type { Snapshots } from '../journal/snapshots.ts';
import type { Settings } from '../config/process.ts';
import { decodeSnapshot, type SystemSnapshot } from './snapshot-codec.ts';

export interface StartState {
  exchange: Exchange;
  /** The snapshot the exchange was restored from, or undefined: replay from seq 1. */
  start?: { seq: number; saved: SystemSnapshot };
}

/** The exchange's options as a process's settings give them (the faucet, the account limits): every node builds its exchange with these. */
export function exchangeOptionsOf(settings: Settings): ExchangeOptions {
  return { ledger: { faucet: settings.profile.faucet }, accountLimits: { minTransfer: settings.minTransfer, maxSubaccounts: settings.maxSubaccounts } };
}

export function startState(
  /** The data directory's snapshots (the simulator's and the in-process test exchange's are in memory). */
  snapshots: Pick<Snapshots, 'validNewestFirst'>,
  /** History's position: a snapshot past it cannot be used (history would miss what replay skips). */
  projectedSeq: number,
  markets: readonly MarketSpec[],
  listeners: ExchangeListeners,
  options: ExchangeOptions,
  logger: { error(fields: Record<string, unknown>, message: string): void },
): StartState {
  for (const candidate of snapshots.validNewestFirst()) {
    if (candidate.seq > projectedSeq) continue;
    const saved = decodeSnapshot(candidate.bytes);
    const restored = new Exchange(markets, NO_ROUTER, listeners, options, saved.exchange);
    // Markets appended to the markets file since the snapshot start empty: its hash is of the
    // markets it was taken with, restored alone to check it.
    const taken = saved.exchange.ledger.markets.length;
    const checked = taken < markets.length ? new Exchange(markets.slice(0, taken), NO_ROUTER, {}, options, saved.exchange) : restored;
    if (checked.stateHash() === candidate.stateHash) return { exchange: restored, start: { seq: candidate.seq, saved } };
    const now = checked.stateHashes();
    const differ = Object.keys(now).filter((part) => now[part] !== saved.hashes?.[part]);
    logger.error({ seq: candidate.seq, differ }, 'snapshot does not restore to its recorded state hash: trying an older one');
  }
  return { exchange: new Exchange(markets, NO_ROUTER, listeners, options) };
}
