/**
 * A snapshot is tied to the journal it was taken of (journal/snapshot-tie): a version 3 record
 * carries the journal's chain value of record `seq`. A data directory whose `snapshots/` holds
 * a snapshot of another journal (its `journal/` replaced, `snapshots/` kept) neither starts from
 * it (sequencer/start-state, with the log line) nor trusts it to show records flushed (the data
 * directory's open verifies the journal from seq 1); one taken of it is used; a version 2 record
 * (no tie, written by an older build) is used as before.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMarkets } from '../../src/config/market.ts';
import { CommandKind } from '../../src/app/commands.ts';
import { Exchange } from '../../src/app/exchange.ts';
import { NO_ROUTER } from '../../src/app/ports.ts';
import { Snapshots, decodeSnapshotRecord, encodeSnapshotRecord, snapshotFileName, type SnapshotTie } from '../../src/journal/snapshots.ts';
import { verifyJournal } from '../../src/journal/verify.ts';
import { openDataDirectory } from '../../src/storage/data-directory.ts';
import { encodeSnapshot } from '../../src/sequencer/snapshot-codec.ts';
import { startMarkets, startState } from '../../src/sequencer/start-state.ts';

const work = mkdtempSync(join(tmpdir(), 'perp-snapshot-tie-'));
after(() => rmSync(work, { recursive: true, force: true }));

const markets = parseMarkets(JSON.parse(readFileSync(new URL('../../config/markets.json', import.meta.url), 'utf8')));
const OPTIONS = { ledger: { faucet: true } };
/** Not a markets record: the journal's records here are opaque to the start (only the snapshot is restored). */
const KIND = 60_000;

/** A logger that keeps what it is told. */
function recorder() {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  const log = (fields: Record<string, unknown>, message: string) => void lines.push({ fields, message });
  return { lines, info: log, error: log, warn: log };
}

/** A data directory whose journal holds 20 records, `salt` making them this journal's own. */
async function dataDirectory(name: string, salt: string): Promise<string> {
  const dir = join(work, name);
  const opened = await openDataDirectory(dir, recorder());
  for (let i = 1; i <= 20; i++) opened.journal.append(KIND, new TextEncoder().encode(`${salt} record ${i}`));
  await opened.journal.durable(20);
  await opened.journal.close();
  await opened.historyEnv.close();
  return dir;
}

/** The chain value of record `seq` of the journal in `dir`. */
async function chainAt(dir: string, seq: number): Promise<SnapshotTie> {
  const opened = await openDataDirectory(dir, recorder());
  try {
    return { ...opened.journal.chainAt(seq)! };
  } finally {
    await opened.journal.close();
    await opened.historyEnv.close();
  }
}

/** An exchange's state, as a snapshot holds it. */
function someState(): { stateHash: string; bytes: Uint8Array } {
  const exchange = new Exchange(markets, NO_ROUTER, {}, OPTIONS);
  for (let i = 1; i <= 5; i++) exchange.execute({ kind: CommandKind.Faucet, time: 1_000 + i, account: `0x${i.toString(16).padStart(40, '0')}`, subaccountIndex: 0, amount: BigInt(i) * 1_000_000n });
  const hashes = exchange.stateHashes();
  return { stateHash: exchange.stateHash(hashes), bytes: encodeSnapshot({ exchange: exchange.snapshot(), books: [], hashes }) };
}

/** Opens `dir` as a start does and picks its snapshot: where verification began, the snapshot started from, the log. */
async function start(dir: string): Promise<{ verifiedFrom: unknown; snapshotSeq: number | undefined; lines: string[] }> {
  const log = recorder();
  const opened = await openDataDirectory(dir, log);
  try {
    const state = startState(opened.snapshots, opened.journal, Number.MAX_SAFE_INTEGER, startMarkets(opened.journal, markets), {}, OPTIONS, log);
    return { verifiedFrom: log.lines.find((l) => l.message === 'journal opened')?.fields.verifiedFrom, snapshotSeq: state.start?.seq, lines: log.lines.map((l) => l.message) };
  } finally {
    await opened.journal.close();
    await opened.historyEnv.close();
  }
}

const state = someState();

