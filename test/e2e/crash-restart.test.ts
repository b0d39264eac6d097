/**
 * The promise of the journal, tested the hard way: a server process under concurrent signed
 * load is killed with SIGKILL at random moments, restarted on the same data directory, and
 * checked after every restart:
 *  - every order the server acknowledged is there exactly once (same id, same clientId);
 *  - every cancel it acknowledged stuck (the order is cancelled, or had filled before);
 *  - a fill an acknowledgement reported is not undone (settled never goes down);
 *  - the invariants hold (money conserved, positions net to zero, holds consistent: nothing
 *    unacknowledged is half-applied);
 *  - history holds nothing the journal does not: after every kill, before the restart, every
 *    history database equals what projecting the journal up to history's position gives
 *    (`HistoryCheck`), and that position is within the journal;
 *  - and at the end, the state hash of a live server equals the hash after replaying its journal.
 * The server snapshots every 250 ms, so kills also land during snapshots and restarts start
 * from a snapshot plus the journal after it.
 *
 * CRASH_ROUNDS sets the number of kills (default 3, in `npm test`; `npm run test:scale` runs
 * 20); CRASH_SEED replays a run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiClient, fundedTraders } from './harness.ts';
import { startServerProcess } from './server-process.ts';
import { HistoryCheck } from './history-check.ts';
import { seeded } from '../../bench/seeded.ts';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);

interface Acknowledged {
  trader: number;
  orderId: string;
  clientId: string;
  settled: number;
  cancelled: boolean;
}

test(`acknowledged writes survive ${ROUNDS} SIGKILLs under load (seed ${SEED})`, { timeout: 15 * 60_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-crash-'));
  const historyCheck = new HistoryCheck();
  t.after(() => historyCheck.close());
  const rand = seeded(SEED);
  const acked = new Map<string, Acknowledged>();
  /** Snapshots a restart could not use (it fell back to an older one or the whole journal). */
  const unusable: Record<string, unknown>[] = [];
  const started = async () => {
    const s = await startServerProcess([], { SNAPSHOT_INTERVAL_MS: '250' }, dataDir);
    unusable.push(...s.log.filter((e) => e.msg?.startsWith('snapshot does not restore')));
    return s;
  };
  let server = await started();
  const traders = await fundedTraders(server.client, 4, '1000000');
  let clientCounter = 0;

  const verify = async (client: ApiClient, round: number) => {
    // Each trader checks its own orders, paced under the 200 requests/s budget of its account.
    await Promise.all(
      traders.map(async (trader, index) => {
        trader.ex = client;
        for (const a of acked.values()) {
          if (a.trader !== index) continue;
          await new Promise((resolve) => setTimeout(resolve, 6));
          const r = await trader.get(`/account/order?orderId=${a.orderId}`);
          assert.equal(r.status, 200, `round ${round}: acknowledged order ${a.orderId} lost: ${r.text}`);
          const order = r.json();
          assert.equal(order.clientId, a.clientId, `round ${round}: order ${a.orderId} changed clientId`);
          assert.ok(Number(order.settled) >= a.settled, `round ${round}: order ${a.orderId} settled went from ${a.settled} to ${order.settled}`);
          if (a.cancelled) assert.ok(order.status === 'cancelled' || order.status === 'filled', `round ${round}: acknowledged cancel of ${a.orderId} undone (status ${order.status})`);
        }
      }),
    );
    const state = (await client.operator('GET', '/operator/state-hash')).json();
    assert.equal(state.problem, null, `round ${round}: invariant broken after restart: ${state.problem}`);
  };

  /** One trader's load until the server dies: crossing limit orders and cancels. */
  const load = async (index: number, alive: () => boolean) => {
    const trader = traders[index];
    trader.ex = server.client;
    while (alive()) {
      try {
        const mine = [...acked.values()].filter((a) => a.trader === index && !a.cancelled);
        if (mine.length > 0 && rand() < 0.25) {
          const target = mine[Math.floor(rand() * mine.length)];
          const r = await trader.send('DELETE', `/account/order?orderId=${target.orderId}`);
          if (r.status === 200) target.cancelled = true;
          continue;
        }
        const buy = rand() < 0.5;
        const clientId = `c${++clientCounter}`;
        const price = buy ? 95_000 + Math.floor(rand() * 20) : 94_990 + Math.floor(rand() * 20);
        const lots = 1 + Math.floor(rand() * 50);
        const r = await trader.place({ price: String(price), quantity: `${buy ? '' : '-'}${(lots / 10_000).toFixed(4)}`, clientId, ioc: rand() < 0.2 });
        if (r.status === 200) {
          const [order] = r.json();
          acked.set(order.orderId, { trader: index, orderId: order.orderId, clientId, settled: Number(order.settled), cancelled: false });
        }
      } catch {
        return; // the server died under us: what was not acknowledged may or may not have happened
      }
    }
  };

  try {
    for (let round = 1; round <= ROUNDS; round++) {
      let alive = true;
      const loaders = traders.map((_, i) => load(i, () => alive));
      // The kill comes after a random number of this round's orders are acknowledged (5 to 44),
      // then a random 0–200 ms more: a count, not a time, so a loaded machine that answers slowly
      // still kills under load (a 150–850 ms timer once killed a starved server after 1 order).
      const killAt = acked.size + 5 + Math.floor(rand() * 40);
      const giveUpAt = Date.now() + 30_000;
      while (acked.size < killAt && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 200)));
      await server.kill('SIGKILL');
      alive = false;
      await Promise.all(loaders);
      await historyCheck.assertMatches(dataDir);
      server = await started();
      await verify(server.client, round);
    }
    assert.ok(acked.size > ROUNDS, `the load placed too few orders (${acked.size}) to mean anything`);
    const cancels = [...acked.values()].filter((a) => a.cancelled).length;
    const filled = [...acked.values()].filter((a) => a.settled > 0).length;
    t.diagnostic(`${ROUNDS} kills; ${acked.size} acknowledged orders, ${filled} with fills at acknowledgement, ${cancels} acknowledged cancels`);
    t.diagnostic(`snapshots a restart could not use: ${unusable.length === 0 ? 'none' : JSON.stringify(unusable)}`);

    // Exactly once: every acknowledged clientId appears once in its account's order list.
    for (let i = 0; i < traders.length; i++) {
      const trader = traders[i];
      trader.ex = server.client;
      const list = (await trader.get(`/account/orders?account=${trader.address}&subaccountIndex=0&limit=500`)).json();
      const clientIds = [...list.asks, ...list.bids].map((o: { clientId: string }) => o.clientId);
      assert.equal(new Set(clientIds).size, clientIds.length, `trader ${i} has a clientId twice`);
      for (const a of acked.values()) if (a.trader === i && clientIds.length < 500) assert.ok(clientIds.includes(a.clientId), `trader ${i} misses ${a.clientId}`);
    }

    // The state a server stops with equals the state the next one rebuilds from the journal.
    await server.kill('SIGTERM');
    assert.equal(server.exit(), 'exit code 0');
    const stopped = server.logged('stopped')!;
    await historyCheck.assertMatches(dataDir);
    server = await started();
    const replayed = server.logged('journal replayed')!;
    assert.equal(replayed.lastSeq, stopped.lastSeq);
    assert.equal(replayed.stateHash, stopped.stateHash, 'exchange state hash differs after replay');
    assert.deepEqual(replayed.books, stopped.books, 'book hashes differ after replay');
  } finally {
    await server.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
