/**
 * The journal tool takes the exchange's own DATA_DIR (or its journal directory), and a refusal
 * — a wrong directory, a copy onto an existing one, a copy of a damaged journal — is one line
 * and leaves no file behind (no lock file, no half copy).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Journal } from '../../src/journal/journal.ts';
import { LmdbJournalStorage } from '../../src/journal/lmdb-storage.ts';
import { RecordKind } from '../../src/transport/layout.ts';
import { CapturingLogger, payloadFor, tempDir } from './fixtures/journal-fixtures.ts';
import { nodeArgsFor } from '../e2e/processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The journal tool with `args`, until it exits (runs that do not depend on one another go side by side). */
function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...nodeArgsFor('src/journal/cli.ts'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
  });
}

/** Every path under `dir`, relative, sorted. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

/** A data directory laid out as the exchange lays it out: DATA_DIR/journal with `records` records. */
async function dataDirectory(path: string, records: number): Promise<void> {
  mkdirSync(join(path, 'history'), { recursive: true });
  const storage = LmdbJournalStorage.open(join(path, 'journal'));
  mkdirSync(join(path, 'snapshots')); // the exchange creates the snapshots directory at start
  const journal = await Journal.open(storage, { logger: new CapturingLogger() });
  for (let n = 1; n <= records; n++) journal.append(RecordKind.Place, payloadFor(n));
  await journal.durable(records);
  await journal.close();
}

test('inspect, verify and copy take the exchange\'s DATA_DIR as well as DATA_DIR/journal', async (t) => {
  const dir = tempDir('journal-cli-datadir');
  t.after(dir.remove);
  const data = join(dir.path, 'data');
  await dataDirectory(data, 12);
  const before = files(data);
  await Promise.all(
    [data, join(data, 'journal')].map(async (given) => {
      const [inspect, verify] = await Promise.all([cli('inspect', '--data-dir', given), cli('verify', '--data-dir', given)]);
      assert.equal(inspect.status, 0, inspect.stderr);
      assert.match(inspect.stdout, /last seq\s+12/);
      assert.equal(verify.status, 0, verify.stderr);
      assert.match(verify.stdout, /verified 12 records/);
    }),
  );
  assert.deepEqual(files(data), before, 'reading adds no file');

  const copy = await cli('copy', '--data-dir', data, '--to', join(dir.path, 'restored'), '--until', '10');
  assert.equal(copy.status, 0, copy.stderr);
  const restored = await cli('inspect', '--data-dir', join(dir.path, 'restored'));
  assert.match(restored.stdout, /last seq\s+10/, 'the copy is a data directory the tool (and the exchange) reads');
});

test('a refusal is one line, exit 2 for a wrong argument, and leaves no file behind', async (t) => {
  const dir = tempDir('journal-cli-refusal');
  t.after(dir.remove);
  const empty = join(dir.path, 'empty');
  mkdirSync(join(empty, 'history'), { recursive: true });

  const cases: Array<{ args: string[]; status: number; line: RegExp }> = [
    { args: ['inspect', '--data-dir', join(dir.path, 'missing')], status: 2, line: /^--data-dir: .*missing does not exist$/ },
    { args: ['verify', '--data-dir', empty], status: 2, line: /^--data-dir: no journal in .*empty: give the exchange's DATA_DIR/ },
    { args: ['inspect', '--data-dir', empty, '--from', 'x'], status: 2, line: /^--data-dir: no journal/ },
    { args: ['fix', '--data-dir', empty], status: 2, line: /^usage: npm run journal/ },
  ];
  const runs = await Promise.all(cases.map(({ args }) => cli(...args)));
  for (const [i, { args, status, line }] of cases.entries()) {
    const run = runs[i];
    assert.equal(run.status, status, `${args.join(' ')}: ${run.stderr}`);
    const lines = run.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, `one line: ${run.stderr}`);
    assert.match(lines[0], line);
  }
  assert.deepEqual(files(empty), ['history'], 'no lock file, no journal created');
  assert.deepEqual(readdirSync(dir.path).sort(), ['empty']);

  // A copy onto an existing directory is refused before anything is written.
  const data = join(dir.path, 'data');
  await dataDirectory(data, 3);
  const onto = await cli('copy', '--data-dir', data, '--to', empty);
  assert.equal(onto.status, 2);
  assert.equal(onto.stderr.trim(), `--to: ${empty} already exists; copy needs a new data directory`);
  assert.deepEqual(files(empty), ['history']);
});

test('a copy that fails half-way (a damaged record) removes what it wrote', async (t) => {
  const dir = tempDir('journal-cli-halfcopy');
  t.after(dir.remove);
  const data = join(dir.path, 'data');
  mkdirSync(data);
  // One flush per record: one block each, so the damage sits after records the copy has written.
  const opened = LmdbJournalStorage.open(join(data, 'journal'));
  const journal = await Journal.open(opened, { logger: new CapturingLogger() });
  for (let n = 1; n <= 5; n++) await journal.durable(journal.append(RecordKind.Place, payloadFor(n)));
  await journal.close();
  const storage = LmdbJournalStorage.open(join(data, 'journal'));
  const [, second] = [...storage.blocks.getRange({ reverse: true, limit: 2 })];
  const bytes = new Uint8Array(second.value);
  bytes[bytes.length - 1] ^= 1;
  await storage.blocks.put(second.key, bytes);
  await storage.close();

  const target = join(dir.path, 'copy');
  const copy = await cli('copy', '--data-dir', data, '--to', target);
  assert.equal(copy.status, 1, copy.stderr);
  assert.match(copy.stderr, /journal corrupt at seq 4/);
  assert.equal(copy.stderr.trimEnd().split('\n').length, 1, copy.stderr);
  assert.deepEqual(readdirSync(dir.path), ['data'], 'the half copy is gone');
});
