/**
 * @module sequencer/snapshot-replica
 *
 * Where snapshots are taken: a second exchange, with its books in process, kept up to date by
 * replaying the journal — the same `Replay` start-up uses, command by command, each book event
 * checked against the one the journal holds. The live exchange never stops to be copied: the
 * sequencer only marks a point with no command in flight (journal seq S, a pause of the time
 * in-flight commands take to come back from the books, whatever the number of accounts), and
 * the replica replays to S and captures, hashes and encodes there.
 *
 * Invariants:
 * - A capture is the state replaying the journal to its seq produces, by construction: its
 *   hash is the hash recovery and `journal verify --replay` find at that seq.
 * - A capture is taken only where no command is in flight (every event the books produced is
 *   matched by the journal), as the live snapshot was taken only with nothing in flight.
 * - Replaying reads only what the caller says is readable (`advance(journal, to)`): callers
 *   pass flushed seqs, so a snapshot never covers a record a power cut could take back.
 *
 * Synchronous and deterministic: production runs it on its own thread
 * (sequencer/snapshot-worker), the simulator may call it in process. Its memory is a second
 * copy of the exchange's state and books.
 *
 * May import: config/, app/exchange, sequencer/recovery, sequencer/snapshot-codec, journal/journal (types), app/ports.
 */
import { marketsFileOf, type MarketSpec } from '../config/market.ts';
import type { Journal } from '../journal/journal.ts';
import { Exchange, type ExchangeOptions } from '../app/exchange.ts';
import { NO_ROUTER } from '../app/ports.ts';
import { Replay } from './recovery.ts';
import { encodeSnapshot, marketsOf, type SystemSnapshot } from './snapshot-codec.ts';

/** A snapshot ready to store (`Snapshots.save(seq, stateHash, bytes)`). */
export interface CapturedSnapshot {
  seq: number;
  stateHash: string;
  bytes: Uint8Array;
}

export class SnapshotReplica {
  private readonly exchange: Exchange;
  private readonly replay: Replay;
  private position: number;

  /**
   * Starts from `from` (a stored snapshot at journal seq `from.seq`, under its own markets when it
   * carries them), or from an empty exchange at seq 0, under `markets`: the journal's first markets.
   */
  constructor(markets: readonly MarketSpec[], options: ExchangeOptions, from?: { seq: number; saved: SystemSnapshot }) {
    this.exchange = new Exchange(from === undefined ? markets : marketsOf(from.saved, markets), NO_ROUTER, {}, options, from?.saved.exchange);
    this.replay = new Replay(this.exchange, from?.saved.books ?? []);
    this.position = from?.seq ?? 0;
  }

  /** The last journal seq applied. */
  get seq(): number {
    return this.position;
  }

  /** Applies the journal's records after `seq` up to `to` (throws `ReplayDivergenceError` as start-up would). */
  advance(journal: Journal, to: number): void {
    if (to < this.position) throw new Error(`snapshot replica: asked for seq ${to}, already at ${this.position}`);
    for (const entry of journal.range(this.position + 1, to)) {
      this.replay.apply(entry);
      // Books here answer at once: nothing waits for the routes a book event caused.
      this.exchange.takeUnsolicitedRoutes();
      this.position = entry.seq;
    }
    if (this.position !== to) throw new Error(`snapshot replica: the journal ends at ${this.position}, before seq ${to}`);
  }

  /** The snapshot at `seq`: the exchange's state, every book, the per-part hashes, encoded. */
  capture(): CapturedSnapshot {
    if (!this.replay.noCommandInFlight()) throw new Error(`snapshot replica: seq ${this.position} has book events still to come (a command in flight)`);
    const hashes = this.exchange.stateHashes();
    const snapshot: SystemSnapshot = { exchange: this.exchange.snapshot(), books: this.replay.rebuilt.map((b) => b.snapshot()), hashes, markets: marketsFileOf(this.exchange.markets).markets };
    return { seq: this.position, stateHash: this.exchange.stateHash(hashes), bytes: encodeSnapshot(snapshot) };
  }
}
