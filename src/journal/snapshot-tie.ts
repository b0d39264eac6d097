/**
 * @module journal/snapshot-tie
 *
 * Which journal a snapshot was taken of. A version 3 snapshot record (journal/snapshots) carries
 * its tie: the journal's chain value of record `seq` (journal/record `Chain`: crc32c and crc32 of
 * the record, which covers every record before it through the links). The snapshot files are
 * beside the journal, not in it, so a data directory can hold another journal's: `journal/`
 * re-seeded from another node, or a deposed primary whose timeline diverged, with `snapshots/`
 * left in place. Restored, such a snapshot would be another exchange's state with this journal
 * replayed on top of it.
 *
 * Whoever picks a snapshot to start from (storage/data-directory for where verification starts,
 * sequencer/start-state for the state, journal/verify for the hashes it compares) takes only
 * those `takenOf` the journal: a version 3 snapshot whose tie differs from the journal's record
 * at its seq, or whose seq the journal does not hold, is skipped — logged as
 * `snapshot at seq N was not taken of this journal (its record N differs): skipped` — and an
 * older one tried. A version 2 record (written before the tie) has none and is taken as before,
 * so an upgrade does not force a full replay; it is not checked.
 *
 * May import: journal/record, journal/snapshots (types), journal/storage (types).
 */
import { chainIn } from './record.ts';
import type { Snapshot, SnapshotTie } from './snapshots.ts';
import type { JournalStorage } from './storage.ts';

/** A journal's records' chain values: a `Journal`, or (before it is opened) its storage through `chainsOf`. */
export interface JournalChains {
  lastSeq(): number;
  /** The chain value of record `seq`, or undefined when the journal does not hold it whole. */
  chainAt(seq: number): SnapshotTie | undefined;
}

/** The chain values of the records in `storage`, read before the journal is opened (a torn or damaged record has none). */
export function chainsOf(storage: Pick<JournalStorage, 'lastKey' | 'get'>): JournalChains {
  return {
    lastSeq: () => storage.lastKey(),
    chainAt: (seq) => chainIn(storage, seq, storage.lastKey()),
  };
}

/** Whether `snapshot` was taken of `journal`: its tie equals the journal's chain value at its seq. True for a version 2 snapshot (no tie, not checked). */
export function takenOf(snapshot: Pick<Snapshot, 'seq' | 'tie'>, journal: JournalChains): boolean {
  if (snapshot.tie === undefined) return true;
  const chain = journal.chainAt(snapshot.seq);
  return chain !== undefined && chain.crc32c === snapshot.tie.crc32c && chain.crc32 === snapshot.tie.crc32;
}

/** The log line of a snapshot `takenOf` refused. */
export function notTakenOfMessage(seq: number, journal: Pick<JournalChains, 'lastSeq'>): string {
  const why = seq <= journal.lastSeq() ? `its record ${seq} differs` : `it ends at seq ${journal.lastSeq()}`;
  return `snapshot at seq ${seq} was not taken of this journal (${why}): skipped`;
}

/** The snapshots of `candidates` (in their order) taken of `journal`; each other one is logged and skipped. */
export function* takenOfJournal<S extends Pick<Snapshot, 'seq' | 'tie'>>(
  candidates: Iterable<S>,
  journal: JournalChains,
  logger: { error(fields: Record<string, unknown>, message: string): void },
): Generator<S> {
  for (const snapshot of candidates) {
    if (takenOf(snapshot, journal)) yield snapshot;
    else logger.error({ seq: snapshot.seq, lastSeq: journal.lastSeq(), notTakenOf: true }, notTakenOfMessage(snapshot.seq, journal));
  }
}

/**
 * Where a start on `journal` may begin, without logging: `newest`, the newest valid snapshot at
 * or below the journal's last record taken of it (0: none), and `beyond`, the seqs of those
 * after its last record, newest first: they cannot be checked against it (storage/data-directory
 * refuses them: flushed records are missing, or the snapshots are another journal's).
 */
export function newestTakenOf(snapshots: { validNewestFirst(): Iterable<Snapshot> }, journal: JournalChains): { newest: number; beyond: number[] } {
  const beyond: number[] = [];
  const last = journal.lastSeq();
  for (const snapshot of snapshots.validNewestFirst()) {
    if (snapshot.seq > last) beyond.push(snapshot.seq);
    else if (takenOf(snapshot, journal)) return { newest: snapshot.seq, beyond };
  }
  return { newest: 0, beyond };
}
