/** An LMDB environment in a fresh temporary directory for one test file, removed after. */
import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { HISTORY_DATABASE_COUNT, openHistoryDatabases, type HistoryDatabases } from '../../src/history/store.ts';
import { HistoryReader } from '../../src/history/reader.ts';
import { HistoryWriter } from '../../src/history/writer.ts';

export interface TempHistory {
  root: RootDatabase;
  dbs: HistoryDatabases;
  writer: HistoryWriter;
  reader: HistoryReader;
  /** Runs `fn` as one history batch (one write transaction), as the projections do per turn. */
  write(fn: (writer: HistoryWriter) => void): void;
}

export function openTempHistory(): TempHistory {
  const dir = mkdtempSync(join(tmpdir(), 'history-test-'));
  // The test env only needs durability within the run: skip fsync to keep the suite quick.
  const root = open({ path: dir, maxDbs: HISTORY_DATABASE_COUNT + 2, noSync: true });
  after(async () => {
    await root.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const dbs = openHistoryDatabases(root);
  const writer = new HistoryWriter(dbs);
  return { root, dbs, writer, reader: new HistoryReader(dbs), write: (fn) => writer.batch(fn) };
}
