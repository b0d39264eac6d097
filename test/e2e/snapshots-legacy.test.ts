/**
 * A data directory whose snapshots an older build kept in the journal's LMDB environment
 * (database `snapshots`, key the seq, value the snapshot record) starts on this one: the start
 * begins from the newest of those snapshots, moves them into files of `DIR/snapshots` (written
 * durably, then the database cleared), and reads answer as before. A start killed after
 * writing the files and before clearing the database is a start with both: the files win (a
 * file under its final name was written whole) and the database is cleared.
 * The old layout is made here from the new one (the same records under the old keys), so the
 * test needs no old build.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseOptions, RootDatabase } from 'lmdb';
import { fundedTraders, startTestExchange } from './harness.ts';
import { openEnvironment, seqKeyEncoder } from '../../src/journal/lmdb-storage.ts';
import { Snapshots, snapshotFileName } from '../../src/journal/snapshots.ts';
import { openDataDirectory } from '../../src/storage/data-directory.ts';

const work = mkdtempSync(join(tmpdir(), 'perp-snapshots-legacy-'));
after(() => rmSync(work, { recursive: true, force: true }));

const quiet = { info: () => {}, error: () => {} };

function legacyDatabase(env: RootDatabase) {
  return env.openDB<Uint8Array, number>('snapshots', { keyEncoder: seqKeyEncoder, encoding: 'binary' } as DatabaseOptions);
}

/** Moves the snapshot files of `dataDir` into its journal's LMDB environment, as an older build kept them; `keepFiles` leaves the files too. Returns their seqs. */
async function toLegacy(dataDir: string, keepFiles = false): Promise<number[]> {
  const dir = join(dataDir, 'snapshots');
  const seqs = new Snapshots(dir).list().map((s) => s.seq);
  const env = openEnvironment(join(dataDir, 'journal'));
  const db = legacyDatabase(env);
  for (const seq of seqs) await db.put(seq, readFileSync(join(dir, snapshotFileName(seq))));
  await db.flushed;
  await env.close();
  if (!keepFiles) rmSync(dir, { recursive: true });
  return seqs;
}

/** The seqs left in the legacy database of `dataDir`'s journal. */
async function legacyKeys(dataDir: string): Promise<number[]> {
  const env = openEnvironment(join(dataDir, 'journal'), { readOnly: true });
  try {
    const db = env.openDB<Uint8Array, number>('snapshots', { keyEncoder: seqKeyEncoder, encoding: 'binary' } as DatabaseOptions);
    return db === undefined ? [] : [...db.getKeys()];
  } finally {
    await env.close();
  }
}

test('snapshots in the journal\'s LMDB environment: the start begins from the newest, moves them into files, and empties the database', async () => {
  const source = join(work, 'source');
  const ex = await startTestExchange({ dataDir: source });
  const [maker, taker] = await fundedTraders(ex, 2, '100000');
  await maker.place({ price: '95000', quantity: '0.5', clientId: 'rests' });
  assert.equal((await ex.operator('POST', '/operator/snapshot')).status, 200);
  await taker.place({ price: '95000', quantity: '-0.2' });
  const path = `/account/orders?account=${maker.address}&subaccountIndex=0`;
  const before = await (await maker.get(path)).json();
  await ex.stop(); // and its shutdown snapshot: two snapshots

  const dataDir = join(work, 'legacy');
  cpSync(source, dataDir, { recursive: true });
  const seqs = await toLegacy(dataDir);
  assert.ok(seqs.length >= 2, `two snapshots at least, got ${seqs.join(', ')}`);
  assert.equal(existsSync(join(dataDir, 'snapshots')), false);
  assert.deepEqual(await legacyKeys(dataDir), seqs);

  const again = await startTestExchange({ dataDir });
  try {
    assert.equal(again.exchange.recovery.snapshotSeq, seqs.at(-1), 'started from the newest legacy snapshot');
    assert.equal(again.exchange.recovery.commands, 0, 'nothing replayed after it');
    maker.ex = again;
    await maker.login();
    assert.deepEqual(await (await maker.get(path)).json(), before);
  } finally {
    await again.stop({ snapshot: false });
  }
  assert.deepEqual(await legacyKeys(dataDir), [], 'the LMDB database is empty');
  assert.deepEqual(readdirSync(join(dataDir, 'snapshots')), seqs.map(snapshotFileName), 'the snapshots are files');
  assert.deepEqual(new Snapshots(join(dataDir, 'snapshots')).list().map((s) => s.valid), seqs.map(() => true));

  // A move killed after the files were written, before the database was cleared: both hold
  // them (one file damaged meanwhile, to see which is read). The open reads the file (the older
  // valid snapshot then), and clears the database.
  const killed = join(work, 'killed');
  cpSync(source, killed, { recursive: true });
  await toLegacy(killed, true);
  const newestFile = join(killed, 'snapshots', snapshotFileName(seqs.at(-1)!));
  const bytes = readFileSync(newestFile);
  bytes[bytes.length - 1] ^= 1;
  writeFileSync(newestFile, bytes);
  const opened = await openDataDirectory(killed, quiet);
  try {
    assert.deepEqual([...opened.snapshots.validNewestFirst()].map((s) => s.seq), seqs.slice(0, -1).reverse(), 'the damaged file is read, not its legacy copy');
  } finally {
    await opened.journal.close();
    await opened.historyEnv.close();
  }
  assert.deepEqual(await legacyKeys(killed), []);
  assert.deepEqual(readdirSync(join(killed, 'snapshots')), seqs.map(snapshotFileName));

  // A move that fails (here a directory where its temporary file goes; a full disk in life): the
  // open is not refused — it logs, reads the legacy snapshots where they are, and leaves them for
  // the next start to move.
  const failing = join(work, 'failing');
  cpSync(source, failing, { recursive: true });
  await toLegacy(failing);
  mkdirSync(join(failing, 'snapshots', `${snapshotFileName(seqs[0])}.tmp`), { recursive: true });
  const logged: string[] = [];
  const reopened = await openDataDirectory(failing, { info: () => {}, error: (_fields, message) => logged.push(message) });
  try {
    assert.ok(logged.some((m) => m.startsWith('snapshots could not be moved')), logged.join('\n'));
    assert.equal([...reopened.snapshots.validNewestFirst()][0]?.seq, seqs.at(-1), 'the newest legacy snapshot is still the start point');
  } finally {
    await reopened.journal.close();
    await reopened.historyEnv.close();
  }
  assert.deepEqual(await legacyKeys(failing), seqs, 'left in LMDB for the next start');
});
