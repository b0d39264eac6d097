/**
 * A small file system for the disk-full tests (test/e2e/disk-full, test/replication/
 * standby-disk-full): a tmpfs mounted for the test, unmounted and removed after it, and a filler
 * file that takes its space until only a given amount is left — something else filling the
 * disk, as an operator meets it. Mounting needs root: `smallDisk` is null otherwise (the test
 * skips, saying why).
 */
import type { TestContext } from 'node:test';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  /** Where it is mounted: data directories go under it. */
  dir: string;
  /** Fills it (a file `filler` in it) until `leftBytes` are free. */
  fill(leftBytes: number): void;
  /** Removes the filler: the space is back. */
  free(): void;
}

/** Why a disk-full test is skipped when `smallDisk` is null. */
export const NEEDS_ROOT = 'needs root to mount a tmpfs (the data directory on a small file system)';

/** A tmpfs of `sizeMb` MB mounted for the test `t` (null without root). */
export function smallDisk(t: TestContext, sizeMb: number): SmallDisk | null {
  if (process.getuid?.() !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), 'perp-disk-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  t.after(() => {
    try {
      execFileSync('umount', ['-l', dir]);
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  });
  const filler = join(dir, 'filler');
  return {
    dir,
    fill(leftBytes) {
      const free = () => {
        const s = statfsSync(dir);
        return s.bavail * s.bsize;
      };
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(256 * 1024, 7);
      try {
        while (free() > leftBytes + chunk.length) writeSync(fd, chunk);
      } finally {
        closeSync(fd);
      }
    },
    free: () => rmSync(filler, { force: true }),
  };
}
