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
 * The projection replays the journal from seq 1 in this process (seconds for 100,000 records);
 * a `HistoryCheck` kept across kills projects only what each adds.
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

/**
 * The journal projected into a scratch history of its own, carried from one check of a data
 * directory to the next (a test that kills a server again and again): each check projects only
 * the records added since the last. The journal only grows; should the record the last check
 * ended on differ (or history's position go back), the projection starts again from seq 1.
 */
export class HistoryCheck {
  private dir = mkdtempSync(join(tmpdir(), 'history-expected-'));
  private env = open({ path: this.dir, ...HISTORY_ENV_OPTIONS });
  private projected: { projections: Projections; replay: Replay; seq: number; last: Uint8Array | null } | null = null;

  constructor(
    private readonly args: readonly string[] = [],
    private readonly processEnv: NodeJS.ProcessEnv = process.env,
  ) {}

  /** Checks `dataDir` (no server running on it); returns history's position and the journal's end. */
  async assertMatches(dataDir: string): Promise<{ projectedSeq: number; lastSeq: number }> {
    const settings = loadSettings(['--data-dir', dataDir, ...this.args], this.processEnv);
    const storage = LmdbJournalStorage.open(join(dataDir, 'journal'), { readOnly: true });
    const journal = await Journal.open(storage, { readOnly: true, verifyFrom: storage.lastKey(), logger: { info: () => {}, error: () => {} } });
    const actual = open({ path: join(dataDir, 'history'), ...HISTORY_ENV_OPTIONS, readOnly: true });
    try {
      const projectedSeq = (actual.openDB<number, string>({ name: 'history.meta' })?.get('projectedSeq') as number | undefined) ?? 0;
      const lastSeq = journal.lastSeq();
      assert.ok(projectedSeq <= lastSeq, `history has projected the journal up to seq ${projectedSeq}, but the journal ends at seq ${lastSeq}: history holds records the journal does not`);
      await this.projectTo(settings, journal, projectedSeq);

      for (const name of HISTORY_DATABASES) {
        if (sameBytes(actual, this.env, name)) continue;
        // The bytes differ (a difference, or only the shapes' numbering: decoded values decide).
        const have = contents(actual, name);
        const want = contents(this.env, name);
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
    }
  }

  async close(): Promise<void> {
    await this.env.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The scratch history holds the journal's projection up to `seq`. */
  private async projectTo(settings: ReturnType<typeof loadSettings>, journal: Journal, seq: number): Promise<void> {
    let p = this.projected;
    const same = (entry: { record: Uint8Array } | undefined) => p !== null && p.last !== null && entry !== undefined && Buffer.compare(entry.record, p.last) === 0;
    if (p !== null && (seq < p.seq || (p.seq > 0 && !same([...journal.range(p.seq, p.seq)][0])))) {
      // Not a continuation of what was projected: from seq 1 again, into an empty history.
      await this.close();
      this.dir = mkdtempSync(join(tmpdir(), 'history-expected-'));
      this.env = open({ path: this.dir, ...HISTORY_ENV_OPTIONS });
      p = null;
    }
    if (p === null) {
      const projections = new Projections(this.env);
      const exchange = new Exchange(settings.markets, NO_ROUTER, projections.listeners(), { ledger: { faucet: settings.profile.faucet } });
      projections.identity = (owner) => exchange.ledger.identity(owner);
      p = this.projected = { projections, replay: new Replay(exchange, [], projections.atEvent), seq: 0, last: null };
    }
    for (const entry of journal.range(p.seq + 1, seq)) {
      p.projections.applying = entry.seq;
      p.replay.apply(entry);
      p.seq = entry.seq;
      p.last = entry.record;
    }
    if (p.last !== null) p.last = Uint8Array.from(p.last);
    p.projections.journal = { lastSeq: () => seq, committedSeq: () => seq, whenCommitted: async () => {} };
    p.projections.flush(true);
  }
}

/** One check of `dataDir` (see HistoryCheck); `args` and `env` are the server's. */
/**
 * Whether database `name` holds the same keys and values, byte for byte, in both environments:
 * the common case, decided without decoding a value (projecting the same records in the same
 * order numbers their shapes alike).
 */
function sameBytes(a: RootDatabase, b: RootDatabase, name: string): boolean {
  const raw = (env: RootDatabase) => env.openDB<Buffer, Buffer>({ name, encoding: 'binary', keyEncoding: 'binary' }) as unknown as ReturnType<RootDatabase['openDB']> | undefined;
  const x = raw(a);
  const y = raw(b);
  if (x === undefined || y === undefined) return x === y;
  const left = x.getRange()[Symbol.iterator]();
  const right = y.getRange()[Symbol.iterator]();
  for (;;) {
    const l = left.next();
    const r = right.next();
    if (l.done || r.done) return l.done === r.done;
    if (!(l.value.key as Buffer).equals(r.value.key as Buffer) || !(l.value.value as Buffer).equals(r.value.value as Buffer)) return false;
  }
}

export async function assertHistoryMatchesJournal(dataDir: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<{ projectedSeq: number; lastSeq: number }> {
  const check = new HistoryCheck(args, env);
  try {
    return await check.assertMatches(dataDir);
  } finally {
    await check.close();
  }
}

function show(entry: unknown): string {
  return entry === undefined ? 'nothing' : JSON.stringify(entry, (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
}
