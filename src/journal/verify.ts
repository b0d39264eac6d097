/**
 * @module journal/verify
 *
 * Whole-journal verification for the operator tool and start-up checks: walks every record
 * (checksums, sequence, hash chain, through `Journal.range`), counts records by kind, and,
 * given a `ReplayTarget`, replays each record into it and compares its state hash with every
 * stored snapshot's hash at that snapshot's seq (the replay-equivalence check of the test
 * plan). The cores are wired in by whoever provides the target (`--replay MODULE` in the CLI).
 * A snapshot not taken of this journal (journal/snapshot-tie: its tie differs from the record at
 * its seq) is not compared — its hash is another journal's state — but reported (`snapshotsNotTaken`).
 *
 * May import: journal/journal, journal/snapshots, journal/snapshot-tie.
 */
import type { Journal, JournalEntry } from './journal.ts';
import type { Snapshots } from './snapshots.ts';
import { takenOf } from './snapshot-tie.ts';

/** What a replay drives: the cores behind an adapter that decodes journal entries. */
export interface ReplayTarget {
  apply(entry: JournalEntry): void;
  stateHash(): string;
  /** The first broken invariant of the replayed state, or null (`--check-invariants`). */
  problem?(): string | null;
}

export interface SnapshotCheck {
  seq: number;
  expected: string;
  actual: string;
}

export interface VerifyReport {
  records: number;
  lastSeq: number;
  countsByKind: Map<number, number>;
  payloadBytes: number;
  /** Snapshots whose hash the replay reproduced / did not. */
  snapshotsMatched: number;
  snapshotMismatches: SnapshotCheck[];
  /** Seqs of the snapshots not compared: taken of another journal (their tie differs from its record there). */
  snapshotsNotTaken: number[];
  /** The replay target's hash after the last record. */
  finalHash?: string;
  /** With `checkInvariants`: the first record after which the replayed state broke an invariant, and which. */
  firstBroken?: { seq: number; kind: number; problem: string };
}

/** Verifies records `from`..`to` (default: all); throws `JournalCorruptError` at the first bad one. */
/**
 * `checkInvariants`: after every record the replayed state's invariants are checked (the target's
 * `problem`), and the first record that broke one is reported — where a state went wrong, to the
 * record. It walks the whole state per record: minutes for a long journal.
 */
export function verifyJournal(journal: Journal, options: { replay?: ReplayTarget; snapshots?: Snapshots; from?: number; to?: number; checkInvariants?: boolean } = {}): VerifyReport {
  const report: VerifyReport = { records: 0, lastSeq: 0, countsByKind: new Map(), payloadBytes: 0, snapshotsMatched: 0, snapshotMismatches: [], snapshotsNotTaken: [] };
  const hashes = new Map<number, string>();
  if (options.replay && options.snapshots) {
    for (const snapshot of options.snapshots.validNewestFirst()) {
      // One past the journal's end is never reached by the replay; one of another journal is not compared.
      if (snapshot.seq <= journal.lastSeq() && !takenOf(snapshot, journal)) report.snapshotsNotTaken.push(snapshot.seq);
      else hashes.set(snapshot.seq, snapshot.stateHash);
    }
  }
  const checkpoints = [...hashes.keys()].sort((a, b) => a - b).map((seq) => ({ seq }));
  let next = 0;
  for (const entry of journal.range(options.from ?? 1, options.to)) {
    report.records++;
    report.lastSeq = entry.seq;
    report.payloadBytes += entry.payloadLength;
    report.countsByKind.set(entry.kind, (report.countsByKind.get(entry.kind) ?? 0) + 1);
    if (options.replay) {
      options.replay.apply(entry);
      if (options.checkInvariants && report.firstBroken === undefined) {
        const problem = options.replay.problem?.() ?? null;
        if (problem !== null) report.firstBroken = { seq: entry.seq, kind: entry.kind, problem };
      }
      while (next < checkpoints.length && checkpoints[next].seq < entry.seq) next++;
      if (next < checkpoints.length && checkpoints[next].seq === entry.seq) {
        const expected = hashes.get(entry.seq)!;
        const actual = options.replay.stateHash();
        if (expected === actual) report.snapshotsMatched++;
        else report.snapshotMismatches.push({ seq: entry.seq, expected, actual });
        next++;
      }
    }
  }
  if (options.replay) report.finalHash = options.replay.stateHash();
  return report;
}
