/**
 * @module runtime/snapshot-codec
 *
 * A snapshot of the whole system at one journal sequence number: the exchange's state and
 * every book. Stored as JSON (bigints tagged as `{"$bigint": "…"}`), inside the journal's
 * checksummed snapshot records (journal/snapshots.ts).
 */
import type { BookSnapshot } from '../engine/types.ts';
import type { ExchangeSnapshot } from './exchange.ts';

export interface SystemSnapshot {
  exchange: ExchangeSnapshot;
  books: BookSnapshot[];
  /** The exchange's per-part hashes when it was taken (`Exchange.stateHashes`). */
  hashes: Record<string, string>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeSnapshot(snapshot: SystemSnapshot): Uint8Array {
  return encoder.encode(JSON.stringify(snapshot, (_key, value) => (typeof value === 'bigint' ? { $bigint: value.toString() } : value)));
}

export function decodeSnapshot(bytes: Uint8Array): SystemSnapshot {
  return JSON.parse(decoder.decode(bytes), (_key, value) =>
    value !== null && typeof value === 'object' && typeof value.$bigint === 'string' && Object.keys(value).length === 1 ? BigInt(value.$bigint) : value,
  ) as SystemSnapshot;
}
