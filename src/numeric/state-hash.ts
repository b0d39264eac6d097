/**
 * @module numeric/state-hash
 *
 * The one state-hash recipe of every stateful part (exchange-core's `stateHash()`): SHA-256, as
 * 64 lowercase hex digits, over the part's canonical encoding. Equal states give equal hashes,
 * whatever the internal layout; two nodes that replayed the same journal agree part by part.
 *
 * Two ways to feed it, one function:
 *  - `stateHashOf(snapshot)`: the part's snapshot as JSON, fields in the order the part writes
 *    them (its snapshot is already canonical: sorted, no Map or Set), bigints as `"<digits>n"`.
 *    The ledger, the nonce and delegation stores, the conditional books, the exchange's own parts
 *    and the exchange over its parts' hashes.
 *  - `stateHashStream()`: bytes fed as they are produced, for a book of a hundred thousand
 *    resting orders that should not be turned into one JSON text first (engine/state-hash).
 *
 * Snapshots store the hash they were taken with (journal/snapshots); a change of recipe is a new
 * snapshot format version, so an older snapshot is skipped and the journal replayed instead.
 * May import: @noble/hashes.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

const utf8 = new TextEncoder();

/** The hash of a part's snapshot (see the module header). */
export function stateHashOf(snapshot: unknown): string {
  const text = JSON.stringify(snapshot, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
  return bytesToHex(sha256(utf8.encode(text)));
}

export interface StateHashStream {
  update(bytes: Uint8Array): void;
  /** Hex digest; the stream is spent afterwards. */
  digest(): string;
}

/** The same hash, fed in pieces. */
export function stateHashStream(): StateHashStream {
  const hash = sha256.create();
  return {
    update: (bytes) => void hash.update(bytes),
    digest: () => bytesToHex(hash.digest()),
  };
}