test('a version 3 snapshot of another journal is skipped by the open and the start; one of this journal is used', async () => {
  const dir = await dataDirectory('ours', 'ours');
  const other = await dataDirectory('theirs', 'theirs');
  const ours = await chainAt(dir, 15);
  const theirs = await chainAt(other, 15);
  assert.notDeepEqual(ours, theirs, 'two journals, two chains');
  const snapshots = new Snapshots(join(dir, 'snapshots'));

  await snapshots.save(15, state.stateHash, state.bytes, theirs);
  const foreign = await start(dir);
  assert.equal(foreign.snapshotSeq, undefined, 'not started from');
  assert.equal(foreign.verifiedFrom, 1, 'nor trusted: the journal is verified from seq 1');
  assert.ok(foreign.lines.includes('snapshot at seq 15 was not taken of this journal (its record 15 differs): skipped'), foreign.lines.join('\n'));

  await snapshots.save(15, state.stateHash, state.bytes, ours);
  const tied = await start(dir);
  assert.equal(tied.snapshotSeq, 15);
  assert.equal(tied.verifiedFrom, 16);
  assert.ok(!tied.lines.some((line) => line.includes('not taken of this journal')));

  // The foreign one newer than a tied one: the tied one is used.
  await snapshots.save(18, state.stateHash, state.bytes, await chainAt(other, 18));
  const older = await start(dir);
  assert.equal(older.snapshotSeq, 15);
  assert.equal(older.verifiedFrom, 16);
  assert.ok(older.lines.includes('snapshot at seq 18 was not taken of this journal (its record 18 differs): skipped'));
});

test('a version 2 snapshot (no tie) is used as before', async () => {
  const dir = await dataDirectory('untied', 'untied');
  const snapshots = new Snapshots(join(dir, 'snapshots'));
  await snapshots.save(15, state.stateHash, state.bytes);
  const record = readFileSync(join(snapshots.dir, snapshotFileName(15)));
  assert.equal(record[4], 2, 'a version 2 record');
  assert.equal(decodeSnapshotRecord(15, record)?.tie, undefined);
  const started = await start(dir);
  assert.equal(started.snapshotSeq, 15);
  assert.equal(started.verifiedFrom, 16);
});

test('a snapshot after the journal\'s end is refused, naming its file and what to do if the snapshots are another journal\'s', async () => {
  const dir = await dataDirectory('short', 'short');
  const other = await dataDirectory('long', 'long');
  const snapshots = new Snapshots(join(dir, 'snapshots'));
  await snapshots.save(15, state.stateHash, state.bytes, await chainAt(dir, 15));
  const opened = await openDataDirectory(other, recorder());
  for (let i = 21; i <= 25; i++) opened.journal.append(KIND, new TextEncoder().encode(`long record ${i}`));
  await opened.journal.durable(25);
  const tie = opened.journal.chainAt(25)!;
  await opened.journal.close();
  await opened.historyEnv.close();
  await snapshots.save(25, state.stateHash, state.bytes, tie);
  const file = join(dir, 'snapshots', snapshotFileName(25));
  await assert.rejects(openDataDirectory(dir, recorder()), (error: Error) => {
    assert.ok(error.message.includes(`ends at seq 20, but its newest snapshot was taken at seq 25 (${file})`), error.message);
    assert.ok(error.message.includes(`if ${join(dir, 'snapshots')} does not belong to this journal`), error.message);
    return true;
  });
});

test('journal verify --replay compares only the snapshots taken of the journal', async () => {
  const dir = await dataDirectory('verify', 'verify');
  const other = await dataDirectory('verify-other', 'verify-other');
  const snapshots = new Snapshots(join(dir, 'snapshots'));
  await snapshots.save(10, 'hash', Uint8Array.of(1), await chainAt(dir, 10));
  await snapshots.save(15, 'other', Uint8Array.of(1), await chainAt(other, 15));
  const opened = await openDataDirectory(dir, recorder());
  try {
    const report = verifyJournal(opened.journal, { replay: { apply: () => {}, stateHash: () => 'hash' }, snapshots: opened.snapshots });
    assert.equal(report.snapshotsMatched, 1);
    assert.deepEqual(report.snapshotMismatches, []);
    assert.deepEqual(report.snapshotsNotTaken, [15]);
  } finally {
    await opened.journal.close();
    await opened.historyEnv.close();
  }
});

test('a version 3 record round-trips its tie; a flipped tie byte fails the checksum', () => {
  const tie = { crc32c: 0xdeadbeef, crc32: 0x01020304 };
  const record = encodeSnapshotRecord(7, 'h', Uint8Array.of(1, 2, 3), tie);
  assert.equal(record[4], 3);
  assert.deepEqual(decodeSnapshotRecord(7, record), { seq: 7, stateHash: 'h', bytes: Uint8Array.of(1, 2, 3), tie });
  record[25] ^= 1;
  assert.equal(decodeSnapshotRecord(7, record), undefined);
});
