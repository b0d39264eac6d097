/**
 * A start on a markets file that differs from the markets the data directory's state was built
 * under (storage/markets-in-use). Before, a market's place in the file was its index in every
 * order id, position and journal record, read as whatever the new file listed there: two
 * markets swapped made a trader's BTC long an ETH long of 10,000 times the size. Now:
 *  - moved, missing, or another tickSize: refused, nothing changed, and the old file starts it;
 *  - a fee changed while the journal holds records after the newest snapshot (refused before the
 *    journal recorded its markets: replay would have charged the old fills the new fee): the
 *    replay runs them under their fee, the new one applies from the start's markets record on,
 *    and a rebuild from seq 1 and `journal verify --replay` switch fees at that record too;
 *  - a market appended: accepted, the positions where they were.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataRefusedError } from '../../src/journal/refusal.ts';
import { MARKETS_IN_USE_FILE } from '../../src/storage/markets-in-use.ts';
import { fundedTraders, startTestExchange, tempDataDir, type TestExchange, type Trader } from './harness.ts';
import { bundleOf, nodeArgsFor } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MARKETS_FILE = fileURLToPath(new URL('../../config/markets.json', import.meta.url));
type MarketEntry = Record<string, unknown> & { symbol: string };
const MARKETS: MarketEntry[] = JSON.parse(readFileSync(MARKETS_FILE, 'utf8')).markets;

/** A markets file in `dir` listing `markets`. */
function marketsFile(dir: string, name: string, markets: MarketEntry[]): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ markets }));
  return path;
}

const startOn = (dataDir: string, markets: string): Promise<TestExchange> => startTestExchange({ dataDir, args: ['--markets', markets] });

/** Alice long 0.01 BTC from Bob at 95,000 (the testnet index), both on subaccount 0. */
async function aliceLongBtc(ex: TestExchange): Promise<{ alice: Trader; bob: Trader }> {
  const [alice, bob] = await fundedTraders(ex, 2, '10000');
  assert.equal((await bob.place({ price: '95000', quantity: '-0.01' })).status, 200);
  assert.equal((await alice.place({ price: '95000', quantity: '0.01' })).status, 200);
  return { alice, bob };
}

async function positions(ex: TestExchange, trader: Trader): Promise<{ symbol: string; quantity: string; fees: string }[]> {
  trader.ex = ex;
  await trader.login();
  const reply = await trader.get(`/account/positions?account=${trader.address}&subaccountIndex=0`);
  assert.equal(reply.status, 200, reply.text);
  return reply.json().positions;
}

