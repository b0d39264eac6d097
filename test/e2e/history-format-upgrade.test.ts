/**
 * A data directory whose history an older build wrote starts on this one — format 1 (fills and
 * the order indexes in three databases, no `format` in history.meta), format 2 (one timeline
 * per subaccount ordered by time first, order entries without what listings filter on) or
 * format 3 (values that carry their own field names instead of shared shapes) or format 4 (one
 * entry per subaccount event, not one per journal record and subaccount): its
 * history is rebuilt from the journal, the rebuild is logged, and every history read answers as
 * before the upgrade.
 * The old layout is made here from the new one (the same entries under the old keys), so the
 * test needs no old build.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type Database, type Key, type RootDatabase } from 'lmdb';
import { startTestExchange, Trader, fundedTraders } from './harness.ts';
import { startServerProcess } from './server-process.ts';
import { assertHistoryMatchesJournal, PROJECTION_DATABASES } from './history-check.ts';
import { HISTORY_ENV_OPTIONS, projectionDatabase } from '../../src/history/history-env.ts';
import { TIMELINE_CREATED, TIMELINE_FILL, TIMELINE_UPDATED } from '../../src/history/store.ts';



/** A database's values as this build wrote them (shared structures), as `[key, value]`s: the structures entry itself (a symbol key) left out. */
function entries(db: Database<unknown, Key>): [Key, unknown][] {
  return [...db.getRange()].filter(({ key }) => typeof key !== 'symbol').map(({ key, value }) => [key, value]);
}

/**
 * For `fn`, in one write transaction of the history at `dir`: `current(name)` reads a database
 * as this build wrote it, `plain(name)` writes it as builds before format 4 did (msgpack values
 * that carry their own field names). Every projection is rewritten plainly first: builds of
 * formats 1 to 3 all wrote plain values.
 */
async function rewrite(dir: string, fn: (env: RootDatabase, current: (name: string) => Database<any, any>, plain: (name: string) => Database<any, any>) => void): Promise<void> {
  const env = open({ path: join(dir, 'history'), ...HISTORY_ENV_OPTIONS });
  const current = (name: string) => projectionDatabase<unknown, Key>(env, name);
  const plain = (name: string) => env.openDB<unknown, Key>({ name });
  await env.transaction(() => {
    splitAccountEvents(current('history.accountEvents'));
    for (const name of PROJECTION_DATABASES) {
      const stored = entries(current(name));
      current(name).clearSync();
      for (const [key, value] of stored) plain(name).putSync(key, value);
    }
    fn(env, current, plain);
  });
  await env.close();
}

/** Every format before 5 kept one subaccount event per entry, `[owner, seq]`, not one entry per journal record and subaccount. */
function splitAccountEvents(db: Database<any, any>): void {
  const groups = entries(db);
  db.clearSync();
  for (const [, events] of groups) for (const e of events as Array<{ owner: number; seq: number }>) db.putSync([e.owner, e.seq], e);
}

/** Rewrites the history at `dir` as format 4 wrote it: this layout, but one entry per subaccount event. */
async function toFormat4(dir: string): Promise<void> {
  const env = open({ path: join(dir, 'history'), ...HISTORY_ENV_OPTIONS });
  await env.transaction(() => {
    splitAccountEvents(projectionDatabase<unknown, Key>(env, 'history.accountEvents'));
    env.openDB<number, string>({ name: 'history.meta' }).putSync('format', 4);
  });
  await env.close();
}

/** Rewrites the history at `dir` as format 3 wrote it: format 4's layout, plain values. */
async function toFormat3(dir: string): Promise<void> {
  await rewrite(dir, (env) => env.openDB<number, string>({ name: 'history.meta' }).putSync('format', 3));
}

