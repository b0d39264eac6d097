import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseOptions, RootDatabase } from 'lmdb';
import { openEnvironment, seqKeyEncoder } from '../../src/journal/lmdb-storage.ts';
import { Snapshots, encodeSnapshotRecord, snapshotFileName, snapshotsDirectoryBeside } from '../../src/journal/snapshots.ts';
import { crc32c } from '../../src/journal/checksum.ts';
import { CapturingLogger, tempDir } from './fixtures/journal-fixtures.ts';

const STATE_AT_100 = Uint8Array.of(1, 0, 0);
const STATE_AT_200 = Uint8Array.of(2, 0, 0, 0);
const STATE_AT_300 = Uint8Array.of(3);

/** The database an older build kept snapshots in: `snapshots` of the journal's environment. */
function legacyDatabase(env: RootDatabase) {
  return env.openDB<Uint8Array, number>('snapshots', { keyEncoder: seqKeyEncoder, encoding: 'binary' } as DatabaseOptions);
}

test('snapshot files: a name per seq in seq order, beside the journal directory', () => {
  assert.equal(snapshotFileName(41_724), '00000000000000041724.snapshot');
  assert.ok(snapshotFileName(9) < snapshotFileName(10));
  assert.equal(snapshotsDirectoryBeside('/data/journal'), '/data/snapshots');
});

test('the newest valid snapshot loads; a corrupted newest one falls back to the older; prune keeps the newest', async () => {
  const dir = tempDir('snapshots');
  try {
    const logger = new CapturingLogger();
    const snapshots = new Snapshots(join(dir.path, 'snapshots'), { logger });
    assert.equal(snapshots.loadLatestValid(), undefined, 'no directory yet: no snapshot');
    assert.deepEqual(snapshots.list(), []);
    await snapshots.save(100, 'hash-100', STATE_AT_100);
    await snapshots.save(200, 'hash-200', STATE_AT_200);
    await snapshots.save(300, 'hash-300', STATE_AT_300);
    assert.deepEqual(readdirSync(snapshots.dir), [100, 200, 300].map(snapshotFileName), 'one file each, no temporary left');
    assert.deepEqual(snapshots.loadLatestValid(), { seq: 300, stateHash: 'hash-300', bytes: STATE_AT_300 });

    // Flip one state byte of the newest snapshot behind the class's back.
    const file300 = join(snapshots.dir, snapshotFileName(300));
    const raw = readFileSync(file300);
    raw[raw.length - 1] ^= 0x40;
    writeFileSync(file300, raw);
    const loaded = snapshots.loadLatestValid();
    assert.deepEqual(loaded, { seq: 200, stateHash: 'hash-200', bytes: STATE_AT_200 });
    assert.match(logger.errors[0].message, /seq 300 fails verification/);
    assert.deepEqual([...snapshots.validNewestFirst()].map((s) => s.seq), [200, 100]);
    assert.deepEqual(snapshots.list().map((s) => [s.seq, s.valid]), [[100, true], [200, true], [300, false]]);

    assert.equal(await snapshots.prune(1), 1); // 100 goes; 300 (invalid, newer) and 200 stay
    assert.deepEqual(snapshots.list().map((s) => s.seq), [200, 300]);
  } finally {
    dir.remove();
  }
});

test('a torn (truncated) file and a file under another seq\'s name are skipped for an older valid one', async () => {
  const dir = tempDir('snapshots-torn');
  try {
    const snapshots = new Snapshots(join(dir.path, 'snapshots'), { logger: new CapturingLogger() });
    await snapshots.save(100, 'hash-100', STATE_AT_100);
    await snapshots.save(200, 'hash-200', STATE_AT_200);
    await snapshots.save(300, 'hash-300', STATE_AT_300);
    truncateSync(join(snapshots.dir, snapshotFileName(300)), 20); // shorter than its header
    truncateSync(join(snapshots.dir, snapshotFileName(200)), 27); // header whole, state cut
    assert.deepEqual([...snapshots.validNewestFirst()].map((s) => s.seq), [100]);
    // A whole record under the wrong name (a seq it does not reflect) is no snapshot of that seq.
    writeFileSync(join(snapshots.dir, snapshotFileName(400)), encodeSnapshotRecord(100, 'hash-100', STATE_AT_100));
    assert.deepEqual(snapshots.list().map((s) => [s.seq, s.valid]), [[100, true], [200, false], [300, false], [400, false]]);
    assert.equal(snapshots.loadLatestValid()?.seq, 100);
    // prune(1) keeps every newer invalid one and the newest valid; nothing older is left to go.
    assert.equal(await snapshots.prune(1), 0);
  } finally {
    dir.remove();
  }
});

