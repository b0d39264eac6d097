import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import type { DatabaseOptions } from 'lmdb';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Journal } from '../../src/journal/journal.ts';
import { LmdbJournalStorage, openEnvironment, seqKeyEncoder } from '../../src/journal/lmdb-storage.ts';
import { Snapshots, encodeSnapshotRecord, snapshotFileName } from '../../src/journal/snapshots.ts';
import { RecordKind } from '../../src/transport/layout.ts';
import { CapturingLogger, payloadFor, readAll, tempDir } from './fixtures/journal-fixtures.ts';
import { bundleOf, nodeArgsFor } from '../e2e/processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REPLAY_MODULE = bundleOf('test/journal/fixtures/count-replay.ts');

function cli(...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [...nodeArgsFor('src/journal/cli.ts'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, out: run.stdout + run.stderr };
}

test('inspect, verify (with a replay hook) and copy work on a journal with a snapshot', async () => {
  const dir = tempDir('journal-cli');
  try {
    const source = join(dir.path, 'source');
    const storage = LmdbJournalStorage.open(source);
    const journal = await Journal.open(storage, { logger: new CapturingLogger() });
    for (let n = 1; n <= 30; n++) journal.append(n % 3 === 0 ? RecordKind.Fill : RecordKind.Place, payloadFor(n));
    await journal.durable(30);
    // The fixture replay's hash is "count:<records applied>": a snapshot at 20 must say count:20.
    await new Snapshots(join(dir.path, 'snapshots')).save(20, 'count:20', Uint8Array.of(1));
    await journal.close();

    const inspect = cli('inspect', '--data-dir', source);
    assert.equal(inspect.status, 0, inspect.out);
    assert.match(inspect.out, /last seq\s+30/);
    assert.match(inspect.out, /Place\s+20/);
    assert.match(inspect.out, /Fill\s+10/);
    assert.match(inspect.out, /snapshots\s+20/);

    const verify = cli('verify', '--data-dir', source, '--replay', REPLAY_MODULE);
    assert.equal(verify.status, 0, verify.out);
    assert.match(verify.out, /verified 30 records/);
    assert.match(verify.out, /final state hash count:30; snapshots matched 1, mismatched 0/);
    assert.doesNotMatch(verify.out, /invariants/, 'checked only when asked');

    // --check-invariants names the first record after which the replayed state broke one.
    const checked = cli('verify', '--data-dir', source, '--replay', REPLAY_MODULE, '--check-invariants');
    assert.equal(checked.status, 1, checked.out);
    assert.match(checked.out, /invariants: BROKEN after seq 17 \(Place\): count 17 is past 16/);
    const alone = cli('verify', '--data-dir', source, '--check-invariants');
    assert.equal(alone.status, 2, alone.out);
    assert.match(alone.out, /--check-invariants needs --replay MODULE/);

    const copyDir = join(dir.path, 'copy');
    const copy = cli('copy', '--data-dir', source, '--to', copyDir, '--until', '25');
    assert.equal(copy.status, 0, copy.out);
    // The copy is a data directory the exchange starts from: its journal in copy/journal.
    const copied = await Journal.open(LmdbJournalStorage.open(join(copyDir, 'journal')), { logger: new CapturingLogger() });
    assert.equal(copied.lastSeq(), 25);
    assert.deepEqual(readAll(copied)[24][2], payloadFor(25));
    await copied.close();
    // ... with its snapshots as files of copy/snapshots.
    assert.deepEqual(readdirSync(join(copyDir, 'snapshots')), [snapshotFileName(20)]);

    // A snapshot whose hash the replay does not reproduce fails verify; one an older build left
    // in the journal's LMDB environment (database `snapshots`) is read as well, and not moved.
    const env = openEnvironment(source);
    const legacy = env.openDB<Uint8Array, number>('snapshots', { keyEncoder: seqKeyEncoder, encoding: 'binary' } as DatabaseOptions);
    await legacy.put(10, encodeSnapshotRecord(10, 'count:999', Uint8Array.of(1)));
    await env.close();
    const listed = cli('inspect', '--data-dir', source);
    assert.match(listed.out, /snapshots\s+10, 20/);
    const mismatch = cli('verify', '--data-dir', source, '--replay', REPLAY_MODULE);
    assert.equal(mismatch.status, 1);
    assert.match(mismatch.out, /snapshots matched 1, mismatched 1/);
    assert.match(mismatch.out, /MISMATCH at seq 10/);
    assert.deepEqual(readdirSync(join(dir.path, 'snapshots')), [snapshotFileName(20)], 'a read-only tool moves nothing');
  } finally {
    dir.remove();
  }
});
