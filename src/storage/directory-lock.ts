/**
 * @module storage/directory-lock
 *
 * One exchange per data directory. LMDB lets several processes open one environment, and two
 * exchanges appending to one journal break its hash chain (seen: two demos started on one
 * directory, "hash chain broken at seq 49461", snapshots failing, trades out of order). So a
 * start takes `DIR/LOCK` first — a file created exclusively, holding the pid that serves the
 * directory — and a stop removes it. Every role takes it (src/pipeline for the embedded
 * exchange and a primary, replication/replica for a replica and a standby): a replica appends
 * the primary's records to its own journal, and a second writer breaks it just the same.
 *
 * Invariants:
 *  - A start on a directory whose LOCK names a live process other than this one is refused
 *    (`DataRefusedError`, nothing changed), naming the process and the file.
 *  - A LOCK left by a process that is gone (kill -9, a power cut) never blocks a start: it is
 *    taken over. The pid of this very process counts as gone (a container restarts its
 *    exchange under the same pid; a test restarts an exchange inside one process).
 *  - Two starts racing, on no LOCK or over a stale one: one serves, the other is refused. The
 *    LOCK is linked into place whole (never seen without its pid), and only the start that
 *    claims the stale holder's takeover (`LOCK.takeover-PID`, created exclusively) removes it.
 *  - A start killed in the middle of a takeover blocks no later start: its claim, naming a
 *    process that is gone, is taken over by the same rule. What killed starts left beside the
 *    LOCK (claims, pid files not yet linked) is removed once a start holds it.
 *  - A release removes the LOCK only while the lock released is the one that took it last. The
 *    pid alone cannot say so inside one process, where a node changes roles on its directory (a
 *    standby's replica stops and the primary pipeline starts; a deposed primary stops and a
 *    standby starts): each lock has a token, and the process remembers which token holds each
 *    LOCK it took. A holder released late — or one whose LOCK the next start of this process
 *    took over — leaves the new holder's LOCK in place.
 *
 * Limits: liveness is "a process with that pid exists and runs node" (`/proc/PID/cmdline`
 * where Linux has it; any process with that pid elsewhere), so a pid reused by another node
 * process after a crash refuses the start until the operator removes the file (the message
 * says so). The lock is advisory: it binds exchanges, not other programs. Inside one process
 * it refuses nothing (its own pid counts as gone): two exchanges started on one directory in one
 * process are the caller's to prevent — replication/node starts a role only once the last has
 * stopped.
 *
 * `holdDataDirectory` runs a start under the LOCK: when the start fails after taking it (the
 * port was taken during the replay, say), what it opened is closed in reverse order, each step
 * for at most UNDO_STEP_MS, and the LOCK released — no thread, handle or LOCK outlives it.
 *
 * May import: node:fs, node:path, journal/refusal.
 */
import { linkSync, readdirSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DataRefusedError } from '../journal/refusal.ts';

export interface DirectoryLock {
  /** Removes the LOCK, if it is still ours. */
  release(): void;
}

/**
 * The LOCK files this process holds, each with the token of the lock that took it last: what a
 * release checks (the pid in the file is this process's for every holder in it).
 */
const heldHere = new Map<string, object>();

/** What a start opened, as steps that close it: undone last first when the start fails. */
export type Undo = Array<() => unknown>;

/** How long each undo step of a failed start may take (a journal's last flush, say). */
const UNDO_STEP_MS = 2_000;