async function refusal(start: Promise<TestExchange>): Promise<string> {
  const error = await start.then(
    () => assert.fail('the start was not refused'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof DataRefusedError, String(error));
  return error.message;
}

test('markets that changed places, a market left out, or a tickSize changed: refused, and the data directory starts again on its markets', async (t) => {
  const dataDir = tempDataDir(t, 'perp-markets-moved-');
  const original = marketsFile(dataDir, 'original', MARKETS);
  const first = await startOn(dataDir, original);
  const { alice } = await aliceLongBtc(first);
  await first.stop({ snapshot: true });

  const swapped = marketsFile(dataDir, 'swapped', [MARKETS[1], MARKETS[0], ...MARKETS.slice(2)]);
  assert.equal(
    await refusal(startOn(dataDir, swapped)),
    `the markets file does not match this data directory: ${MARKETS[1].symbol} is market 0 in the markets file (its place in the list), where this data directory has ${MARKETS[0].symbol} (now market 1): every order id, position and journal record names a market by its place — keep the markets in their places and add new ones at the end. Nothing was changed; the markets in use are in ${join(dataDir, MARKETS_IN_USE_FILE)}.`,
  );
  assert.match(await refusal(startOn(dataDir, marketsFile(dataDir, 'shorter', MARKETS.slice(0, 1)))), new RegExp(`${MARKETS[1].symbol} \\(market 1\\) is missing from the markets file`));
  assert.match(
    await refusal(startOn(dataDir, marketsFile(dataDir, 'finer', [{ ...MARKETS[0], tickSize: '0.01', initialPrice: '95000' }, ...MARKETS.slice(1)]))),
    /BTC-USD-PERP has tickSize "0\.01" in the markets file, where this data directory's prices are in ticks of "0\.1": a market's tickSize cannot change/,
  );

  // Nothing was changed: the original file starts it, Alice's long where it was.
  const again = await startOn(dataDir, original);
  assert.deepEqual(
    (await positions(again, alice)).map((p) => [p.symbol, p.quantity]),
    [['BTC-USD-PERP', '0.01']],
  );
  await again.stop({ snapshot: true });

  // A market appended at the end: accepted, and recorded as in use.
  const added = { ...MARKETS[0], symbol: 'DOGE-USD-PERP', oracleFeedId: '0x01', tickSize: '0.00001', lotSize: '1', minSize: '1', initialPrice: '0.1' };
  const grown = await startOn(dataDir, marketsFile(dataDir, 'grown', [...MARKETS, added]));
  assert.deepEqual((await positions(grown, alice)).map((p) => [p.symbol, p.quantity]), [['BTC-USD-PERP', '0.01']]);
  const bid = await alice.place({ symbol: 'DOGE-USD-PERP', price: '0.09', quantity: '100' });
  assert.equal(bid.status, 200, bid.text);
  assert.deepEqual(bid.json().map((o: { symbol: string; status: string }) => [o.symbol, o.status]), [['DOGE-USD-PERP', 'new']]);
  assert.deepEqual(
    JSON.parse(readFileSync(join(dataDir, MARKETS_IN_USE_FILE), 'utf8')).markets.map((m: MarketEntry) => m.symbol),
    [...MARKETS.map((m) => m.symbol), 'DOGE-USD-PERP'],
  );
});

test('a fee changed after a crash: the records after the snapshot replay under the fee they were charged, the new fee applies from this start on — and a rebuild from seq 1 and `journal verify --replay` find the same', async (t) => {
  const dataDir = tempDataDir(t, 'perp-markets-fee-');
  const original = marketsFile(dataDir, 'original', MARKETS);
  const first = await startOn(dataDir, original);
  const { alice, bob } = await aliceLongBtc(first);
  const [before] = await positions(first, alice);
  assert.equal(before.fees, '0.475', '0.01 BTC at 95,000, taker fee 0.0005');
  // A stop with no snapshot leaves the journal's records after the last one, as a crash does.
  await first.stop({ snapshot: false });

  // Before the journal recorded its markets this start was refused: its replay would have
  // charged the fill above the new fee.
  const dearer = marketsFile(dataDir, 'dearer', [{ ...MARKETS[0], takerFee: '0.001' }, ...MARKETS.slice(1)]);
  const next = await startOn(dataDir, dearer);
  assert.ok(next.exchange.recovery.commands > 0, 'the records after the snapshot were replayed');
  const [replayed] = await positions(next, alice);
  assert.equal(replayed.fees, before.fees, 'the fill replayed under the fee it was charged');
  const market = (await next.request('GET', '/markets')).json().markets.find((m: MarketEntry) => m.symbol === 'BTC-USD-PERP');
  assert.equal(market.takerFee, '0.001');
  // A fill after the start pays the new fee: 0.01 BTC at 95,000 × 0.001.
  bob.ex = next;
  await bob.login();
  assert.equal((await bob.place({ price: '95000', quantity: '-0.01' })).status, 200);
  assert.equal((await alice.place({ price: '95000', quantity: '0.01' })).status, 200);
  const [after] = await positions(next, alice);
  assert.equal(after.fees, '1.425', 'the old fill kept 0.475, the new one paid 0.95');
  const state = (await next.operator('GET', '/operator/state-hash')).json();
  await next.stop({ snapshot: true });

  // Every snapshot — before the change, and the stop's after it — is the state a replay from seq
  // 1 reaches: the replay switches fees at the journal's markets record, not at its own markets file.
  const run = spawnSync(process.execPath, [...nodeArgsFor('src/journal/cli.ts'), 'verify', '--data-dir', dataDir, '--replay', bundleOf('src/sequencer/replay-target.ts')], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /snapshots matched [1-9]\d*, mismatched 0/);

  // History lost: the start rebuilds it from seq 1 (no snapshot can be used), under the journal's markets.
  rmSync(join(dataDir, 'history'), { recursive: true, force: true });
  const rebuilt = await startOn(dataDir, dearer);
  assert.equal(rebuilt.exchange.recovery.snapshotSeq, 0, 'replayed from seq 1');
  const [again] = await positions(rebuilt, alice);
  assert.equal(again.fees, '1.425');
  const rebuiltState = (await rebuilt.operator('GET', '/operator/state-hash')).json();
  assert.equal(rebuiltState.exchange, state.exchange);
  assert.equal(rebuiltState.money.feesCollected, state.money.feesCollected);
});
