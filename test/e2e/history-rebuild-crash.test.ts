/**
 * A server killed (SIGKILL) while it rebuilds history from the journal — a format upgrade, or
 * history found damaged or ahead of the journal — loses none of it: the next start finishes the
 * rebuild. The start-up replay writes history in batches as it goes; each batch must bring
 * history's position to the last record it projected, not to the journal's end. Before that, a
 * start killed after its first batch (4,096 records) left history claiming the whole journal:
 * the next start skipped the rest, and the orders, fills and trades after the first few
 * thousand records were gone from GET /account/orders, /account/fills and /trades for good.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { tempDataDir } from './harness.ts';
import { spawnServerProcess } from './server-process.ts';
import { assertHistoryMatchesJournal } from './history-check.ts';
import { crossingLoad, loadAccounts } from './crossing-load.ts';
import { seeded } from '../../bench/seeded.ts';

const RECORDS = 30_000;
const ENV = { SNAPSHOT_INTERVAL_MS: '0' };

test(`SIGKILL during a history rebuild from a journal of ${RECORDS} records: the next start projects what the killed one did not`, { timeout: 5 * 60_000 }, async (t) => {
  const dataDir = tempDataDir(t, 'perp-history-rebuild-crash-');
  const first = await spawnServerProcess([], ENV, dataDir).ready;
  t.after(() => first.kill('SIGKILL'));
  const accounts = await loadAccounts(first.client, 8);
  let lastSeq = 0;
  let acked = 0;
  const load = crossingLoad(first.client, accounts, 8, seeded(310_001), () => lastSeq >= RECORDS, () => acked++);
  while (lastSeq < RECORDS) {
    await Promise.race([load, new Promise((resolve) => setTimeout(resolve, 300))]);
    lastSeq = (await first.client.operator('GET', '/operator/state-hash')).json().lastSeq;
  }
  await load;
  const trades = async (client: typeof first.client) => (await client.request('GET', '/trades/BTC-USD-PERP?limit=1000')).json();
  const tradesBefore = await trades(first.client);
  await first.stop(true);

  // History gone (as a rebuild begins): the start replays the journal from seq 1 into a new one.
  // How long that replay takes, measured on one start, places the kill in the next.
  rmSync(join(dataDir, 'history'), { recursive: true, force: true });
  const measured = await spawnServerProcess([], ENV, dataDir).ready;
  const replayMs = measured.logged('journal replayed')!.time - measured.logged('replaying journal')!.time;
  await measured.kill('SIGKILL');

  let landed = false;
  for (const fraction of [0.6, 0.4, 0.8, 0.3, 0.9]) {
    rmSync(join(dataDir, 'history'), { recursive: true, force: true });
    const starting = spawnServerProcess([], ENV, dataDir);
    const killed = new Promise<void>((resolve) => starting.onLog((e) => e.msg === 'replaying journal' && setTimeout(() => void starting.kill('SIGKILL').then(resolve), replayMs * fraction)));
    await Promise.race([killed, starting.ready.then(() => {}, () => {})]);
    await starting.kill('SIGKILL');
    if (starting.log.some((e) => e.msg === 'journal replayed')) continue;
    const { projectedSeq } = await assertHistoryMatchesJournal(dataDir);
    if (projectedSeq === 0) continue;
    landed = true;
    t.diagnostic(`killed ${Math.round(replayMs * fraction)} ms into a ${replayMs} ms replay, history at seq ${projectedSeq} of ${lastSeq}`);
    break;
  }
  assert.ok(landed, 'no kill landed in the replay after its first history batch');

  const restarted = await spawnServerProcess([], ENV, dataDir).ready;
  t.after(() => restarted.kill('SIGKILL'));
  assert.deepEqual(await trades(restarted.client), tradesBefore, 'GET /trades answers as before the rebuild');
  await restarted.stop(true);
  const { projectedSeq, lastSeq: end } = await assertHistoryMatchesJournal(dataDir);
  assert.equal(projectedSeq, end, 'history has projected the whole journal');
  t.diagnostic(`${acked} acknowledged orders, journal of ${end} records`);
});
