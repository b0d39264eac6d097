/**
 * @module http/ports
 *
 * What the gateway needs from the running exchange, as interfaces it is handed (the gateway
 * never reaches into threads, rings or the journal itself). The runtime implements them.
 */
import type { MarketSpec } from '../config/market.ts';
import type { Profile } from '../config/profile.ts';
import type { Level, Side } from '../engine/types.ts';

/** A read-only view of one market's book; reads never wait on matching. */
export interface BookReader {
  depth(side: Side, levels: number, tickMultiple: number): Level[];
  /** The market sequence number the view reflects. */
  readonly sequence: number;
}

export interface MarketDataPort {
  readonly profile: Profile;
  readonly markets: readonly MarketSpec[];
  book(marketIndex: number): BookReader;
  /** EIP-712 domain and types that clients sign with, exactly as `signTypedData` takes them. */
  typedData(): unknown;
}

/** The gateway's clock: milliseconds. Injected so tests can hold time still. */
export type Clock = () => number;

export type { MarketHistory, PriceSource } from '../history/types.ts';