test('a temporary file a killed save left is never read, and the next prune (or removeLeftovers) removes it', async () => {
  const dir = tempDir('snapshots-temp');
  try {
    const snapshots = new Snapshots(join(dir.path, 'snapshots'), { logger: new CapturingLogger() });
    await snapshots.save(100, 'hash-100', STATE_AT_100);
    // A whole record under the temporary name (killed after the write, before the rename), and a torn one.
    writeFileSync(join(snapshots.dir, `${snapshotFileName(200)}.tmp`), encodeSnapshotRecord(200, 'hash-200', STATE_AT_200));
    writeFileSync(join(snapshots.dir, `${snapshotFileName(300)}.tmp`), encodeSnapshotRecord(300, 'hash-300', STATE_AT_300).subarray(0, 10));
    assert.deepEqual(snapshots.list().map((s) => s.seq), [100]);
    assert.deepEqual([...snapshots.validNewestFirst()].map((s) => s.seq), [100]);
    assert.equal(await snapshots.prune(3), 0);
    assert.deepEqual(readdirSync(snapshots.dir), [snapshotFileName(100)]);

    writeFileSync(join(snapshots.dir, `${snapshotFileName(400)}.tmp`), Uint8Array.of(1));
    assert.equal(await snapshots.removeLeftovers(), 1);
    // A save over a leftover of its own name replaces it.
    writeFileSync(join(snapshots.dir, `${snapshotFileName(500)}.tmp`), Uint8Array.of(1, 2, 3));
    await snapshots.save(500, 'hash-500', STATE_AT_300);
    assert.deepEqual(readdirSync(snapshots.dir), [100, 500].map(snapshotFileName));
    assert.equal(snapshots.loadLatestValid()?.seq, 500);
  } finally {
    dir.remove();
  }
});

test('dropAfter deletes the snapshots taken after a seq', async () => {
  const dir = tempDir('snapshots-drop');
  try {
    const snapshots = new Snapshots(join(dir.path, 'snapshots'), { logger: new CapturingLogger() });
    for (const seq of [100, 200, 300]) await snapshots.save(seq, `hash-${seq}`, STATE_AT_100);
    assert.equal(await snapshots.dropAfter(300), 0);
    assert.equal(await snapshots.dropAfter(150), 2);
    assert.deepEqual(snapshots.list().map((s) => s.seq), [100]);
    assert.equal(await new Snapshots(join(dir.path, 'none')).dropAfter(0), 0, 'no directory: nothing to drop');
  } finally {
    dir.remove();
  }
});

test('a snapshot of an earlier format (another state-hash recipe) is skipped: the older valid one, or the journal, is used', async () => {
  const dir = tempDir('snapshots-format');
  try {
    const snapshots = new Snapshots(join(dir.path, 'snapshots'), { logger: new CapturingLogger() });
    await snapshots.save(100, 'hash-100', STATE_AT_100);
    await snapshots.save(200, 'hash-200', STATE_AT_200);
    // Rewrite the newest as format 1 with a checksum that matches: only its version is wrong.
    const file200 = join(snapshots.dir, snapshotFileName(200));
    const raw = Uint8Array.from(readFileSync(file200));
    raw[4] = 1;
    new DataView(raw.buffer).setUint32(0, crc32c(raw, 4), true);
    writeFileSync(file200, raw);
    assert.deepEqual([...snapshots.validNewestFirst()].map((s) => s.seq), [100]);
    assert.deepEqual(snapshots.list().map((s) => [s.seq, s.valid]), [[100, true], [200, false]]);
  } finally {
    dir.remove();
  }
});

