/**
 * A full disk under load, the way an operator meets it: the data directory on a small file
 * system (a tmpfs mounted for the test), filled by something else until the exchange's writes
 * fail, while traders send crossing orders. Then the space comes back and the server is
 * restarted on the same directory.
 *
 * What must hold (docs/journal.md, docs/operations.md "When a thread dies"):
 *  - while the disk is full no write is answered 200 that is not journaled: every order
 *    answered 200 before, during or after is there after the restart, exactly as answered;
 *  - the refusals are 5xx (the journal's failure, or the server stopping), never a 4xx that
 *    blames the client;
 *  - the process does not hang: every request is answered, and it exits with status 70 and
 *    one fatal line naming the write that failed (the journal's or history's);
 *  - a restart while the disk is still full (a process manager's) serves or ends with its
 *    reason, within a bound, and leaves the directory as the next start needs it;
 *  - once there is space again, a restart on the same directory serves, its state is valid
 *    (`/operator/state-hash` problem null), and it takes new orders.
 * Needs root (it mounts a tmpfs); skipped otherwise, with the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fundedTraders, withinBudget, type Trader } from './harness.ts';
import { spawnServerProcess, startServerProcess, type ServerProcess } from './server-process.ts';
import { NEEDS_ROOT, smallDisk } from './small-disk.ts';

const MOUNT_MB = 96;
/** Space left to the exchange once the filler is written: a few thousand orders' journal and history. */
const LEFT_KB = 1536;
/** How long the load may run against the full disk before the test stops it. */
const FULL_FOR_MS = 20_000;
/** An answer later than this counts as the server hanging. */
const ANSWER_WITHIN_MS = 15_000;

/** `request`, or 'hung' when no answer came within ANSWER_WITHIN_MS. */
async function answered<T>(request: Promise<T>): Promise<T | 'hung'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), ANSWER_WITHIN_MS)));
  try {
    return await Promise.race([request, late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Acked {
  trader: number;
  orderId: string;
  clientId: string;
  status: string;
}

test('a full disk under load loses no acknowledged order, refuses with 5xx, and a restart serves once there is space', { timeout: 5 * 60_000 }, async (t) => {
  const disk = smallDisk(t, MOUNT_MB);
  if (disk === null) {
    t.skip(NEEDS_ROOT);
    return;
  }
  const dataDir = join(disk.dir, 'data');
  let server: ServerProcess = await startServerProcess([], { SNAPSHOT_INTERVAL_MS: '500' }, dataDir);
  t.after(() => server.kill('SIGKILL'));
  const traders = await fundedTraders(server.client, 2, '1000000');
  const acked: Acked[] = [];
  const refusals = new Map<string, number>();
  /** Orders that got no answer in time (the load stops there). */
  const hung: string[] = [];
  let counter = 0;
  const lastWords = () => `its last log lines:\n${server.log.slice(-25).map((e) => JSON.stringify(e)).join('\n')}\nstderr: ${server.stderr()}`;

  const load = async (index: number, until: () => boolean) => {
    const trader: Trader = traders[index];
    trader.ex = server.client;
    while (!until()) {
      const buy = index === 0;
      const clientId = `d${++counter}`;
      try {
        const r = await answered(trader.place({ price: '95000', quantity: buy ? '0.0010' : '-0.0010', clientId }));
        if (r === 'hung') {
          hung.push(clientId);
          return;
        }
        if (r.status === 200) {
          const [order] = r.json();
          acked.push({ trader: index, orderId: order.orderId, clientId, status: order.status });
        } else {
          const key = `${r.status} ${r.text.slice(0, 120)}`;
          refusals.set(key, (refusals.get(key) ?? 0) + 1);
        }
      } catch {
        refusals.set('no answer', (refusals.get('no answer') ?? 0) + 1);
        if (server.exit() !== undefined) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };

  // Some orders on a healthy disk, then the disk fills under the load.
  await Promise.all(traders.map((_, i) => load(i, () => acked.length >= 40)));
  const before = acked.length;
  disk.fill(LEFT_KB * 1024);
  const fullSince = Date.now();
  const refused = () => [...refusals.values()].reduce((a, b) => a + b, 0);
  await Promise.all(traders.map((_, i) => load(i, () => server.exit() !== undefined || Date.now() - fullSince > FULL_FOR_MS || refused() > 200)));
  t.diagnostic(`${before} orders acknowledged before the disk filled, ${acked.length - before} after; refusals: ${JSON.stringify(Object.fromEntries(refusals))}; server ${server.exit() ?? 'still running'}`);
  assert.deepEqual(hung, [], `orders with no answer within ${ANSWER_WITHIN_MS} ms while the disk was full; ${lastWords()}`);
  assert.ok(refused() > 0 || server.exit() !== undefined, `the disk never filled for the exchange: ${acked.length} orders acknowledged with ${LEFT_KB} KB left`);
  // The journal's or history's write failed: fatal (docs/operations.md), exit 70 within a few seconds.
  const fatal = await server.untilLogged((e) => e.level === 60, 'the fatal line', ANSWER_WITHIN_MS).catch(() => undefined);
  assert.match(String(fatal?.reason), /^(journal storage failed|history write failed): /, `no fatal line naming the failed write; ${lastWords()}`);
  for (const started = Date.now(); server.exit() === undefined && Date.now() - started < ANSWER_WITHIN_MS; ) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(server.exit(), 'exit code 70', `the server did not end by the documented rule; ${lastWords()}`);
  t.diagnostic(`fatal: ${fatal!.reason}`);
  for (const key of refusals.keys()) assert.ok(key === 'no answer' || key.startsWith('5'), `a full disk was answered as the client's fault: ${key}`);

  // A process manager restarts it at once, on the disk still full: that start may fail, but
  // says why, does not hang, and damages nothing the next start needs.
  const early = spawnServerProcess([], { SNAPSHOT_INTERVAL_MS: '500' }, dataDir);
  const outcome = await answered(early.ready.then(() => 'served', (error: Error) => `refused: ${error.message.slice(0, 300)}`));
  await early.kill('SIGKILL');
  if (outcome !== 'served' && outcome !== 'hung') {
    assert.ok(early.log.some((e) => e.level === 60 && e.msg === 'start failed' && /No space left|Input\/output/.test(String(e.err?.message))), `a start that failed on the full disk logged no fatal line saying why: ${JSON.stringify(early.log.slice(-3))}`);
  }
  t.diagnostic(`a start on the still-full disk: ${outcome}`);
  assert.notEqual(outcome, 'hung', `a start on the full disk neither served nor ended; stderr: ${early.stderr()}`);

  // Space again, and a new one starts on the directory.
  disk.free();
  server = await startServerProcess([], { SNAPSHOT_INTERVAL_MS: '500' }, dataDir);
  for (const a of acked) {
    const trader = traders[a.trader];
    trader.ex = server.client;
    const r = await withinBudget(() => trader.get(`/account/order?orderId=${a.orderId}`));
    assert.equal(r.status, 200, `acknowledged order ${a.orderId} (${a.clientId}) lost after the disk was full: ${r.text}`);
    assert.equal(r.json().clientId, a.clientId);
  }
  const state = (await server.client.operator('GET', '/operator/state-hash')).json();
  assert.equal(state.problem, null, `invariant broken after the restart: ${state.problem}`);
  traders[0].ex = server.client;
  const next = await traders[0].place({ price: '95000', quantity: '0.0010', clientId: 'after' });
  assert.equal(next.status, 200, `the restarted exchange refuses a new order: ${next.text}`);
});
