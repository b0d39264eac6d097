/**
 * Markets the exchange already ran under are read under the rules of their day. A journal's
 * markets record, a snapshot's markets and `markets-in-use.json` passed the markets file's rules
 * when they were written; a rule tightened since (the fee gap of config/market) must not stop
 * their replay, or an upgrade would leave the operator a data directory that no longer starts.
 * Here a journal begun under a BTC taker fee of 0.8 % (with the 0.1 % originator ceiling, above
 * BTC's 0.8 % gap between initial and maintenance margin, which today's rule refuses in a markets
 * file) starts on the shipped file: the start replays the old record, records the new markets,
 * trades under them, and `journal verify --replay` replays both records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommandKind, encodeCommand, type MarketsCommand } from '../../src/app/commands.ts';
import { ConfigError, parseMarkets } from '../../src/config/market.ts';
import { Journal } from '../../src/journal/journal.ts';
import { LmdbJournalStorage } from '../../src/journal/lmdb-storage.ts';
import { MARKETS_IN_USE_FILE } from '../../src/storage/markets-in-use.ts';
import { fundedTraders, startTestExchange, tempDataDir } from './harness.ts';
import { bundleOf, nodeArgsFor } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHIPPED: Record<string, unknown>[] = JSON.parse(readFileSync(join(ROOT, 'config/markets.json'), 'utf8')).markets;
/** The shipped markets with BTC's taker fee at 0.8 %: valid before the fee-gap rule, refused by it. */
const OLD_RULES = SHIPPED.map((m) => (m.symbol === 'BTC-USD-PERP' ? { ...m, takerFee: '0.008' } : m));

test('a journal begun under markets a later rule refuses still starts, and replays them as they were', async (t) => {
  assert.throws(() => parseMarkets({ markets: OLD_RULES }), (e: unknown) => e instanceof ConfigError && /plus maxOriginatorFee/.test(e.message), 'a markets file with the old fee is refused today');

  const dataDir = tempDataDir(t, 'perp-old-rules-');
  const journal = await Journal.open(LmdbJournalStorage.open(join(dataDir, 'journal')), { logger: { info: () => {}, error: () => {} } });
  const record: MarketsCommand = { kind: CommandKind.Markets, time: Date.now(), markets: OLD_RULES };
  assert.equal(journal.append(CommandKind.Markets, encodeCommand(record)), 1);
  await journal.close();
  writeFileSync(join(dataDir, MARKETS_IN_USE_FILE), `${JSON.stringify({ markets: OLD_RULES }, null, 2)}\n`);

  const ex = await startTestExchange({ dataDir });
  try {
    const btc = (await ex.request('GET', '/markets')).json().markets.find((m: { symbol: string }) => m.symbol === 'BTC-USD-PERP');
    assert.equal(btc.takerFee, '0.0005', 'the markets file applies from the start on');
    const [alice, bob] = await fundedTraders(ex, 2, '10000');
    assert.equal((await bob.place({ price: '95000', quantity: '-0.01' })).status, 200);
    const taken = await alice.place({ price: '95000', quantity: '0.01' });
    assert.equal(taken.status, 200, taken.text);
    // 950 USD of notional at the shipped 0.05 %, not the old record's 0.8 %.
    const positions = (await alice.get(`/account/positions?account=${alice.address}&subaccountIndex=0`)).json().positions;
    assert.equal(positions[0].fees, '0.475');
  } finally {
    await ex.stop();
  }

  const run = spawnSync(process.execPath, [...nodeArgsFor('src/journal/cli.ts'), 'verify', '--data-dir', join(dataDir, 'journal'), '--replay', bundleOf('src/sequencer/replay-target.ts')], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /snapshots matched \d+, mismatched 0/);
});
