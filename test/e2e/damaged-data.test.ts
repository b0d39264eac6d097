/**
 * What the real server process does with a data directory that a crash, a disk or an operator
 * damaged. Each case copies one data directory (two phases of trading with a clean stop after
 * each), damages the copy, and starts `src/main.ts` on it:
 *  - refused, exit status 1, a message naming the file and no SIGBUS: a journal file truncated
 *    (by 64 KB, to half, to 8 KB); an empty journal beside history; the journal's last record
 *    damaged after a clean stop (it was acknowledged: never dropped as a torn write); a journal
 *    that lost records a snapshot covers;
 *  - repaired and served: a truncated history file, and history ahead of the journal (a power
 *    cut lost journal commits history kept), are rebuilt from the journal — nothing the journal
 *    lacks is shown; an empty token secret file is replaced.
 * The journal tool prints the same refusals, without a stack.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestExchange, Trader, fundedTraders } from './harness.ts';
import { startServerProcess } from './server-process.ts';
import { assertHistoryMatchesJournal } from './history-check.ts';
import { LmdbJournalStorage } from '../../src/journal/lmdb-storage.ts';
import { Snapshots } from '../../src/journal/snapshots.ts';
import { nodeArgsFor } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'perp-damaged-'));
const source = join(work, 'source');
let copies = 0;
/** The seq the first phase stopped at, and the orders of each phase. */
let firstStop = 0;
let firstOrder = '';
let secondOrder = '';
let token = '';
let trader: Trader;

before(async () => {
  const first = await startTestExchange({ dataDir: source });
  const [funded, other] = await fundedTraders(first, 2, '100000');
  trader = funded;
  firstOrder = (await trader.place({ price: '95000', quantity: '0.5', clientId: 'first' })).json()[0].orderId;
  await other.place({ price: '95000', quantity: '-0.1' });
  firstStop = (await first.operator('GET', '/operator/state-hash')).json().lastSeq;
  await first.stop();
  const second = await startTestExchange({ dataDir: source });
  trader.ex = second;
  secondOrder = (await trader.place({ price: '94000', quantity: '0.2', clientId: 'second' })).json()[0].orderId;
  token = trader.auth().authorization;
  await second.stop();
});

after(() => rmSync(work, { recursive: true, force: true }));

/** A fresh copy of the source data directory. */
function copy(): string {
  const dir = join(work, `case-${++copies}`);
  cpSync(source, dir, { recursive: true });
  return dir;
}

/** Starts the server process on `dir` and expects it to refuse: exit status 1 with a message matching `message`. */
async function assertRefused(dir: string, message: RegExp): Promise<string> {
  let failure: Error | undefined;
  try {
    const server = await startServerProcess([], {}, dir);
    await server.kill('SIGKILL');
  } catch (error) {
    failure = error as Error;
  }
  assert.ok(failure, 'the server started on a damaged data directory');
  assert.match(failure.message, /server exited \(exit code 1\)/, `not a clean refusal: ${failure.message}`);
  assert.match(failure.message, message);
  assert.doesNotMatch(failure.message, /\n\s+at /, 'a stack trace instead of a report');
  return failure.message;
}

