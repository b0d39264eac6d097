/**
 * A data directory whose `journal/` was replaced by another exchange's (re-seeded from another
 * node) while its `snapshots/` stayed, and `history/` was removed: the server must not restore
 * the old snapshots' state and replay the new journal on top of it. Before snapshots were tied
 * to their journal (journal/snapshot-tie) the first start skipped them only because history
 * was at 0; a crash before it saved its own snapshots left the next start, history rebuilt
 * past them, restoring the foreign state. Here the first start is killed with SIGKILL once
 * ready, and the next must skip them, with the log line, and reach the state the journal alone
 * replays to: its shutdown snapshot's hash is the one `journal verify --replay` reaches from
 * seq 1 (the server's clock appends records of its own, so B's own final hash is no reference).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fundedTraders, startTestExchange } from './harness.ts';
import { startServerProcess } from './server-process.ts';
import { bundleOf, nodeArgsFor } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const work = mkdtempSync(join(tmpdir(), 'perp-snapshots-foreign-'));
after(() => rmSync(work, { recursive: true, force: true }));

const NOT_TAKEN = /^snapshot at seq (\d+) was not taken of this journal \(its record \1 differs\): skipped$/;

test('snapshots of another journal are not restored after the journal was replaced, even once history caught up', async () => {
  // Exchange A: a snapshot, and its shutdown snapshot.
  const a = join(work, 'a');
  const exA = await startTestExchange({ dataDir: a });
  const [makerA, takerA] = await fundedTraders(exA, 2, '100000');
  await makerA.place({ price: '95000', quantity: '0.5' });
  assert.equal((await exA.operator('POST', '/operator/snapshot')).status, 200);
  await takerA.place({ price: '95000', quantity: '-0.2' });
  await exA.stop();
  const snapshotsOfA = readdirSync(join(a, 'snapshots')).sort();
  const newestOfA = Math.max(...snapshotsOfA.map(Number.parseFloat));
  assert.ok(snapshotsOfA.length >= 2, snapshotsOfA.join(', '));

  // Exchange B: another journal, longer than A's snapshots reach (else the start refuses them as newer than the journal).
  const b = join(work, 'b');
  const exB = await startTestExchange({ dataDir: b });
  const traders = await fundedTraders(exB, 4, '50000');
  for (let i = 0; i < 3; i++) await traders[i].place({ price: String(94_000 + i * 100), quantity: '0.3' });
  await traders[3].place({ price: '94000', quantity: '-0.5' });
  const stateOfB = (await exB.operator('GET', '/operator/state-hash')).json();
  await exB.stop();
  assert.ok(stateOfB.lastSeq > newestOfA, `B's journal (to seq ${stateOfB.lastSeq}) holds A's newest snapshot's seq ${newestOfA}`);

  // A's data directory with B's journal, A's snapshots kept, history removed.
  const mixed = join(work, 'mixed');
  cpSync(a, mixed, { recursive: true });
  rmSync(join(mixed, 'journal'), { recursive: true });
  rmSync(join(mixed, 'history'), { recursive: true });
  cpSync(join(b, 'journal'), join(mixed, 'journal'), { recursive: true });

  const first = await startServerProcess([], {}, mixed);
  const skippedFirst = first.errors.filter((e) => NOT_TAKEN.test(e.msg)).map((e) => e.seq);
  await first.kill('SIGKILL');
  assert.deepEqual(readdirSync(join(mixed, 'snapshots')).sort(), snapshotsOfA, 'the crash left only A\'s snapshots');
  assert.ok(skippedFirst.length > 0, 'the first start logs the snapshots it skips');

  const second = await startServerProcess([], {}, mixed);
  try {
    const skipped = second.errors.filter((e) => NOT_TAKEN.test(e.msg)).map((e) => e.seq as number);
    assert.deepEqual(skipped.sort((x, y) => x - y), snapshotsOfA.map(Number.parseFloat).sort((x, y) => x - y), JSON.stringify(second.errors));
    assert.equal(second.log.find((e) => e.msg === 'replaying journal')?.snapshotSeq, 0, 'replayed from seq 1');
    const state = (await second.client.operator('GET', '/operator/state-hash')).json();
    assert.equal(state.problem, null);
  } finally {
    await second.stop(true); // with its shutdown snapshot, of the state it served
  }
  const ownSnapshots = readdirSync(join(mixed, 'snapshots')).filter((name) => !snapshotsOfA.includes(name));
  assert.ok(ownSnapshots.length > 0, 'the clean stop saved a snapshot');
  const run = spawnSync(process.execPath, [...nodeArgsFor('src/journal/cli.ts'), 'verify', '--data-dir', join(mixed, 'journal'), '--replay', bundleOf('src/sequencer/replay-target.ts')], { cwd: ROOT, encoding: 'utf8' });
  const out = run.stdout + run.stderr;
  assert.equal(run.status, 0, out);
  assert.match(out, new RegExp(`snapshots matched ${ownSnapshots.length}, mismatched 0`), 'the state served is the one the journal alone replays to');
  for (const name of snapshotsOfA) assert.match(out, new RegExp(`snapshot at seq ${Number.parseFloat(name)} was not taken of this journal`), out);
});
