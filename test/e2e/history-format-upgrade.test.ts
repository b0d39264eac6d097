/**
 * A data directory written by a build before history format 2 starts on this one: its history
 * (fills and the order indexes in three databases, no `format` in history.meta) is rebuilt from
 * the journal, the rebuild is logged, and every history read answers as before the upgrade.
 * The old layout is made here from the new one (the same entries under the old keys), so the
 * test needs no old build.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { startTestExchange, Trader, fundedTraders } from './harness.ts';
import { startServerProcess } from './server-process.ts';
import { assertHistoryMatchesJournal } from './history-check.ts';
import { HISTORY_ENV_OPTIONS } from '../../src/history/history-env.ts';
import { TIMELINE_CREATED, TIMELINE_FILL, TIMELINE_UPDATED } from '../../src/history/store.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'perp-history-format-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** Rewrites the history at `dir` as format 1 wrote it: history.fills, history.ordersByUpdated, history.ordersByCreated, no format. */
async function toFormat1(dir: string): Promise<void> {
  const env = open({ path: join(dir, 'history'), ...HISTORY_ENV_OPTIONS });
  const timeline = env.openDB<unknown, number[]>({ name: 'history.timeline' });
  const fills = env.openDB<unknown, number[]>({ name: 'history.fills' });
  const byUpdated = env.openDB<number, number[]>({ name: 'history.ordersByUpdated' });
  const byCreated = env.openDB<number, number[]>({ name: 'history.ordersByCreated' });
  const orders = env.openDB<{ updatedAt: number }, number>({ name: 'history.orders' });
  await env.transaction(() => {
    for (const { key, value } of timeline.getRange()) {
      const [owner, time, kind, a, b] = key;
      if (kind === TIMELINE_FILL) fills.put([owner, time, a, b], value);
      // Format 1 kept only an order's latest update entry.
      if (kind === TIMELINE_UPDATED && orders.get(a)!.updatedAt === time) byUpdated.put([owner, time, a], a);
      if (kind === TIMELINE_CREATED) byCreated.put([owner, time, a], a);
    }
    timeline.drop();
    env.openDB<number, string>({ name: 'history.meta' }).remove('format');
  });
  await env.close();
}

test('history from a build before format 2 is rebuilt from the journal at start, and reads answer as before', async () => {
  const ex = await startTestExchange({ dataDir });
  const [maker, taker] = await fundedTraders(ex, 2, '100000');
  await maker.place({ price: '95000', quantity: '0.5', clientId: 'rests' });
  await taker.place({ price: '95000', quantity: '-0.2' });
  await maker.place({ price: '94000', quantity: '0.1', clientId: 'second' });
  const reads: [Trader, string][] = [
    [maker, `/account/orders?account=${maker.address}&subaccountIndex=0`],
    [maker, `/account/orders?account=${maker.address}&subaccountIndex=0&createdFrom=0`],
    [maker, `/account/fills?account=${maker.address}&subaccountIndex=0`],
    [taker, `/account/fills?account=${taker.address}&subaccountIndex=0`],
    [taker, `/account/orders?account=${taker.address}&subaccountIndex=0&status=filled`],
  ];
  const read = () => Promise.all(reads.map(async ([trader, path]) => (await trader.get(path)).json()));
  const before = await read();
  assert.equal(before[0].total, 2, "the maker's two orders");
  assert.equal(before[2].length, 1, 'the maker has its fill');
  assert.equal(before[4].total, 1, "the taker's filled order");
  await ex.stop();

  await toFormat1(dataDir);
  const server = await startServerProcess([], {}, dataDir);
  try {
    assert.ok(server.errors.some((e) => /HISTORY REBUILT: history is in format 1 \(written by an older build\)/.test(e.msg)), 'the rebuild is logged');
    for (const trader of [maker, taker]) {
      trader.ex = server.client;
      await trader.login();
    }
    assert.deepEqual(await read(), before);
  } finally {
    await server.stop(true);
  }
  await assertHistoryMatchesJournal(dataDir);
});
