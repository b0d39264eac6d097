/**
 * Two starts racing for one data directory (storage/directory-lock): one serves, the other is
 * refused — whether the LOCK they find is a dead process's (a crash; both restart at once) or one
 * the other start has just created and not yet written its pid in. Each test plays the other
 * start's step between this start's read of the LOCK and what it does next: the LOCK, read as
 * the dead holder's (or empty), names a live process right after. Before, this start removed
 * that live holder's new LOCK and created its own, and both served one journal; with 6 processes
 * started at once on an empty directory, two served in about one round in four
 * (`holdDataDirectory` in each, all waiting for the same millisecond).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs, { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdDataDirectory } from '../../src/storage/directory-lock.ts';

/** `found` in `dataDir`'s LOCK; the other start, `holder`, writes its own just after this start first reads it. */
async function raced(found: string, holder: number): Promise<{ outcome: string; lock: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-lock-race-'));
  const file = join(dataDir, 'LOCK');
  writeFileSync(file, found);
  const read = fs.readFileSync;
  let played = false;
  fs.readFileSync = ((path: fs.PathOrFileDescriptor, options?: unknown) => {
    const text = read(path, options as never);
    if (path === file && !played) {
      played = true;
      // The other start: the stale LOCK removed and its own created (or its pid written in the LOCK it had created).
      unlinkSync(file);
      writeFileSync(file, `${holder}\n`);
    }
    return text;
  }) as typeof fs.readFileSync;
  syncBuiltinESMExports();
  try {
    const outcome = await holdDataDirectory(dataDir, async () => 'it started').catch((error: Error) => error.message);
    return { outcome, lock: existsSync(file) ? readFileSync(file, 'utf8').trim() : 'none' };
  } finally {
    fs.readFileSync = read;
    syncBuiltinESMExports();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A node process that runs while `use` does: the other start. */
async function withOtherStart<T>(use: (pid: number) => Promise<T>): Promise<T> {
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  try {
    return await use(other.pid!);
  } finally {
    other.kill('SIGKILL');
  }
}

/** The pid of a node process that has exited: a crashed holder's. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

test("two starts over a dead process's LOCK: the one that took it over serves, the other is refused and leaves its LOCK", async () => {
  await withOtherStart(async (other) => {
    const { outcome, lock } = await raced(`${deadPid()}\n`, other);
    assert.match(outcome, new RegExp(`in use by process ${other}|being taken over`), 'this start is refused');
    assert.equal(lock, String(other), "the other start's LOCK is still there");
  });
});

test('a LOCK another start has created and not yet written its pid in: this start is refused and leaves it', async () => {
  await withOtherStart(async (other) => {
    const { outcome, lock } = await raced('', other);
    assert.match(outcome, new RegExp(`in use by process ${other}|being taken over`), 'this start is refused');
    assert.equal(lock, String(other), "the other start's LOCK is still there");
  });
});

/** `use` on a data directory holding `files` (name → content), removed after. */
async function inDirectory<T>(files: Record<string, string>, use: (dataDir: string) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-lock-left-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dataDir, name), text);
    return await use(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('a start killed in the middle of a takeover blocks no later start: its claim is taken over, and what it left is removed', async () => {
  const crashed = deadPid();
  const killedTakingOver = deadPid();
  const files = { LOCK: `${crashed}\n`, [`LOCK.takeover-${crashed}`]: `${killedTakingOver}\n`, [`LOCK.${killedTakingOver}.k1lled`]: `${killedTakingOver}\n` };
  await inDirectory(files, async (dataDir) => {
    const lock = await holdDataDirectory(dataDir, async (held) => held);
    assert.equal(readFileSync(join(dataDir, 'LOCK'), 'utf8').trim(), String(process.pid), 'this start holds the LOCK');
    assert.deepEqual(readdirSync(dataDir), ['LOCK'], 'the claim and the pid file the killed start left are gone');
    lock.release();
  });
});

test('a takeover claim held by a live start refuses this one, and stays', async () => {
  await withOtherStart(async (other) => {
    const crashed = deadPid();
    await inDirectory({ LOCK: `${crashed}\n`, [`LOCK.takeover-${crashed}`]: `${other}\n` }, async (dataDir) => {
      const outcome = await holdDataDirectory(dataDir, async () => 'it started').catch((error: Error) => error.message);
      assert.match(outcome, /being taken over by another start/);
      assert.equal(readFileSync(join(dataDir, `LOCK.takeover-${crashed}`), 'utf8').trim(), String(other), "the live start's claim is still there");
      assert.equal(readFileSync(join(dataDir, 'LOCK'), 'utf8').trim(), String(crashed), 'and the LOCK as it was');
    });
  });
});
