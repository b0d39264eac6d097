/**
 * The crash tests' history check (history-check.ts, `HistoryCheck`) carried from one data
 * directory to the next: a journal that is a continuation of the last one checked is projected
 * only where it grew; one whose history stands at an earlier position starts the projection
 * again from seq 1; and either way a history record the journal does not give is named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { startTestExchange, fundedTraders } from './harness.ts';
import { HistoryCheck } from './history-check.ts';
import { HISTORY_ENV_OPTIONS, projectionDatabase } from '../../src/history/history-env.ts';

test('a carried history check starts again for an earlier journal, continues a longer one, and names a tampered record', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'perp-history-check-'));
  const dir = join(work, 'late');
  let ex = await startTestExchange({ dataDir: dir });
  const [alice, bob] = await fundedTraders(ex, 2, '100000');
  assert.equal((await alice.place({ price: '95000', quantity: '0.01' })).status, 200);
  assert.equal((await bob.place({ price: '95000', quantity: '-0.01' })).status, 200);
  await ex.stop();
  const early = join(work, 'early');
  cpSync(dir, early, { recursive: true });
  ex = await startTestExchange({ dataDir: dir });
  alice.ex = ex;
  assert.equal((await alice.place({ price: '94000', quantity: '0.02', clientId: 'later' })).status, 200);
  await ex.stop();
  const tampered = join(work, 'tampered');
  cpSync(dir, tampered, { recursive: true });
  const env = open({ path: join(tampered, 'history'), ...HISTORY_ENV_OPTIONS });
  const orders = projectionDatabase<Record<string, unknown>, number>(env, 'history.orders');
  const [first] = [...orders.getRange()].filter(({ key }) => typeof key !== 'symbol');
  await orders.put(first.key, { ...first.value, clientId: 'not-in-the-journal' });
  await env.close();

  const check = new HistoryCheck();
  t.after(() => check.close());
  const late = await check.assertMatches(dir);
  const back = await check.assertMatches(early);
  assert.ok(back.projectedSeq < late.projectedSeq, `the earlier directory stands at ${back.projectedSeq}, the later at ${late.projectedSeq}`);
  // A continuation of the early one (the same journal, grown), its history changed.
  await assert.rejects(check.assertMatches(tampered), /history\.orders differs from projecting the journal .*first difference at entry 0/);
  assert.deepEqual(await check.assertMatches(dir), late, 'and the true one still matches');
});
