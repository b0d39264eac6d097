import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openEnvironment } from '../../src/journal/lmdb-storage.ts';
import { Snapshots } from '../../src/journal/snapshots.ts';
import { crc32c } from '../../src/journal/checksum.ts';
import { CapturingLogger, tempDir } from './fixtures/journal-fixtures.ts';

const STATE_AT_100 = Uint8Array.of(1, 0, 0);
const STATE_AT_200 = Uint8Array.of(2, 0, 0, 0);
const STATE_AT_300 = Uint8Array.of(3);

test('the newest valid snapshot loads; a corrupted newest one falls back to the older; prune keeps the newest', async () => {
  const dir = tempDir('snapshots');
  try {
    const env = openEnvironment(dir.path);
    const logger = new CapturingLogger();
    const snapshots = new Snapshots(env, logger);
    assert.equal(snapshots.loadLatestValid(), undefined);
    await snapshots.save(100, 'hash-100', STATE_AT_100);
    await snapshots.save(200, 'hash-200', STATE_AT_200);
    await snapshots.save(300, 'hash-300', STATE_AT_300);
    assert.deepEqual(snapshots.loadLatestValid(), { seq: 300, stateHash: 'hash-300', bytes: STATE_AT_300 });

    // Flip one state byte of the newest snapshot behind the class's back.
    const raw = Uint8Array.from(snapshots.db.get(300)!);
    raw[raw.length - 1] ^= 0x40;
    await snapshots.db.put(300, raw);
    const loaded = snapshots.loadLatestValid();
    assert.deepEqual(loaded, { seq: 200, stateHash: 'hash-200', bytes: STATE_AT_200 });
    assert.match(logger.errors[0].message, /seq 300 fails verification/);
    assert.deepEqual(snapshots.list().map((s) => [s.seq, s.valid]), [[100, true], [200, true], [300, false]]);

    assert.equal(await snapshots.prune(1), 1); // 100 goes; 300 (invalid, newer) and 200 stay
    assert.deepEqual(snapshots.list().map((s) => s.seq), [200, 300]);
    await env.close();
  } finally {
    dir.remove();
  }
});

test('a snapshot of an earlier format (another state-hash recipe) is skipped: the older valid one, or the journal, is used', async () => {
  const dir = tempDir('snapshots-format');
  try {
    const env = openEnvironment(dir.path);
    const snapshots = new Snapshots(env, new CapturingLogger());
    await snapshots.save(100, 'hash-100', STATE_AT_100);
    await snapshots.save(200, 'hash-200', STATE_AT_200);
    // Rewrite the newest as format 1 with a checksum that matches: only its version is wrong.
    const raw = Uint8Array.from(snapshots.db.get(200)!);
    raw[4] = 1;
    new DataView(raw.buffer).setUint32(0, crc32c(raw, 4), true);
    await snapshots.db.put(200, raw);
    assert.deepEqual([...snapshots.validNewestFirst()].map((s) => s.seq), [100]);
    assert.deepEqual(snapshots.list().map((s) => [s.seq, s.valid]), [[100, true], [200, false]]);
    await env.close();
  } finally {
    dir.remove();
  }
});
