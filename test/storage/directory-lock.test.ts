/**
 * A node changes roles on its data directory inside one process (a standby's replica stops and
 * the primary pipeline starts on the same directory), so the pid in `DIR/LOCK` cannot tell one
 * holder in it from the next: a release by a holder whose LOCK the next start of this process
 * took over must leave the new holder's LOCK in place (storage/directory-lock's token). Before,
 * the old holder's release removed it, and the directory was served unlocked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdDataDirectory, type DirectoryLock } from '../../src/storage/directory-lock.ts';

/** The lock of a start on `dataDir` that succeeded (held until released). */
const lockOf = (dataDir: string): Promise<DirectoryLock> => holdDataDirectory(dataDir, async (lock) => lock);

test("a release by a holder this process's next start took over leaves the new holder's LOCK; the new holder's release removes it", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-lock-'));
  try {
    const file = join(dataDir, 'LOCK');
    const old = await lockOf(dataDir);
    // The same pid: taken over, as a start of this process takes over a LOCK left by its last holder.
    const next = await lockOf(dataDir);
    old.release();
    assert.equal(Number(readFileSync(file, 'utf8')), process.pid, "the new holder's LOCK is still there");
    next.release();
    assert.equal(existsSync(file), false, "the new holder's release removes it");
    old.release();
    const after = await lockOf(dataDir);
    old.release();
    assert.equal(existsSync(file), true, 'a late release of an old holder does nothing, however often');
    after.release();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
