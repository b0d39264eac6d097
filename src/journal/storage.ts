/**
 * @module journal/storage
 *
 * What the journal needs from a disk: keyed records by seq, read back in order, and a way to
 * know when writes are flushed. Two implementations: `LmdbJournalStorage` (production) and
 * `SimulatedJournalStorage` (tests: loses unflushed writes on a simulated power cut, tears
 * records).
 *
 * Contract:
 * - `put` queues a write; it is visible to reads at once (as in an OS page cache) but durable
 *   only once a `sync()` promise taken after it has resolved.
 * - `sync()` resolves when every `put` made before the call is flushed to stable storage;
 *   it rejects if the storage failed (the journal then stops accepting writes).
 * - `committed()` resolves when every `put` made before the call survives a crash of this
 *   process (kill -9), not necessarily a power cut; it resolves no later than `sync()`.
 * - `tearsWrites`: whether a power cut can leave a write half done. LMDB cannot (a transaction
 *   is there whole or not at all, so a damaged record in it is damage, never a torn write); a
 *   plain file, or the simulated disk, can.
 * - Reads return views that stay valid only until the next read (LMDB reuses its buffer).
 *
 * May import: nothing.
 */

export interface JournalStorage {
  /** Queues `record` under key `seq`. The storage may keep the array until it is flushed: do not reuse it. */
  put(seq: number, record: Uint8Array): void;
  /** Resolves when every earlier `put` is on stable storage. */
  sync(): Promise<void>;
  /** Resolves when every earlier `put` would survive a crash of this process (commit; a flush counts). */
  committed(): Promise<void>;
  /** A power cut can leave the last write torn (false for LMDB: its transactions are atomic). */
  readonly tearsWrites: boolean;
  /** The highest key stored, or 0 when empty. */
  lastKey(): number;
  /** The lowest key stored, or 0 when empty. */
  firstKey(): number;
  /** The record under `seq`. */
  get(seq: number): Uint8Array | undefined;
  /** Records with `from ≤ key ≤ to`, in key order (each a view valid until the next step). */
  range(from: number, to: number): Iterable<Uint8Array>;
  /** Deletes every record with key > `seq`; resolves once that is flushed. */
  truncateAfter(seq: number): Promise<void>;
  /** Bytes the storage occupies (file size for LMDB). */
  sizeBytes(): number;
  close(): Promise<void>;
}