/** Rewrites the history at `dir` as format 1 wrote it: history.fills, history.ordersByUpdated, history.ordersByCreated, no format. */
async function toFormat1(dir: string): Promise<void> {
  await rewrite(dir, (env, _current, plain) => {
    const timeline = plain('history.timeline');
    const orders = plain('history.orders');
    const fills = plain('history.fills');
    const byUpdated = plain('history.ordersByUpdated');
    const byCreated = plain('history.ordersByCreated');
    for (const { key, value } of timeline.getRange()) {
      const [owner, kind, time, a, b] = key as number[];
      if (kind === TIMELINE_FILL) fills.put([owner, time, a, b], value);
      // Format 1 kept only an order's latest update entry.
      if (kind === TIMELINE_UPDATED && orders.get(a).updatedAt === time) byUpdated.put([owner, time, a], a);
      if (kind === TIMELINE_CREATED) byCreated.put([owner, time, a], a);
    }
    timeline.drop();
    env.openDB<number, string>({ name: 'history.meta' }).remove('format');
  });
}

/** Rewrites the history at `dir` as format 2 wrote it: one timeline per subaccount ordered by time first, bare order entries. */
async function toFormat2(dir: string): Promise<void> {
  await rewrite(dir, (env, _current, plain) => {
    const timeline = plain('history.timeline');
    const stored = [...timeline.getRange()].map(({ key, value }) => ({ key: key as number[], value }));
    timeline.clearSync();
    for (const { key, value } of stored) {
      const [owner, kind, time, a, b] = key;
      if (kind === TIMELINE_FILL) timeline.put([owner, time, kind, a, b], value);
      if (kind === TIMELINE_UPDATED || kind === TIMELINE_CREATED) timeline.put([owner, time, kind, a], null);
    }
    env.openDB<number, string>({ name: 'history.meta' }).put('format', 2);
  });
}

/**
 * The data directory every case starts from, written once: two traders' orders and a fill, by
 * an exchange in this process. Each case downgrades a copy of it.
 */
const work = mkdtempSync(join(tmpdir(), 'perp-history-format-'));
const source = join(work, 'source');
after(() => rmSync(work, { recursive: true, force: true }));
let maker: Trader;
let taker: Trader;
let reads: [Trader, string][];
/** The answers to `reads` before any upgrade. */
let written: unknown[];
const read = () => Promise.all(reads.map(async ([trader, path]) => (await trader.get(path)).json()));

before(async () => {
  const ex = await startTestExchange({ dataDir: source });
  [maker, taker] = await fundedTraders(ex, 2, '100000');
  await maker.place({ price: '95000', quantity: '0.5', clientId: 'rests' });
  await taker.place({ price: '95000', quantity: '-0.2' });
  await maker.place({ price: '94000', quantity: '0.1', clientId: 'second' });
  reads = [
    [maker, `/account/orders?account=${maker.address}&subaccountIndex=0`],
    [maker, `/account/orders?account=${maker.address}&subaccountIndex=0&createdFrom=0`],
    [maker, `/account/fills?account=${maker.address}&subaccountIndex=0`],
    [taker, `/account/fills?account=${taker.address}&subaccountIndex=0`],
    [taker, `/account/orders?account=${taker.address}&subaccountIndex=0&status=filled`],
  ];
  written = await read();
  assert.equal((written[0] as { total: number }).total, 2, "the maker's two orders");
  assert.equal((written[2] as unknown[]).length, 1, 'the maker has its fill');
  assert.equal((written[4] as { total: number }).total, 1, "the taker's filled order");
  await ex.stop();
});

for (const [format, downgrade] of [[1, toFormat1], [2, toFormat2], [3, toFormat3], [4, toFormat4]] as const) {
  test(`history from a build in format ${format} is rebuilt from the journal at start, and reads answer as before`, async () => {
    const dataDir = join(work, `format-${format}`);
    cpSync(source, dataDir, { recursive: true });
    await downgrade(dataDir);
    const server = await startServerProcess([], {}, dataDir);
    try {
      assert.ok(server.errors.some((e) => e.msg.includes(`HISTORY REBUILT: history is in format ${format} (written by an older build)`)), 'the rebuild is logged');
      for (const trader of [maker, taker]) {
        trader.ex = server.client;
        await trader.login();
      }
      assert.deepEqual(await read(), written);
    } finally {
      await server.stop(true);
    }
    await assertHistoryMatchesJournal(dataDir);
  });
}
