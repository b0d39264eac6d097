/**
 * @module journal/cli
 *
 * The operator's journal tool: `npm run journal -- <command> --data-dir DIR [options]`.
 *
 *   inspect  [--from N] [--to M]   last seq, record count, counts by kind, size, snapshots
 *   verify   [--replay MODULE]     checksums, sequence and hash chain of every record; with
 *                                  MODULE (default export: () => ReplayTarget), replays every
 *                                  record and compares the state hash at each snapshot;
 *            [--check-invariants]  and checks the replayed state's invariants after every
 *                                  record, naming the first record that broke one
 *   copy     --to DIR [--until N]  copies records 1..N (default all) verbatim, verified, into
 *                                  a fresh data directory (`DIR/journal`, where the exchange
 *                                  looks: `--data-dir DIR` starts from it and rebuilds history),
 *                                  with the snapshots up to N (files of `DIR/snapshots`)
 *
 * `--data-dir` is the exchange's DATA_DIR (the journal in `DIR/journal`) or the journal
 * directory itself; the snapshots are the files of the journal directory's sibling `snapshots/`
 * (`DIR/snapshots`), and, in a data directory no exchange of this build has started on yet,
 * those an older build kept in the journal's LMDB environment: inspect, verify and copy read
 * both (journal/snapshots, legacy), and move nothing — the exchange's next start does. Exit status: 0 when everything verifies, 1 on corruption or a hash
 * mismatch, 2 on usage (one line naming the option). Nothing is created on a refusal: inspect
 * and verify open read-only, and a copy that fails removes the directory it made.
 *
 * May import: journal/, transport/layout (kind names), node:fs, node:path, node:url, app/commands.
 */
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RecordKind } from '../transport/layout.ts';
import { CommandKind } from '../app/commands.ts';
import { Journal, consoleLogger, type JournalLogger } from './journal.ts';
import { LmdbJournalStorage } from './lmdb-storage.ts';
import { checkLmdbFile } from './lmdb-file.ts';
import { DataRefusedError } from './refusal.ts';
import { Snapshots, snapshotsDirectoryBeside } from './snapshots.ts';
import { notTakenOfMessage } from './snapshot-tie.ts';
import { verifyJournal, type ReplayTarget } from './verify.ts';

const USAGE = 'usage: npm run journal -- <inspect|verify|copy> --data-dir DIR [--from N] [--to M | --to DIR] [--until N] [--replay MODULE [--check-invariants]]';

/** A wrong argument: one line naming it, exit status 2. */
class UsageError extends Error {}

/**
 * The journal directory `--data-dir` names: the exchange's DATA_DIR (its `journal/`) or the
 * journal directory itself. Found before anything is opened, so a wrong path creates nothing.
 */
function journalDirectory(dir: string): string {
  if (!existsSync(dir)) throw new UsageError(`--data-dir: ${dir} does not exist`);
  const inDataDir = join(dir, 'journal');
  if (checkLmdbFile(inDataDir).state !== 'absent') return inDataDir;
  if (checkLmdbFile(dir).state !== 'absent') return dir;
  throw new UsageError(`--data-dir: no journal in ${dir}: give the exchange's DATA_DIR (the journal is DATA_DIR/journal) or that journal directory`);
}

const KIND_NAMES = new Map<number, string>([...Object.entries(RecordKind), ...Object.entries(CommandKind)].map(([name, kind]) => [kind, name]));

/** The flags that take no value. */
const SWITCHES = new Set(['check-invariants']);

function parse(argv: string[]): { command: string; flags: Map<string, string> } {
  const [command = '', ...rest] = argv;
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i];
    if (SWITCHES.has(flag.slice(2))) flags.set(flag.slice(2), '');
    else if (!flag.startsWith('--') || i + 1 >= rest.length) throw new UsageError(`bad argument ${flag}`);
    else flags.set(flag.slice(2), rest[++i]);
  }
  return { command, flags };
}