/** `work`, or nothing once `ms` have passed: what a failing process must not wait on for long. */
export function atMost(ms: number, work: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work.catch(() => {}), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

/** Creates `dataDir` if need be, locks it and runs `start` under the lock (see the module header). */
export async function holdDataDirectory<T>(dataDir: string, start: (lock: DirectoryLock, undo: Undo) => Promise<T>): Promise<T> {
  mkdirSync(dataDir, { recursive: true });
  const lock = lockDataDirectory(dataDir);
  const undo: Undo = [];
  try {
    return await start(lock, undo);
  } catch (error) {
    // Threads first (they use the stores), then the stores; each step on its own, none for long.
    for (const step of undo.reverse()) await atMost(UNDO_STEP_MS, Promise.resolve().then(step));
    lock.release();
    throw error;
  }
}

function lockDataDirectory(dataDir: string): DirectoryLock {
  const file = join(dataDir, 'LOCK');
  take(file, (holder) => inUse(dataDir, file, holder));
  clearLeftovers(dataDir);
  const token = {};
  // By its absolute path: one directory named two ways is one LOCK.
  const key = resolve(file);
  heldHere.set(key, token);
  return {
    release() {
      if (heldHere.get(key) !== token) return;
      heldHere.delete(key);
      // Another process's pid: an operator removed the file and another exchange took it since.
      if (holderOf(file) === process.pid) unlinkSync(file);
    },
  };
}

/**
 * Creates `file` holding this process's pid, taking it over from a holder that is gone; throws
 * `refused(holder)` while a live process (other than this one) holds it.
 *
 * Removing a stale file and creating it again is not exclusive on its own: two starts that both
 * read the stale pid could each remove it — the second removing the one the first had just
 * created — and both serve. So only the start that takes `FILE.takeover-<stale>` may remove a
 * file naming `stale`, and it does once it has read again that the file still names it (the
 * other start may have taken it over and let its claim go since). The claim is taken by this
 * same rule: a start killed in the middle of a takeover (its claim left behind, naming a process
 * that is gone) delays nobody — the next start takes its claim over as it takes over a LOCK. A
 * claim held by a live start refuses this one: that start is taking the directory over.
 */
function take(file: string, refused: (holder: number | null) => DataRefusedError): void {
  if (tryCreate(file)) return;
  const stale = holderOf(file);
  if (stale !== null && stale !== process.pid && servesNode(stale)) throw refused(stale);
  const claim = `${file}.takeover-${stale ?? 'unreadable'}`;
  take(claim, () => new DataRefusedError(`${file} is being taken over by another start (${claim}): two exchanges on one journal would corrupt it. If no other exchange is starting on it, remove ${claim}.`));
  try {
    const holder = holderOf(file);
    if (holder !== stale) {
      if (holder !== null || exists(file)) throw refused(holder);
    } else unlinkGone(file);
    if (!tryCreate(file)) throw refused(holderOf(file));
  } finally {
    // Gone already only when the LOCK's new holder cleared it (`clearLeftovers`): this start is refused.
    unlinkGone(claim);
  }
}

function unlinkGone(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Removes what a start killed on its way left beside the LOCK: a takeover's claim, a pid file
 * written to be linked into place (`LOCK.<pid>.<random>`), whose process is gone. Held now, the
 * LOCK keeps every other start of this directory out of `take`, so nothing removed is in use.
 */
function clearLeftovers(dataDir: string): void {
  for (const name of readdirSync(dataDir)) {
    const written = /^LOCK(?:\.takeover-(?:\d+|unreadable))*\.(\d+)\.[a-z0-9]+$/.exec(name);
    const claim = /^LOCK(?:\.takeover-(?:\d+|unreadable))+$/.test(name);
    // A live start's pid file is about to be linked (and refused); its claim, about to be refused.
    if (!claim && (written === null || (Number(written[1]) !== process.pid && servesNode(Number(written[1]))))) continue;
    unlinkGone(join(dataDir, name));
  }
}

function exists(file: string): boolean {
  try {
    readFileSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates `file` holding this process's pid, or false if it exists. Written whole beside it and
 * linked into place: a LOCK is never seen empty (an exclusive create and then a write left a
 * moment when a racing start read no pid, took the LOCK for a dead one's and took it over).
 */
function tryCreate(file: string): boolean {
  const written = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(written, `${process.pid}\n`, { flag: 'wx' });
  try {
    linkSync(written, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(written);
  }
}

function holderOf(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function servesNode(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('node');
  } catch {
    return true;
  }
}

function inUse(dataDir: string, file: string, holder: number | null): DataRefusedError {
  return new DataRefusedError(
    `the data directory ${dataDir} is in use by ${holder === null ? 'another exchange' : `process ${holder}`} (${file}): ` +
      'two exchanges on one journal would corrupt it. Stop that exchange first; if no exchange runs on it, remove the file.',
  );
}
