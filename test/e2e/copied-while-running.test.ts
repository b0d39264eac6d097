/**
 * A data directory copied (`cp -r`) while its exchange was writing, then started — a backup
 * taken the easy way. `cp` reads an LMDB file front to back: the header pages (which name the
 * last committed transaction and the root of its trees) first, the pages after them later, by
 * when the writer has committed more transactions and reused pages that header's trees still
 * point at. Such a copy is modelled exactly here: the file as the exchange left it after a
 * second phase of trading, with the two header pages it had after the first.
 *
 * Before the start walked the trees against the header (journal/lmdb-file), lmdb was handed
 * the file as it was: the start died with SIGSEGV and no word, or with an lmdb stack trace
 * (`MDB_PROBLEM: Unexpected problem - txn should abort: mdb_page_touch no parent`,
 * `MDB_PAGE_NOTFOUND`). Now a journal copied so is refused by name (exit 1, no stack: it holds
 * acknowledged writes and is not repaired), and a history copied so is rebuilt from the journal.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, cpSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServerProcess, startServerProcess } from './server-process.ts';
import { assertHistoryMatchesJournal } from './history-check.ts';
import { crossingLoad, loadAccounts } from './crossing-load.ts';
import { seeded } from '../../bench/seeded.ts';

const work = mkdtempSync(join(tmpdir(), 'perp-copied-'));
const source = join(work, 'source');
/** The first two pages (LMDB's meta pages) of each environment's file after the first phase. */
const firstHeaders = new Map<string, Buffer>();
const PAGE = 4096;

function headerOf(file: string): Buffer {
  const fd = openSync(file, 'r');
  const bytes = Buffer.alloc(2 * PAGE);
  readSync(fd, bytes, 0, bytes.length, 0);
  closeSync(fd);
  return bytes;
}

before(async () => {
  const server = await startServerProcess([], { SNAPSHOT_INTERVAL_MS: '0' }, source);
  const accounts = await loadAccounts(server.client, 4);
  const rand = seeded(310_777);
  let orders = 0;
  await crossingLoad(server.client, accounts, 4, rand, () => orders >= 1_000, () => orders++);
  await server.stop(true);
  for (const env of ['journal', 'history']) firstHeaders.set(env, headerOf(join(source, env, 'data.mdb')));
  // Then thousands of transactions, each freeing pages later ones reuse (in two processes: a
  // reader a process keeps open holds back the reuse of what was freed after it began).
  for (let phase = 0; phase < 2; phase++) {
    const again = await startServerProcess([], { SNAPSHOT_INTERVAL_MS: '100' }, source);
    for (const a of accounts) {
      a.trader.ex = again.client;
      await a.trader.login();
    }
    orders = 0;
    await crossingLoad(again.client, accounts, 4, rand, () => orders >= 2_000, () => orders++);
    await again.stop(true);
  }
});

after(() => rmSync(work, { recursive: true, force: true }));

/** A copy of the source whose `env` file has the header pages of the first phase: what `cp` reads while the exchange writes. */
function copiedWhileRunning(name: string, env: string): string {
  const dir = join(work, name);
  cpSync(source, dir, { recursive: true });
  const fd = openSync(join(dir, env, 'data.mdb'), 'r+');
  writeSync(fd, firstHeaders.get(env)!, 0, 2 * PAGE, 0);
  closeSync(fd);
  return dir;
}

test('a journal copied while the exchange wrote it is refused by name, not a SIGSEGV or an lmdb stack trace', async () => {
  const dir = copiedWhileRunning('journal-copied', 'journal');
  const starting = spawnServerProcess([], {}, dir);
  const outcome = await starting.ready.then(
    async (server) => {
      await server.kill('SIGKILL');
      return 'served';
    },
    (error: Error) => error.message,
  );
  assert.notEqual(outcome, 'served', 'the server served a journal whose pages disagree with its header');
  assert.match(outcome, /server exited \(exit code 1\)/, `not a clean refusal: ${outcome}`);
  assert.match(outcome, new RegExp(`${join(dir, 'journal', 'data.mdb').replaceAll('/', '\\/')} is damaged: its pages disagree with its header`));
  assert.match(outcome, /copy a running exchange with `npm run journal -- copy`/);
  assert.doesNotMatch(outcome, /\n\s+at /, 'a stack trace instead of a report');
});

test('a history copied while the exchange wrote it is rebuilt from the journal', async () => {
  const dir = copiedWhileRunning('history-copied', 'history');
  const server = await startServerProcess([], {}, dir);
  try {
    assert.ok(server.errors.some((e) => /HISTORY REBUILT: .*history\/data\.mdb is damaged: its pages disagree with its header/.test(e.msg)), JSON.stringify(server.errors));
    const state = (await server.client.operator('GET', '/operator/state-hash')).json();
    assert.equal(state.problem, null);
  } finally {
    await server.stop(true);
  }
  await assertHistoryMatchesJournal(dir);
});