function journalTool(...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [...nodeArgsFor('src/journal/cli.ts'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, out: run.stdout + run.stderr };
}

for (const [name, size] of [
  // 64 KB, or its last quarter when the file is smaller (without the snapshots, which are files
  // of their own now, this test's journal file is a few dozen KB).
  ['shortened by 64 KB', (bytes: number) => bytes - Math.min(65536, Math.floor(bytes / 4))],
  ['cut to half', (bytes: number) => Math.floor(bytes / 2)],
  ['cut to 8 KB', () => 8192],
] as const) {
  test(`a journal file ${name} is refused by name, not a SIGBUS`, async () => {
    const dir = copy();
    const file = join(dir, 'journal', 'data.mdb');
    truncateSync(file, Math.max(0, size(statSync(file).size)));
    await assertRefused(dir, new RegExp(`${file.replaceAll('/', '\\/')} is damaged: .*(truncated|shorter than its two header pages)`));
    const tool = journalTool('verify', '--data-dir', join(dir, 'journal'));
    assert.equal(tool.status, 1, tool.out);
    assert.match(tool.out, /data\.mdb is damaged/);
    assert.doesNotMatch(tool.out, /\n\s+at /, 'the journal tool printed a stack');
  });
}

test('an empty journal beside history that holds records is refused, not a new exchange', async () => {
  const dir = copy();
  truncateSync(join(dir, 'journal', 'data.mdb'), 0);
  await assertRefused(dir, /the journal file is empty .*history.*shows this exchange has run/);
  assert.equal(statSync(join(dir, 'journal', 'data.mdb')).size, 0, 'nothing was changed');
});

test('a damaged last journal record after a clean stop is refused: it was acknowledged, never dropped as torn', async () => {
  const dir = copy();
  const storage = LmdbJournalStorage.open(join(dir, 'journal'));
  const lastSeq = storage.lastKey();
  for (const { key, value } of storage.blocks.getRange({ reverse: true, limit: 1 })) {
    const damaged = new Uint8Array(value);
    damaged[damaged.length - 1] ^= 1;
    await storage.blocks.put(key, damaged);
  }
  await storage.close();
  await assertRefused(dir, new RegExp(`journal corrupt at seq ${lastSeq}: checksum mismatch`));
  const reopened = LmdbJournalStorage.open(join(dir, 'journal'), { readOnly: true });
  assert.equal(reopened.lastKey(), lastSeq, 'the record is still there');
  await reopened.close();
});

/** Drops the journal's records after `seq` (what a power cut losing commits leaves), and the snapshots after it unless `keepSnapshots`. */
async function loseJournalAfter(dir: string, seq: number, keepSnapshots = false): Promise<void> {
  const storage = LmdbJournalStorage.open(join(dir, 'journal'));
  await storage.truncateAfter(seq);
  if (!keepSnapshots) await new Snapshots(join(dir, 'snapshots')).dropAfter(seq);
  await storage.close();
}

test('a journal missing records its newest snapshot covers is refused', async () => {
  const dir = copy();
  await loseJournalAfter(dir, firstStop, true);
  await assertRefused(dir, new RegExp(`ends at seq ${firstStop}, but its newest snapshot was taken at seq \\d+`));
});

test('history ahead of the journal is rebuilt from it: nothing the journal lost is shown', async () => {
  const dir = copy();
  await loseJournalAfter(dir, firstStop);
  await assert.rejects(assertHistoryMatchesJournal(dir), /history has projected the journal up to seq \d+, but the journal ends at seq/, 'the check sees history ahead');
  const server = await startServerProcess([], {}, dir);
  try {
    const get = (orderId: string) => server.client.request('GET', `/account/order?orderId=${orderId}`, undefined, { authorization: token });
    assert.equal((await get(firstOrder)).status, 200, 'an order the journal holds is there');
    const lost = await get(secondOrder);
    assert.equal(lost.status, 404, `an order the journal lost is still shown by history: ${lost.text}`);
    assert.ok(server.errors.some((e) => /HISTORY REBUILT: history has projected the journal up to seq/.test(e.msg)), 'the rebuild is logged');
  } finally {
    await server.stop(true);
  }
  await assertHistoryMatchesJournal(dir);
});

test('a truncated history file is rebuilt from the journal, and an empty token secret is replaced', async () => {
  const dir = copy();
  const history = join(dir, 'history', 'data.mdb');
  truncateSync(history, Math.floor(statSync(history).size / 2));
  writeFileSync(join(dir, 'jwt-secret'), '');
  const server = await startServerProcess([], {}, dir);
  try {
    assert.ok(server.errors.some((e) => /HISTORY REBUILT: .*history\/data\.mdb is damaged/.test(e.msg)), 'the rebuild is logged');
    assert.ok(server.log.some((e) => /token secret file holds 0 bytes/.test(e.msg)), 'the new secret is explained');
    assert.match(readFileSync(join(dir, 'jwt-secret'), 'utf8'), /^[0-9a-f]{64}$/);
    trader.ex = server.client;
    await trader.login();
    for (const orderId of [firstOrder, secondOrder]) assert.equal((await trader.get(`/account/order?orderId=${orderId}`)).status, 200);
    const fills = (await trader.get(`/account/fills?account=${trader.address}&subaccountIndex=0`)).json();
    assert.equal(fills.length, 1, 'the fill is back in history');
  } finally {
    await server.stop(true);
  }
  await assertHistoryMatchesJournal(dir);
});
