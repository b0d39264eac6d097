/**
 * @module history/history-env
 *
 * How the history environment is opened, the same on every thread that opens it. History is
 * derived data, rebuilt from the journal, so it is written without fsync (`noSync`): a power
 * cut may lose its tail, and the "projected up to" position written in the same transaction
 * makes the next start project that tail again. Not through a writable memory map
 * (`useWritemap`), although it costs the projection thread 17–25 % less CPU per order
 * (bench:history-write): with it, a full disk is a SIGBUS that kills the whole process, and
 * again at every restart as the projection replays its tail, with no log line; without it, LMDB's
 * write fails and the exchange stops with `history write failed: <error>` (docs/operations.md,
 * "When a thread dies"; docs/benchmarks.md).
 * May import: lmdb (types).
 */
import type { Database, Key, RootDatabase } from 'lmdb';
export const HISTORY_ENV_OPTIONS = { maxDbs: 16, noSync: true } as const;

/**
 * How every projection database is opened (since history format 4). Values are msgpack records whose
 * shapes — the field names of a trade, an order record, an account event — are kept once per
 * database under `Symbol.for('structures')` (lmdb's shared structures) instead of written into
 * every value: an order record's 25 names are most of its bytes (bench:history-write: the
 * projection thread's cost per order −20 %). The structures key sorts before every numeric key
 * (ordered-binary's symbol type byte), so no range of a projection meets it; a thread that reads
 * a value of a shape it has not seen yet reloads them (lmdb does, in the thread's current read
 * transaction: at least as new as the value's, and shapes are only ever appended). `history.meta` keeps the plain encoding: its `format` is read before
 * anything knows which layout the rest is in.
 */
export function projectionDatabase<V, K extends Key>(root: RootDatabase, name: string): Database<V, K> {
  const db = root.openDB<V, K>({ name, sharedStructuresKey: Symbol.for('structures') });
  // A read-only environment has no handle for a database never written (lmdb gives undefined).
  if ((db as unknown) !== undefined) projectionDatabases.set(root, [...(projectionDatabases.get(root) ?? []), db]);
  return db;
}

const projectionDatabases = new WeakMap<RootDatabase, Database<unknown, Key>[]>();

/**
 * After a write transaction of `root` aborted: a shape first written in it was saved in it too,
 * and is gone with it, but the encoder that made it still counts it as saved and would go on
 * writing values that point to it. Each projection database of `root` forgets its shapes, and
 * reloads the committed ones the next time it writes or reads (msgpackr's `clearSharedData`, as
 * lmdb's own `clearAsync` does).
 */
export function forgetUncommittedShapes(root: RootDatabase): void {
  for (const db of projectionDatabases.get(root) ?? []) (db as unknown as { encoder?: { clearSharedData?(): void } }).encoder?.clearSharedData?.();
}
