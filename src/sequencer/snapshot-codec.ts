/**
 * @module sequencer/snapshot-codec
 *
 * A snapshot of the whole system at one journal sequence number: the exchange's state and
 * every book. Stored as JSON (bigints tagged as `{"$bigint": "…"}`), gzip-compressed at level 1,
 * inside the journal's checksummed snapshot records (journal/snapshots.ts).
 *
 * Why compressed: the JSON repeats every field name for every account and order (~1.5 kB per
 * account), and the snapshot is written to disk (a file of `DIR/snapshots`; before, into the
 * journal's LMDB environment, whose single writer the journal's group commits waited for).
 * Level 1 shrinks it several times for a fraction of the encoding's time (both on the snapshot
 * thread), so the write costs that much less I/O. Snapshots written uncompressed (before this) still decode: JSON starts with
 * `{`, gzip with 0x1f 0x8b.
 * May import: config/market, engine/types (types), app/exchange (types), node:zlib.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { parseMarkets, type MarketSpec } from '../config/market.ts';
import type { BookSnapshot } from '../engine/types.ts';
import type { ExchangeSnapshot } from '../app/exchange.ts';

export interface SystemSnapshot {
  exchange: ExchangeSnapshot;
  books: BookSnapshot[];
  /** The exchange's per-part hashes when it was taken (`Exchange.stateHashes`). */
  hashes: Record<string, string>;
  /**
   * The markets it was taken under, as the markets file writes them (`marketsFileOf`): a restore
   * goes on under these, whatever the markets file says now. Absent in snapshots written before
   * the journal recorded the markets.
   */
  markets?: Record<string, unknown>[];
}

/** The markets `saved` is to be restored under: its own, or `before` for a snapshot that does not carry them. */
export function marketsOf(saved: SystemSnapshot, before: readonly MarketSpec[]): readonly MarketSpec[] {
  return saved.markets === undefined ? before : parseMarkets({ markets: saved.markets }, 'recorded');
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeSnapshot(snapshot: SystemSnapshot): Uint8Array {
  const json = encoder.encode(JSON.stringify(snapshot, (_key, value) => (typeof value === 'bigint' ? { $bigint: value.toString() } : value)));
  return gzipSync(json, { level: 1 });
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

export function decodeSnapshot(bytes: Uint8Array): SystemSnapshot {
  const json = isGzip(bytes) ? gunzipSync(bytes) : bytes;
  return JSON.parse(decoder.decode(json), (_key, value) =>
    value !== null && typeof value === 'object' && typeof value.$bigint === 'string' && Object.keys(value).length === 1 ? BigInt(value.$bigint) : value,
  ) as SystemSnapshot;
}