function numberFlag(flags: Map<string, string>, name: string): number | undefined {
  const text = flags.get(name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new UsageError(`--${name} must be a non-negative integer, got ${JSON.stringify(text)}`);
  return value;
}

const quietLogger: JournalLogger = { info: () => {}, error: consoleLogger.error };

/** The snapshots of the journal at `dir` (read only): its files, and those an older build left in its LMDB environment. */
function snapshotsOf(dir: string, storage: LmdbJournalStorage): Snapshots {
  return new Snapshots(snapshotsDirectoryBeside(dir), { logger: quietLogger, legacy: storage.env });
}

async function inspect(dir: string, flags: Map<string, string>): Promise<number> {
  const storage = LmdbJournalStorage.open(dir, { readOnly: true });
  const journal = await Journal.open(storage, { logger: quietLogger, readOnly: true, verifyFrom: storage.lastKey() });
  const report = verifyJournal(journal, { from: numberFlag(flags, 'from'), to: numberFlag(flags, 'to') });
  const snapshots = snapshotsOf(dir, storage).list();
  console.log(`data dir        ${dir}`);
  console.log(`last seq        ${journal.lastSeq()}`);
  console.log(`records read    ${report.records}${flags.has('from') || flags.has('to') ? ' (in range)' : ''}`);
  console.log(`payload bytes   ${report.payloadBytes}`);
  console.log(`file size       ${storage.sizeBytes()} bytes`);
  for (const [kind, count] of [...report.countsByKind].sort((a, b) => a[0] - b[0])) console.log(`  kind ${String(kind).padStart(3)} ${(KIND_NAMES.get(kind) ?? '?').padEnd(18)} ${count}`);
  console.log(`snapshots       ${snapshots.length === 0 ? 'none' : snapshots.map((s) => `${s.seq}${s.valid ? '' : ' (INVALID)'}`).join(', ')}`);
  await journal.close();
  return 0;
}

async function verify(dir: string, flags: Map<string, string>): Promise<number> {
  const storage = LmdbJournalStorage.open(dir, { readOnly: true });
  const journal = await Journal.open(storage, { logger: quietLogger, readOnly: true, verifyFrom: storage.lastKey() });
  let replay: ReplayTarget | undefined;
  const module = flags.get('replay');
  if (module) {
    const factory = ((await import(pathToFileURL(resolve(module)).href)) as { default: () => ReplayTarget }).default;
    replay = factory();
  }
  const started = performance.now();
  const checkInvariants = flags.has('check-invariants');
  if (checkInvariants && replay === undefined) throw new UsageError('--check-invariants needs --replay MODULE (the state whose invariants it checks)');
  const report = verifyJournal(journal, { replay, snapshots: replay ? snapshotsOf(dir, storage) : undefined, checkInvariants });
  const seconds = (performance.now() - started) / 1000;
  console.log(`verified ${report.records} records (seq 1..${report.lastSeq}) in ${seconds.toFixed(2)} s: checksums, sequence and hash chain OK`);
  if (replay) {
    console.log(`replay: final state hash ${report.finalHash}; snapshots matched ${report.snapshotsMatched}, mismatched ${report.snapshotMismatches.length}`);
    for (const m of report.snapshotMismatches) console.log(`  MISMATCH at seq ${m.seq}: snapshot ${m.expected}, replay ${m.actual}`);
    for (const seq of report.snapshotsNotTaken) console.log(`  ${notTakenOfMessage(seq, journal)}`);
  }
  const broken = report.firstBroken;
  if (checkInvariants) console.log(broken === undefined ? 'invariants: held after every record' : `invariants: BROKEN after seq ${broken.seq} (${KIND_NAMES.get(broken.kind) ?? broken.kind}): ${broken.problem}`);
  await journal.close();
  return report.snapshotMismatches.length === 0 && broken === undefined ? 0 : 1;
}

async function copy(dir: string, flags: Map<string, string>): Promise<number> {
  const targetDir = flags.get('to');
  if (!targetDir) throw new UsageError('copy needs --to DIR (a new data directory)');
  if (existsSync(targetDir)) throw new UsageError(`--to: ${targetDir} already exists; copy needs a new data directory`);
  const until = numberFlag(flags, 'until');
  const source = LmdbJournalStorage.open(dir, { readOnly: true });
  // Records after --until are not read: a journal damaged after them still gives up its good prefix.
  const journal = await Journal.open(source, { logger: quietLogger, readOnly: true, upTo: until, verifyFrom: until ?? source.lastKey() });
  try {
    return await copyInto(snapshotsOf(dir, source), journal, targetDir);
  } catch (error) {
    // A copy that stopped half-way is no copy: nothing is left behind.
    rmSync(targetDir, { recursive: true, force: true });
    throw error;
  } finally {
    await journal.close();
  }
}

async function copyInto(from: Snapshots, journal: Journal, targetDir: string): Promise<number> {
  const target = join(targetDir, 'journal');
  const until = journal.lastSeq();
  const destination = LmdbJournalStorage.open(target);
  let copied = 0;
  for (const entry of journal.range(1, until)) {
    destination.put(entry.seq, new Uint8Array(entry.record)); // verbatim: same seq, same chain
    if (++copied % 100_000 === 0) await destination.sync();
  }
  await destination.sync();
  const to = new Snapshots(snapshotsDirectoryBeside(target), { logger: quietLogger });
  let snapshots = 0;
  for (const { seq, record } of from.records(until)) {
    await to.saveRecord(seq, record); // verbatim, durable
    snapshots++;
  }
  await destination.close();
  // Prove the copy: open it as the exchange would (full verification).
  const check = await Journal.open(LmdbJournalStorage.open(target), { logger: quietLogger });
  console.log(`copied ${copied} records (seq 1..${until}) to ${target} and ${snapshots} snapshots to ${to.dir}; the copy verifies, last seq ${check.lastSeq()}`);
  await check.close();
  return 0;
}

const COMMANDS = new Map<string, (dir: string, flags: Map<string, string>) => Promise<number>>([
  ['inspect', inspect],
  ['verify', verify],
  ['copy', copy],
]);

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (error) {
    console.error(`${(error as Error).message}: ${USAGE}`);
    return 2;
  }
  const given = parsed.flags.get('data-dir');
  if (!given) {
    console.error(USAGE);
    return 2;
  }
  try {
    const command = COMMANDS.get(parsed.command);
    if (command === undefined) throw new UsageError(USAGE);
    return await command(journalDirectory(given), parsed.flags);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(error.message);
      return 2;
    }
    if (error instanceof DataRefusedError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
