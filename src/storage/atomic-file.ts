/**
 * @module storage/atomic-file
 *
 * Writes a small file so that a crash or power cut at any moment leaves either the old file
 * (or none) or the whole new one, never a partial or empty one: the bytes go to a temporary
 * file beside it, which is flushed, renamed over the target (atomic within a directory), and
 * the directory is flushed so the rename itself survives a power cut.
 *
 * May import: node:fs, node:path.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export function writeFileAtomically(path: string, contents: string, mode = 0o600): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    const fd = openSync(temporary, 'w', mode);
    try {
      writeSync(fd, contents);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  const directory = openSync(dirname(path), 'r');
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
}