test('legacy snapshots in the journal\'s LMDB environment are read beside the files, and migrateLegacy moves them into files', async () => {
  const dir = tempDir('snapshots-legacy');
  try {
    const journalDir = join(dir.path, 'journal');
    const env = openEnvironment(journalDir);
    const legacy = legacyDatabase(env);
    await legacy.put(100, encodeSnapshotRecord(100, 'hash-100', STATE_AT_100));
    await legacy.put(200, encodeSnapshotRecord(200, 'hash-200', STATE_AT_200));
    const damaged = encodeSnapshotRecord(300, 'hash-300', STATE_AT_300);
    damaged[damaged.length - 1] ^= 1;
    await legacy.put(300, damaged);
    await legacy.flushed;

    const logger = new CapturingLogger();
    const snapshots = new Snapshots(snapshotsDirectoryBeside(journalDir), { logger, legacy: env });
    // A file already moved (a migration killed before it cleared the database) wins over its legacy copy.
    await new Snapshots(snapshots.dir).save(200, 'hash-200', STATE_AT_200);
    assert.deepEqual(snapshots.list().map((s) => [s.seq, s.valid]), [[100, true], [200, true], [300, false]]);
    assert.deepEqual([...snapshots.validNewestFirst()].map((s) => s.seq), [200, 100]);
    await assert.rejects(snapshots.prune(1), /legacy snapshots/, 'nothing is deleted before they are moved');

    assert.equal(await snapshots.migrateLegacy(), 3);
    assert.deepEqual(readdirSync(snapshots.dir), [100, 200, 300].map(snapshotFileName), 'moved verbatim, the damaged one too');
    assert.deepEqual([...legacyDatabase(env).getKeys()], [], 'the LMDB database is empty');
    assert.deepEqual(snapshots.list().map((s) => [s.seq, s.valid]), [[100, true], [200, true], [300, false]]);
    assert.deepEqual(snapshots.loadLatestValid(), { seq: 200, stateHash: 'hash-200', bytes: STATE_AT_200 });
    assert.equal(await snapshots.migrateLegacy(), 0, 'done once');
    assert.equal(await snapshots.prune(1), 1);
    assert.deepEqual(snapshots.list().map((s) => s.seq), [200, 300]);
    await env.close();

    // A data directory with no legacy database gets none.
    const fresh = join(dir.path, 'fresh', 'journal');
    const freshEnv = openEnvironment(fresh);
    assert.equal(await new Snapshots(snapshotsDirectoryBeside(fresh), { legacy: freshEnv }).migrateLegacy(), 0);
    assert.equal(freshEnv.openDB('snapshots', { create: false } as DatabaseOptions), undefined, 'no database created');
    assert.equal(existsSync(snapshotsDirectoryBeside(fresh)), false);
    await freshEnv.close();
  } finally {
    dir.remove();
  }
});

test('an entry that is not a usable snapshot file (a directory, a FIFO, a misnamed file, a *.tmp directory) is logged once and skipped: reads, prune and cleanup go on', async () => {
  const dir = tempDir('snapshots');
  try {
    const logger = new CapturingLogger();
    const snapshots = new Snapshots(join(dir.path, 'snapshots'), { logger });
    await snapshots.save(100, 'hash-100', STATE_AT_100);
    await snapshots.save(200, 'hash-200', STATE_AT_200);
    // Newer than both, under snapshot names: a directory and a FIFO (a read of a FIFO would block for ever).
    mkdirSync(join(snapshots.dir, snapshotFileName(300)));
    execFileSync('mkfifo', [join(snapshots.dir, snapshotFileName(400))]);
    mkdirSync(join(snapshots.dir, 'junk.tmp'));
    writeFileSync(join(snapshots.dir, '41724.snapshot'), encodeSnapshotRecord(41_724, 'hash', STATE_AT_300));

    assert.deepEqual(snapshots.loadLatestValid(), { seq: 200, stateHash: 'hash-200', bytes: STATE_AT_200 });
    assert.deepEqual([...snapshots.validNewestFirst()].map((s) => s.seq), [200, 100]);
    assert.equal(await snapshots.removeLeftovers(), 0, 'a *.tmp directory is not removed, and no error');
    await snapshots.save(500, 'hash-500', STATE_AT_300);
    await snapshots.save(600, 'hash-600', STATE_AT_300);
    await snapshots.prune(2);
    const left = readdirSync(snapshots.dir).sort();
    assert.ok(left.includes(snapshotFileName(500)) && left.includes(snapshotFileName(600)), 'the newest two valid kept');
    assert.ok(!left.includes(snapshotFileName(100)) && !left.includes(snapshotFileName(200)), `older valid ones pruned despite the unusable entries: ${left}`);
    const said = logger.errors.map((e) => e.message).join('\n');
    for (const what of [`${snapshotFileName(300)} is not a regular file`, `${snapshotFileName(400)} is not a regular file`, 'junk.tmp is not a regular file', '41724.snapshot is not named as a snapshot']) assert.ok(said.includes(what), `not logged: ${what}\n${said}`);
    assert.equal(logger.errors.filter((e) => e.message.includes(`${snapshotFileName(300)} is not a regular file`)).length, 1, 'each entry is logged once');
  } finally {
    dir.remove();
  }
});
