/**
 * One exchange per data directory (storage/directory-lock.ts): a second exchange started on a
 * directory another one serves is refused before it opens anything — two writers on one journal
 * broke its hash chain — while a LOCK left by a killed exchange never stands in the way of its
 * restart, and a clean stop leaves none behind.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnServerProcess, startServerProcess, type ServerProcess } from './server-process.ts';

/** The exchange the first test restarted, still running: the one the next test kills (a process start fewer). */
let handedOn: ServerProcess | undefined;
after(() => handedOn?.stop());

test('a second exchange on a served data directory is refused with one line naming the process; the first serves on', async () => {
  const first = await startServerProcess();
  try {
    const lock = join(first.dataDir, 'LOCK');
    const holder = Number(readFileSync(lock, 'utf8'));
    const second = spawnServerProcess([], {}, first.dataDir);
    await assert.rejects(second.ready, /exited \(exit code 1\)/);
    assert.match(second.stderr(), new RegExp(`^Cannot start: the data directory .* is in use by process ${holder} \\(.*LOCK\\): two exchanges on one journal would corrupt it`, 'm'));
    assert.equal((await first.client.request('GET', '/markets')).status, 200, 'the first exchange still serves');
    assert.equal(Number(readFileSync(lock, 'utf8')), holder, 'the refused start left the LOCK alone');
  } finally {
    await first.stop(true);
  }
  assert.equal(existsSync(join(first.dataDir, 'LOCK')), false, 'a clean stop removes the LOCK');
  // Restarted after a clean stop: it serves (the next test kills it).
  handedOn = await startServerProcess([], {}, first.dataDir);
});

test('a LOCK left by a killed exchange does not stop its restart', async () => {
  const first = handedOn ?? (await startServerProcess());
  const lock = join(first.dataDir, 'LOCK');
  const killed = Number(readFileSync(lock, 'utf8'));
  await first.kill('SIGKILL');
  assert.equal(Number(readFileSync(lock, 'utf8')), killed, 'kill -9 leaves the LOCK behind');
  const restarted = await startServerProcess([], {}, first.dataDir);
  try {
    assert.equal((await restarted.client.request('GET', '/markets')).status, 200);
    assert.notEqual(Number(readFileSync(lock, 'utf8')), killed, 'taken over by the restart');
  } finally {
    await restarted.stop();
  }
});
