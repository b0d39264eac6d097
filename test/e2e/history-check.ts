/**
 * History holds nothing the journal does not: `assertHistoryMatchesJournal(dataDir)` checks a
 * data directory no server is running on (after a kill, or a stop) and throws an
 * AssertionError naming the first difference:
 *  - history's position (the journal seq it has projected up to) is within the journal;
 *  - every history database (trades, candles, fills, orders and their indexes in the timeline, funding,
 *    transfers, the position itself) equals, key for key and value for value, what projecting
 *    the journal's records up to that position into an empty history gives.
 * So a record from a command the journal lost (a phantom order, a fill counted twice, a
 * transfer listed twice) fails it, and so does one the journal holds but history dropped.
 * The projection replays the journal from seq 1 in this process: seconds for 100,000 records.
 *
 * `args` and `env` are the server's, so the markets and profile are the ones it ran with.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { open, type RootDatabase } from 'lmdb';
import { loadSettings } from '../../src/config/process.ts';
import { Journal } from '../../src/journal/journal.ts';
import { LmdbJournalStorage } from '../../src/journal/lmdb-storage.ts';
import { Exchange } from '../../src/app/exchange.ts';
import { NO_ROUTER } from '../../src/app/ports.ts';
import { HISTORY_ENV_OPTIONS, projectionDatabase } from '../../src/history/history-env.ts';
import { Projections } from '../../src/history/projections.ts';
import { Replay } from '../../src/sequencer/recovery.ts';

/** Every projection database of a history environment (history/store, history/transfers, history/account-events). */
export const PROJECTION_DATABASES = [
  'history.trades',
  'history.tradesByTime',
  'history.candles',
  'history.orders',
  'history.timeline',
  'history.funding',
  'history.transfers',
  'history.accountEvents',
];

/** Every named database of a history environment: the projections and their position (history/batch). */
const HISTORY_DATABASES = [...PROJECTION_DATABASES, 'history.meta'];

/**
 * A database's entries, decoded as the exchange reads them. The shapes' own entry (a symbol key,
 * history-env `projectionDatabase`) is left out: its order depends on how the records were
 * batched when first written, which a rebuild does differently; the values it decodes do not.
 */
function contents(env: RootDatabase, name: string): { key: unknown; value: unknown }[] {
  const db = name === 'history.meta' ? env.openDB({ name }) : projectionDatabase(env, name);
  if ((db as unknown) === undefined) return [];
  return [...db.getRange()].filter(({ key }) => typeof key !== 'symbol').map(({ key, value }) => ({ key, value }));
}

export async function assertHistoryMatchesJournal(dataDir: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<{ projectedSeq: number; lastSeq: number }> {
  const settings = loadSettings(['--data-dir', dataDir, ...args], env);
  const storage = LmdbJournalStorage.open(join(dataDir, 'journal'), { readOnly: true });
  const journal = await Journal.open(storage, { readOnly: true, verifyFrom: storage.lastKey(), logger: { info: () => {}, error: () => {} } });
  const actual = open({ path: join(dataDir, 'history'), ...HISTORY_ENV_OPTIONS, readOnly: true });
  const expectedDir = mkdtempSync(join(tmpdir(), 'history-expected-'));
  const expected = open({ path: expectedDir, ...HISTORY_ENV_OPTIONS });
  try {
    const projectedSeq = (actual.openDB<number, string>({ name: 'history.meta' })?.get('projectedSeq') as number | undefined) ?? 0;
    const lastSeq = journal.lastSeq();
    assert.ok(projectedSeq <= lastSeq, `history has projected the journal up to seq ${projectedSeq}, but the journal ends at seq ${lastSeq}: history holds records the journal does not`);

    const projections = new Projections(expected);
    const exchange = new Exchange(settings.markets, NO_ROUTER, projections.listeners(), { ledger: { faucet: settings.profile.faucet } });
    projections.identity = (owner) => exchange.ledger.identity(owner);
    const replay = new Replay(exchange, [], projections.atEvent);
    for (const entry of journal.range(1, projectedSeq)) {
      projections.applying = entry.seq;
      replay.apply(entry);
    }
    projections.journal = { lastSeq: () => projectedSeq, committedSeq: () => projectedSeq, whenCommitted: async () => {} };
    projections.flush(true);

    for (const name of HISTORY_DATABASES) {
      const have = contents(actual, name);
      const want = contents(expected, name);
      const at = have.findIndex((entry, i) => !isDeepStrictEqual(entry, want[i]));
      if (at >= 0 || have.length !== want.length) {
        const i = at >= 0 ? at : Math.min(have.length, want.length);
        assert.fail(
          `${name} differs from projecting the journal up to seq ${projectedSeq} (journal ends at ${lastSeq}): ` +
            `${have.length} entries, expected ${want.length}; first difference at entry ${i}: history has ${show(have[i])}, the journal gives ${show(want[i])}`,
        );
      }
    }
    return { projectedSeq, lastSeq };
  } finally {
    await journal.close();
    await actual.close();
    await expected.close();
    rmSync(expectedDir, { recursive: true, force: true });
  }
}

function show(entry: unknown): string {
  return entry === undefined ? 'nothing' : JSON.stringify(entry, (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
}
