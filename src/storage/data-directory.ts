/**
 * @module storage/data-directory
 *
 * Opens what a data directory holds — the journal (`DIR/journal`, LMDB), the state snapshots
 * (`DIR/snapshots`, one file each: journal/snapshots) and the history projections
 * (`DIR/history`, LMDB) — and makes sure they agree before anything is served. The journal is
 * the truth; history and snapshots are derived from it and must never claim more than it holds.
 * (`DIR/LOCK` is storage/directory-lock's, `DIR/markets-in-use.json` storage/markets-in-use's.)
 *
 * Refused (a `DataRefusedError` naming the file, nothing changed):
 * - a journal file shorter than its own header says (truncated: lmdb would die with SIGBUS);
 * - a damaged journal record that may have been acknowledged (journal/journal);
 * - a snapshot covering seqs the journal does not hold: they were flushed (a snapshot is saved
 *   only after the records it covers are), so acknowledged records are missing — or the
 *   snapshots are another journal's (the message names the files: remove them then);
 * - an empty or missing journal beside history that holds records: the journal was lost, and
 *   starting would open a new exchange under the old one's history.
 *
 * Repaired (logged as an error, then served):
 * - history that cannot be opened, or whose file is truncated: rebuilt from the journal;
 * - history ahead of the journal (it holds seqs the journal lacks — a power cut lost journal
 *   commits that history kept, or a data directory from a build that wrote history before the
 *   journal committed): rebuilt from the journal. Its records do not say which seq each came
 *   from, so it cannot be cut back; the rebuild replays the journal from seq 1.
 * - history written by an older build in another layout (history/store `HISTORY_FORMAT`):
 *   rebuilt from the journal the same way — the migration is a replay.
 *
 * Moved (once, logged): snapshots an older build kept in the journal's LMDB environment
 * (database `snapshots`) become files of `DIR/snapshots` — written durably, then the database
 * cleared in one transaction; a start killed in between redoes it. The refusals above read
 * both, and nothing is moved when the open is refused. A temporary file a save killed
 * half-way left in `DIR/snapshots` is removed.
 *
 * Skipped: a snapshot not taken of this journal (journal/snapshot-tie: its tie differs from the
 * journal's record at its seq) is neither started from (sequencer/start-state logs it) nor
 * trusted to show records flushed: verification starts after, and `flushedThrough` is, the
 * newest snapshot taken of it.
 *
 * Cut back on request (`cutAfter`): the journal after a seq, with the snapshots taken after it
 * (history past it is then rebuilt by the reopen) — only for records known never acknowledged.
 *
 * May import: lmdb, node:fs, node:path, journal/, history/projections, history/history-env, history/store.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { Journal, type JournalLogger, type JournalOptions } from '../journal/journal.ts';
import { LmdbJournalStorage } from '../journal/lmdb-storage.ts';
import { checkLmdbFile, lmdbDataFile } from '../journal/lmdb-file.ts';
import { DataRefusedError } from '../journal/refusal.ts';
import { Snapshots, snapshotFileName, snapshotsDirectoryBeside } from '../journal/snapshots.ts';
import { chainsOf, newestTakenOf } from '../journal/snapshot-tie.ts';
import { HISTORY_ENV_OPTIONS } from '../history/history-env.ts';
import { Projections } from '../history/projections.ts';
import { HISTORY_FORMAT } from '../history/store.ts';

export interface DataDirectory {
  storage: LmdbJournalStorage;
  /** The snapshot files, `DIR/snapshots` (`snapshots.dir`: where the snapshot thread saves them). */
  snapshots: Snapshots;
  journal: Journal;
  historyDir: string;
  historyEnv: RootDatabase;
  projections: Projections;
}

/** The history environment at `dir` and its projections, or why it cannot be used. */
function openHistory(dir: string): { env: RootDatabase; projections: Projections } | { problem: string } {
  const file = checkLmdbFile(dir, { pages: true });
  if (file.state === 'damaged') return { problem: `${lmdbDataFile(dir)} is damaged: ${file.problem}` };
  let env: RootDatabase | undefined;
  try {
    env = open({ path: dir, ...HISTORY_ENV_OPTIONS });
    return { env, projections: new Projections(env) };
  } catch (error) {
    void env?.close();
    return { problem: `${lmdbDataFile(dir)} cannot be opened: ${(error as Error).message}` };
  }
}

/** Opens the journal, snapshots and history of `dataDir`, refusing what contradicts the journal and rebuilding history that does. */
export async function openDataDirectory(dataDir: string, logger: JournalLogger, journalOptions: Pick<JournalOptions, 'onFlush' | 'onStorageFailed'> = {}): Promise<DataDirectory> {
  const journalDir = join(dataDir, 'journal');
  const historyDir = join(dataDir, 'history');
  let history = openHistory(historyDir);
  const historyHolds = 'problem' in history ? history.problem : history.projections.projectedSeq > 0 ? `it has projected the journal up to seq ${history.projections.projectedSeq}` : null;

  // An empty or missing journal is refused before lmdb creates one, if history says there was an exchange.
  const journalFile = checkLmdbFile(journalDir);
  if ((journalFile.state === 'absent' || journalFile.state === 'empty') && historyHolds !== null) {
    throw lostJournal(journalDir, historyDir, `the journal file is ${journalFile.state}`, historyHolds);
  }
  const storage = LmdbJournalStorage.open(journalDir);
  // Until they are moved below, the snapshots an older build kept in LMDB count as well.
  const snapshots = new Snapshots(snapshotsDirectoryBeside(journalDir), { logger, legacy: storage.env });
  // Only a snapshot taken of this journal (journal/snapshot-tie) counts: one of another journal
  // proves nothing about this one's records. One newer than the journal cannot be checked.
  const { newest, beyond } = newestTakenOf(snapshots, chainsOf(storage));
  if (beyond.length > 0) {
    const files = beyond.map((seq) => join(snapshots.dir, snapshotFileName(seq))).join(', ');
    throw new DataRefusedError(
      `the journal ${lmdbDataFile(journalDir)} ends at seq ${storage.lastKey()}, but its newest snapshot was taken at seq ${beyond[0]} (${files}): ` +
        'a snapshot is saved only after the records it covers are flushed, so records that may have been acknowledged are missing. ' +
        `Nothing was changed. Restore the data directory from a replica or backup; if ${snapshots.dir} does not belong to this journal ` +
        '(the journal was replaced by another node\'s or restored from elsewhere), remove it.',
    );
  }
  // The newest snapshot's seq was flushed: a damaged record at or below it is not a torn write.
  const journal = await Journal.open(storage, { ...journalOptions, logger, verifyFrom: newest + 1, flushedThrough: newest });
  if (journal.lastSeq() === 0 && historyHolds !== null) throw lostJournal(journalDir, historyDir, 'the journal holds no record', historyHolds);
  await snapshots.createDirectory();
  await snapshots.removeLeftovers();
  try {
    await snapshots.migrateLegacy();
  } catch (error) {
    // The snapshots are an optimization and this start can read them where they are: a move that
    // fails (a full disk, which is when operators restart) must not refuse the start. The next
    // start tries again; the snapshot thread meanwhile prunes only the files.
    logger.error({ dir: snapshots.dir, error: String(error) }, 'snapshots could not be moved from the journal\'s LMDB environment into files: read from there for now, the next start tries again');
  }

  let rebuild: string | null = 'problem' in history ? history.problem : null;
  if (!('problem' in history) && history.projections.projectedSeq > journal.lastSeq()) {
    rebuild = `history has projected the journal up to seq ${history.projections.projectedSeq}, but the journal ends at seq ${journal.lastSeq()}: it holds records the journal does not`;
    await history.env.close();
  } else if (!('problem' in history) && history.projections.projectedSeq > 0 && history.projections.format !== HISTORY_FORMAT) {
    rebuild = `history is in format ${history.projections.format ?? 1} (written by an older build), this build reads format ${HISTORY_FORMAT}`;
    await history.env.close();
  }
  if (rebuild !== null) {
    logger.error({ historyDir, lastSeq: journal.lastSeq() }, `HISTORY REBUILT: ${rebuild}; rebuilding it from the journal (replayed from seq 1)`);
    rmSync(historyDir, { recursive: true, force: true });
    history = openHistory(historyDir);
    if ('problem' in history) throw new DataRefusedError(`history at ${historyDir} cannot be created: ${history.problem}`);
  }
  const { env, projections } = history as { env: RootDatabase; projections: Projections };
  projections.journal = journal;
  return { storage, snapshots, journal, historyDir, historyEnv: env, projections };
}

/**
 * The data directory `dir` (opened at `dataDir`) with its journal cut after record `seq` and
 * the snapshots taken after it dropped, reopened (with `journalOptions`, as `openDataDirectory`): history that projected the records cut is
 * rebuilt from the journal as the open does for history ahead of it. The caller vouches that
 * nobody was told of the records cut (replication/replica: a deposed primary's records that
 * JetStream never stored, under `--durability replicated`). `dir` is closed.
 */
export async function cutAfter(dir: DataDirectory, dataDir: string, seq: number, logger: JournalLogger, journalOptions: Pick<JournalOptions, 'onFlush' | 'onStorageFailed'> = {}): Promise<DataDirectory> {
  const snapshots = await dir.snapshots.dropAfter(seq);
  await dir.storage.truncateAfter(seq);
  await dir.journal.close();
  await dir.historyEnv.close();
  logger.info({ seq, snapshots }, 'journal cut');
  return openDataDirectory(dataDir, logger, journalOptions);
}

function lostJournal(journalDir: string, historyDir: string, found: string, historyHolds: string): DataRefusedError {
  return new DataRefusedError(
    `${found} (${lmdbDataFile(journalDir)}), but the history beside it (${historyDir}) shows this exchange has run: ${historyHolds}. ` +
      'Starting would open a new, empty exchange under the old one\'s history. Nothing was changed. ' +
      `Restore the journal from a replica or backup; to start a new exchange on purpose, remove ${historyDir} and ${snapshotsDirectoryBeside(journalDir)} as well.`,
  );
}
