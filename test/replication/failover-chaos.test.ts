/**
 * Seeded failover chaos: a `--durability replicated` primary and one or two standbys (every node
 * replicated: a promoted standby acknowledges as the primary did) on one or three NATS nodes
 * (`--nats-replicas` = the node count), a short lease; traders send signed orders, cancels (by
 * clientId) and transfers (subaccount 0 → 1, each a unique amount) continuously and
 * concurrently, following 421's `X-Primary-URL` and GET /cluster to whoever leads, while a
 * schedule drawn from the seed injects one fault a round:
 *   - the primary paused (SIGSTOP) shorter than the lease, then resumed: nothing changes hands;
 *   - the primary paused longer than the lease, then resumed: a standby takes over and the old
 *     primary comes back deposed, following as a standby (docs/replication.md, "Frozen and resumed");
 *   - the primary killed (SIGKILL), and started again later as `--role standby` on its own data
 *     directory. docs/replication.md ("Restarted"): a standby started by the operator refuses a
 *     data directory whose journal is not a prefix of the stream (exit 1) — a killed primary's
 *     journaled-but-unshipped tail — and the operator starts it on a fresh one: so does the test,
 *     and says so;
 *   - a NATS node paused (SIGSTOP/SIGCONT) or killed and started again.
 * After each round, once one node has said `primary` (its lease its own) and every other live
 * node `standby` for a lease time: writes are acknowledged again, and every write acknowledged
 * so far is on that primary. At the end, with the traffic stopped:
 *   - every request answered 200 is on the final primary: an order by its clientId (with the
 *     acknowledged orderId) in GET /account/orders, a cancel as that order `cancelled`, a
 *     transfer in both subaccounts' transfer histories;
 *   - every request answered 4xx — 421 included: docs/replication.md says a write refused with
 *     421 was not taken (its records were refused, or never journaled) — had no effect: the
 *     order absent (or `rejected`), the cancel's order not cancelled, the transfer in neither
 *     history;
 *   - a request with no answer (connection closed, no reply within the client's patience) or a
 *     5xx: either fully there or fully absent (a transfer in both histories or neither);
 *   - each subaccount 1's collateral is the sum of its incoming transfers (balances agree with
 *     the histories);
 *   - every live node reaches the primary's journal seq with the same state hash
 *     (assertSameState), and GET /operator/state-hash has `problem: null`;
 *   - no node exited but those the test killed (or the documented refusal above).
 * The checks read the primary while it stays the primary: a node deposed while it was read
 * (a takeover under way) is read again once the next one has settled.
 *
 * FAILOVER_CHAOS_SEED (default: the clock), FAILOVER_CHAOS_ROUNDS (default 4),
 * FAILOVER_CHAOS_NATS (1 or 3; default drawn), FAILOVER_CHAOS_STANDBYS (1 or 2; default drawn),
 * FAILOVER_CHAOS_LOG_DIR (every process's log and the requests, written there at the end).
 * The fault schedule and the topology are the seed's (the topology is drawn even when the
 * environment sets it, so the faults stay the seed's); what the traders send around them
 * depends on timing too, so a seed repeats the faults exactly and the traffic only in kind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fundedTraders, withinBudget, type ApiClient, type Reply, type Trader } from '../e2e/harness.ts';
import type { StartingServerProcess } from '../e2e/server-process.ts';
import { BTC, sleep, signedTransfer, typedData } from '../harness/api-helpers.ts';
import { seeded } from '../../bench/seeded.ts';
import { startNats } from './nats-servers.ts';
import { assertSameState, spawnNode, untilLeading } from './nodes.ts';

const SEED = Number(process.env.FAILOVER_CHAOS_SEED ?? Date.now() % 1_000_000_000);
const ROUNDS = Number(process.env.FAILOVER_CHAOS_ROUNDS ?? 4);
const LEASE_MS = 1500;
const TRADERS = 4;
/** How long a client waits for an answer before it counts the request's outcome unknown and moves on (a late answer is still recorded). */
const PATIENCE_MS = 8000;
/** How long the cluster may take to have one primary again after a fault ends. */
const HEAL_MS = 45_000;
/**
 * How long one primary with every other node a standby must last to count: a standby that saw
 * no renewal during a fault takes the lease, if it does, within a lease time of the fault's end.
 */
const SETTLED_MS = LEASE_MS;

type Outcome = number | 'pending' | 'closed' | 'unsent';

interface Sent {
  kind: 'order' | 'cancel' | 'transfer';
  trader: number;
  /** order: its clientId; cancel: the clientId cancelled; transfer: its amount. */
  key: string;
  node: string;
  round: number;
  at: number;
  outcome: Outcome;
  /** When the outcome came (ms): a check reads only what was answered before it began. */
  answeredAt: number;
  text: string;
  orderId?: string;
}

interface Member {
  name: string;
  port: number;
  url: string;
  client: ApiClient;
  proc: StartingServerProcess;
  /** Killed by the test (no longer expected to run). */
  killed: boolean;
  /** Every process this member has run, for the report. */
  lives: StartingServerProcess[];
}

/** The primary as the cluster agrees on it, and its lease holder id: a node that loses the lease never holds it again under that id. */
interface Leader {
  m: Member;
  holder: string;
}

/** A clear number of micro-USD from a decimal string. */
const micros = (amount: string): bigint => {
  const [whole, frac = ''] = amount.split('.');
  return BigInt(whole) * 1_000_000n + BigInt((frac + '000000').slice(0, 6));
};

test(`failover chaos: ${ROUNDS} rounds of primary and NATS faults under signed orders, cancels and transfers; nothing answered 200 is lost (seed ${SEED})`, { timeout: 20 * 60_000 }, async (t) => {
  const rand = seeded(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const between = (lo: number, hi: number) => Math.round(lo + rand() * (hi - lo));
  const drawn = { nats: pick([1, 3]), standbys: pick([1, 2]) };
  const natsSize = Number(process.env.FAILOVER_CHAOS_NATS ?? drawn.nats);
  const standbys = Number(process.env.FAILOVER_CHAOS_STANDBYS ?? drawn.standbys);
  const sent: Sent[] = [];
  const members: Member[] = [];
  let sending = true;
  // Registered before startNats's hook, so it runs first: the traders stop before the nodes and servers do.
  t.after(() => {
    sending = false;
  });
  const nats = await startNats(natsSize);
  const began = Date.now();
  const journal: string[] = [];
  const note = (line: string) => void journal.push(`${((Date.now() - began) / 1000).toFixed(1)}s ${line}`);
  const report = () => `seed ${SEED} (FAILOVER_CHAOS_SEED=${SEED} FAILOVER_CHAOS_ROUNDS=${ROUNDS} FAILOVER_CHAOS_NATS=${natsSize} FAILOVER_CHAOS_STANDBYS=${standbys}); what happened:\n${journal.join('\n')}`;
  note(`${natsSize} NATS node(s), 1 primary + ${standbys} standby(s), lease ${LEASE_MS} ms`);
  // FAILOVER_CHAOS_LOG_DIR: every process's JSON log and the test's own account of the run, written there as the test ends.
  const logDir = process.env.FAILOVER_CHAOS_LOG_DIR;
  if (logDir !== undefined) {
    t.after(() => {
      mkdirSync(logDir, { recursive: true });
      for (const m of members) m.lives.forEach((life, i) => writeFileSync(join(logDir, `${m.name}${i}.log`), life.log.map((e) => JSON.stringify(e)).join('\n') + `\nexit ${life.exit()} stderr ${life.stderr()}\n`));
      writeFileSync(join(logDir, 'test.log'), report() + '\n\n' + sent.map((s) => JSON.stringify(s)).join('\n'));
    });
  }

  const common = { nats, durability: 'replicated' as const, leaseMs: LEASE_MS, natsReplicas: natsSize, env: { MARKET_THREADS: '1', SIGNATURE_THREADS: '1' } };
  /** `proc` is `m`'s process from now on (a restart on its port), expected to run; resolves once it is ready. */
  const live = async (m: Member, proc: StartingServerProcess) => {
    m.proc = proc;
    m.lives.push(proc);
    m.killed = false;
    return proc.ready;
  };
  const member = async (name: string, role: 'primary' | 'standby'): Promise<Member> => {
    const proc = await spawnNode({ ...common, role });
    const m: Member = { name, port: proc.port, url: `http://127.0.0.1:${proc.port}`, client: proc.client, proc, killed: false, lives: [proc] };
    members.push(m);
    return m;
  };
  // The primary first (it makes the stream and takes the lease), then the standbys.
  const first = await member('A', 'primary');
  await untilLeading(first.proc);
  for (let i = 0; i < standbys; i++) await member('BC'[i], 'standby');
  await Promise.all(members.map((m) => m.proc.ready));

  const byUrl = (url: string | null | undefined) => members.find((m) => m.url === url);
  const tell = (m: Member, lines = 15) =>
    `${m.name} (${m.url}, pid ${m.proc.pid}): exit ${m.proc.exit() ?? 'running'}; stderr ${m.proc.stderr().slice(-600)}; last log lines:\n${m.proc.log.slice(-lines).map((e) => JSON.stringify(e)).join('\n')}`;
  const everyone = () => `${members.map((m) => tell(m)).join('\n\n')}\n${report()}`;

  /** GET /cluster of every member (null when it does not answer, or is not running). */
  const clusterViews = async () =>
    Promise.all(
      members.map(async (m) => {
        if (m.proc.exit() !== undefined) return { m, view: null as any };
        const reply = await Promise.race([m.client.request('GET', '/cluster').catch(() => null), sleep(1500).then(() => null)]);
        return { m, view: reply !== null && reply.status === 200 ? reply.json() : null };
      }),
    );

  /** One look for the primary, shared by every client that asks meanwhile (a node serves 200 public reads a second per source address). */
  let looking: Promise<Member | undefined> | null = null;
  const findPrimary = (): Promise<Member | undefined> => {
    looking ??= (async () => {
      try {
        const views = await clusterViews();
        const leading = views.filter(({ view }) => view?.role === 'primary');
        // A node resumed from a pause may still call itself primary until it renews: the lease names the holder.
        return (leading.find(({ m, view }) => view.lease?.url === m.url) ?? leading[0])?.m;
      } finally {
        await sleep(150);
        looking = null;
      }
    })();
    return looking;
  };

  // ── Traffic ────────────────────────────────────────────────────────────────────────────────
  const traders = await fundedTraders(first.client, TRADERS, '1000000');
  // Transfers are signed with the EIP-712 domain of the trader's `ex` (typedData, read once per
  // client): every node publishes the same one, so it stays the first primary's, read now.
  await typedData(first.client);
  let round = 0;
  const acksAfter = (at: number) => sent.filter((s) => s.outcome === 200 && s.at >= at).length;
  const traffic = traders.map(async (trader, n) => {
    const trand = seeded(SEED * 31 + n + 1);
    const buyer = n % 2 === 0;
    let ordinal = 0;
    let transfers = 0;
    /** Orders this trader believes open (acknowledged or unknown), by clientId: what it cancels. */
    const resting: string[] = [];
    let ex = first;
    const send = async (kind: Sent['kind'], key: string, request: () => Promise<Reply>, orderIdOf?: (r: Reply) => string | undefined) => {
      const entry: Sent = { kind, trader: n, key, node: ex.name, round, at: Date.now(), outcome: 'pending', answeredAt: Infinity, text: '' };
      sent.push(entry);
      const answered = request().then(
        (reply) => {
          entry.outcome = reply.status;
          entry.answeredAt = Date.now();
          entry.text = reply.text.slice(0, 300);
          if (reply.status === 200 && orderIdOf) entry.orderId = orderIdOf(reply);
          return reply;
        },
        (error: NodeJS.ErrnoException) => {
          // Refused to connect: nothing was sent. Anything else: the connection closed under it.
          entry.outcome = error.code === 'ECONNREFUSED' ? 'unsent' : 'closed';
          entry.answeredAt = Date.now();
          entry.text = String(error.code ?? error.message);
          return null;
        },
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      const reply = await Promise.race([answered, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), PATIENCE_MS)))]);
      clearTimeout(timer);
      if (reply === undefined || reply === null) {
        const found = await findPrimary();
        if (found !== undefined) ex = found;
        else await sleep(100);
        return entry;
      }
      if (reply.status === 421) {
        const named = byUrl(reply.headers.get('x-primary-url'));
        if (named !== undefined && named !== ex) ex = named;
        else {
          await sleep(100);
          ex = (await findPrimary()) ?? ex;
        }
      } else if (reply.status === 429) {
        await sleep(Number(reply.headers.get('retry-after') ?? '1') * 1000);
      } else if (reply.status >= 500) {
        await sleep(100);
        ex = (await findPrimary()) ?? ex;
      }
      return entry;
    };
    while (sending) {
      const r = trand();
      if (r < 0.55 || resting.length === 0) {
        const clientId = `t${n}-${ordinal++}`;
        // Half cross near 95,000 (fills), half rest far from it (the cancels' targets).
        const crossing = trand() < 0.5;
        const price = crossing ? 95_000 + (buyer ? 1 : -1) * Math.floor(trand() * 4) : buyer ? 90_000 - Math.floor(trand() * 50) : 100_000 + Math.floor(trand() * 50);
        const body = await trader.signedOrder({ price: String(price), quantity: buyer ? '0.001' : '-0.001', clientId });
        const entry = await send('order', clientId, () => ex.client.request('POST', '/account/order', body, trader.auth()), (reply) => reply.json()[0]?.orderId);
        if (!crossing && (entry.outcome === 200 || typeof entry.outcome !== 'number')) resting.push(clientId);
      } else if (r < 0.8) {
        const clientId = resting.splice(Math.floor(trand() * resting.length), 1)[0];
        await send('cancel', clientId, () => ex.client.request('DELETE', `/account/order?clientId=${clientId}&account=${trader.address}`, undefined, trader.auth()));
      } else {
        // A unique amount per transfer: 1.000001, 1.000002, … (the minimum is 1 USD).
        const amount = `1.${String(++transfers).padStart(6, '0')}`;
        const body = await signedTransfer(trader, { accountTo: trader.address, subaccountIndexTo: 1, amount });
        await send('transfer', amount, () => ex.client.request('POST', '/account/transfer', body, trader.auth()));
      }
      await sleep(Math.floor(trand() * 30));
    }
  });

  // ── Checks ─────────────────────────────────────────────────────────────────────────────────
  /** Fails unless every member still expected to run does. */
  const assertAlive = () => {
    for (const m of members) if (!m.killed) assert.equal(m.proc.exit(), undefined, `node ${m.name} exited unexpectedly: ${tell(m, 30)}\n${report()}`);
  };

  /** Waits until one live node has said primary (its lease its own) and every other live node standby for SETTLED_MS. */
  const settled = async (what: string): Promise<Leader> => {
    const since = Date.now();
    let leader: Leader | null = null;
    let leaderSince = 0;
    for (;;) {
      assertAlive();
      const views = (await clusterViews()).filter(({ m }) => !m.killed);
      const primaries = views.filter(({ m, view }) => view?.role === 'primary' && view.lease?.url === m.url);
      const one = primaries.length === 1 && views.every(({ m, view }) => m === primaries[0].m || view?.role === 'standby') ? { m: primaries[0].m, holder: primaries[0].view.lease.holder } : null;
      if (one === null || one.holder !== leader?.holder) {
        leader = one;
        leaderSince = Date.now();
      } else if (Date.now() - leaderSince >= SETTLED_MS) {
        note(`settled after ${what} in ${Date.now() - since} ms: ${views.map(({ m, view }) => `${m.name}=${view.role}@${view.appliedSeq ?? view.lastSeq}`).join(' ')}`);
        return one;
      }
      if (Date.now() - since > HEAL_MS) assert.fail(`no single primary with every other node a standby ${HEAL_MS} ms after ${what}: ${views.map(({ m, view }) => `${m.name}: ${JSON.stringify(view)}`).join('; ')}\n${everyone()}`);
      await sleep(250);
    }
  };

  /** Every order of a trader's subaccount 0, by clientId (the newest for each), the transfers of both subaccounts, and subaccount 1's collateral. */
  const readAccount = async (node: ApiClient, trader: Trader) => {
    const pages = async (path: string, each: (page: any) => void) => {
      for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
        const page: Reply = await withinBudget(() => node.request('GET', `${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, trader.auth()));
        assert.equal(page.status, 200, page.text);
        each(page.json());
        cursor = page.headers.get('x-next-cursor');
      }
    };
    const orders = new Map<string, any>();
    await pages(`/account/orders?account=${trader.address}&subaccountIndex=0&createdFrom=0&limit=500`, ({ bids, asks }) => {
      for (const o of [...bids, ...asks]) {
        if (o.clientId === null) continue;
        assert.ok(!orders.has(o.clientId) || orders.get(o.clientId).orderId === o.orderId, `clientId ${o.clientId} names two orders: ${JSON.stringify(orders.get(o.clientId))} and ${JSON.stringify(o)}\n${report()}`);
        orders.set(o.clientId, o);
      }
    });
    const transfers = async (subaccountIndex: number, direction: 'in' | 'out') => {
      const amounts: string[] = [];
      // As the API writes them ("1.00001"), compared as the amounts sent ("1.000010").
      await pages(`/account/transfer/history?account=${trader.address}&subaccountIndex=${subaccountIndex}&direction=${direction}&limit=5000`, (page) => amounts.push(...page.transfers.map((x: any) => String(micros(x.amount)))));
      return amounts;
    };
    const out = await transfers(0, 'out');
    const into = await transfers(1, 'in');
    const balance = await withinBudget(() => node.request('GET', `/account/balance?account=${trader.address}&subaccountIndex=1`, undefined, trader.auth()));
    const collateral = balance.status === 200 ? balance.json().collateral : '0';
    return { orders, out, into, collateral };
  };

  /** The request log against what `node` holds: what it got wrong, and how many requests were judged. `final`: also what was refused and what is unknown. */
  const problemsOn = async (node: Member, final: boolean) => {
    const problems: string[] = [];
    let checked = 0;
    for (const [n, trader] of traders.entries()) {
      const readFrom = Date.now();
      const { orders, out, into, collateral } = await readAccount(node.client, trader);
      const outSet = new Set(out);
      const inSet = new Set(into);
      const mine = sent.filter((s) => s.trader === n);
      for (const s of mine) {
        const what = `trader ${n} ${s.kind} ${s.key} sent to ${s.node} in round ${s.round} answered ${s.outcome} ${JSON.stringify(s.text.slice(0, 160))}`;
        const refused = typeof s.outcome === 'number' && s.outcome >= 400 && s.outcome < 500;
        const known = s.outcome === 200 || refused || s.outcome === 'unsent';
        // Mid-run the traffic goes on: only what was acknowledged before the reads is judged.
        if (!final && (s.outcome !== 200 || s.answeredAt >= readFrom)) continue;
        checked++;
        if (s.kind === 'order') {
          const order = orders.get(s.key);
          if (s.outcome === 200) {
            if (order === undefined) problems.push(`${what}: acknowledged, and not on ${node.name}`);
            else if (s.orderId !== undefined && order.orderId !== s.orderId) problems.push(`${what}: acknowledged as ${s.orderId}, on ${node.name} as ${order.orderId}`);
          } else if (known && order !== undefined && order.status !== 'rejected') problems.push(`${what}: refused, yet on ${node.name}: ${JSON.stringify(order)}`);
        } else if (s.kind === 'cancel') {
          // Each clientId is cancelled once at most (a trader forgets an order as it sends its cancel).
          const order = orders.get(s.key);
          if (s.outcome === 200 && order?.status !== 'cancelled') problems.push(`${what}: acknowledged, and the order is ${order?.status ?? 'absent'} on ${node.name}`);
          if (known && s.outcome !== 200 && order?.status === 'cancelled') problems.push(`${what}: refused, yet its order is cancelled on ${node.name} (reason ${order.reason})`);
        } else {
          const key = String(micros(s.key));
          const there = [outSet.has(key), inSet.has(key)];
          if (there[0] !== there[1]) problems.push(`${what}: half there (out of subaccount 0: ${there[0]}, into subaccount 1: ${there[1]})`);
          if (s.outcome === 200 && !there[1]) problems.push(`${what}: acknowledged, and not on ${node.name}`);
          if (known && s.outcome !== 200 && there[1]) problems.push(`${what}: refused, yet on ${node.name}`);
        }
      }
      if (final) {
        const sum = into.reduce((a, x) => a + BigInt(x), 0n);
        if (sum !== micros(collateral)) problems.push(`trader ${n}: subaccount 1 holds ${collateral}, its incoming transfers add up to ${Number(sum) / 1e6}`);
        const ours = new Set(mine.filter((s) => s.kind === 'transfer').map((s) => String(micros(s.key))));
        for (const amount of into) if (!ours.has(amount)) problems.push(`trader ${n}: a transfer of ${Number(amount) / 1e6} nobody sent`);
      }
    }
    return { problems, checked };
  };

  /**
   * The request log checked on the settled primary. Problems read from a node that did not stay
   * the primary while it was read (a takeover began) are not its to answer for: read again from
   * the next settled one. Returns the primary and how many requests were judged.
   */
  const verify = async (what: string, final: boolean): Promise<{ primary: Member; checked: number }> => {
    for (;;) {
      const leader = await settled(what);
      const { problems, checked } = await problemsOn(leader.m, final);
      if (problems.length === 0) return { primary: leader.m, checked };
      const after = await settled(`the reads of ${leader.m.name}`);
      if (after.holder === leader.holder) assert.fail(`${problems.length} problems on ${leader.m.name}:\n${problems.join('\n')}\n${report()}`);
      note(`  ${leader.m.name} was deposed while it was read (${problems.length} problems there): reading ${after.m.name}`);
    }
  };

  // ── Faults ─────────────────────────────────────────────────────────────────────────────────
  type Fault = 'pause-primary-short' | 'pause-primary-long' | 'kill-primary' | 'pause-nats' | 'kill-nats';
  const FAULTS: Fault[] = ['pause-primary-short', 'pause-primary-long', 'kill-primary', 'pause-nats', 'kill-nats'];
  let primary = (await settled('the start')).m;
  t.diagnostic(`seed ${SEED}: ${natsSize} NATS node(s), ${standbys} standby(s)`);

  /** The primary killed earlier, started again as a standby on its own data directory — or, refused there as documented, on a fresh one. */
  const restartAsStandby = async (m: Member) => {
    try {
      await live(m, await spawnNode({ ...common, role: 'standby', port: m.port, dataDir: m.proc.dataDir }));
      note(`${m.name} restarted as a standby on its own data directory`);
    } catch {
      const stderr = m.proc.stderr();
      // docs/replication.md, "Restarted": a standby started by the operator refuses a data
      // directory whose journal is not a prefix of the stream — a killed primary's journaled,
      // never-shipped tail (no reply waited on it only under replicated durability, and only
      // the process that wrote it knew) — and is started on a new data directory.
      assert.ok(m.proc.exit() === 'exit code 1' && /Cannot start: .*(never shipped|diverged)/s.test(stderr), `${m.name} did not start again as a standby on its own data directory: ${tell(m, 30)}\n${report()}`);
      note(`${m.name} refused its own data directory as a standby (documented: journal not a prefix of the stream): ${stderr.split('\n').find((l) => l.includes('Cannot start'))?.slice(0, 200)}; started on a fresh one`);
      await live(m, await spawnNode({ ...common, role: 'standby', port: m.port, dataDir: mkdtempSync(join(tmpdir(), 'perp-chaos-standby-')) }));
    }
  };

  for (round = 1; round <= ROUNDS; round++) {
    await sleep(between(1000, 3000));
    const fault = pick(FAULTS);
    const faultAt = Date.now();
    note(`round ${round}: ${fault} (primary ${primary.name}; ${sent.length} requests so far, ${acksAfter(0)} acknowledged)`);
    if (fault === 'pause-primary-short' || fault === 'pause-primary-long') {
      const ms = fault === 'pause-primary-short' ? between(LEASE_MS * 0.2, LEASE_MS * 0.6) : between(LEASE_MS * 1.5, LEASE_MS * 3);
      process.kill(primary.proc.pid, 'SIGSTOP');
      await sleep(ms);
      process.kill(primary.proc.pid, 'SIGCONT');
      note(`  ${primary.name} paused ${ms} ms`);
    } else if (fault === 'kill-primary') {
      const victim = primary;
      victim.killed = true;
      await victim.proc.kill('SIGKILL');
      const downMs = between(0, 4000);
      note(`  ${victim.name} killed; restarted as a standby in ${downMs} ms`);
      await sleep(downMs);
      await restartAsStandby(victim);
    } else {
      const node = pick(nats.nodes);
      const ms = between(LEASE_MS * 0.3, LEASE_MS * 2.5);
      if (fault === 'pause-nats') {
        node.signal('SIGSTOP');
        await sleep(ms);
        node.signal('SIGCONT');
      } else {
        await node.kill();
        await sleep(ms);
        await node.start();
      }
      note(`  NATS ${node.name} ${fault === 'pause-nats' ? 'paused' : 'down'} ${ms} ms`);
    }
    // The traders are writing again (a client follows 421 and GET /cluster to the new primary).
    const resumed = Date.now();
    while (acksAfter(resumed) < TRADERS && Date.now() - resumed < HEAL_MS) await sleep(100);
    assert.ok(acksAfter(resumed) >= TRADERS, `writes acknowledged again within ${HEAL_MS} ms of round ${round}: ${acksAfter(resumed)}\n${everyone()}`);
    const verified = await verify(`round ${round} (${fault})`, false);
    primary = verified.primary;
    note(`  writes acknowledged again ${resumed - faultAt} ms after the fault began; ${verified.checked} acknowledged writes checked on ${primary.name}`);
  }

  sending = false;
  await Promise.all(traffic);
  // Late answers (a reply held by a paused node) are still recorded; what has none by now stays unknown.
  for (const end = Date.now() + 15_000; sent.some((s) => s.outcome === 'pending') && Date.now() < end; ) await sleep(100);
  primary = (await settled('the end of the traffic')).m;

  // Every live node at the primary's seq with the same state, and the primary's invariants hold.
  const paths = [`/book/${BTC}?depth=100`, `/account/orders?account=${traders[0].address}&subaccountIndex=0`, `/account/balance?account=${traders[0].address}&subaccountIndex=0`];
  for (const m of members) {
    if (m === primary || m.killed) continue;
    try {
      await assertSameState(primary.client, m.client, paths, traders[0].auth(), 30_000);
    } catch (error) {
      assert.fail(`${m.name} and the primary ${primary.name} differ: ${(error as Error).message}\n${tell(m)}\n${report()}`);
    }
  }
  const hash = (await primary.client.operator('GET', '/operator/state-hash')).json();
  assert.equal(hash.problem, null, `the primary's invariants: ${JSON.stringify(hash)}\n${report()}`);
  const { checked } = await verify('the end of the traffic', true);
  assertAlive();

  const count = (f: (s: Sent) => boolean) => sent.filter(f).length;
  const figures =
    `${sent.length} requests: ${count((s) => s.outcome === 200)} answered 200, ${count((s) => s.outcome === 421)} 421, ` +
    `${count((s) => typeof s.outcome === 'number' && s.outcome >= 400 && s.outcome !== 421)} other 4xx, ${count((s) => typeof s.outcome === 'number' && s.outcome >= 500)} 5xx, ` +
    `${count((s) => s.outcome === 'closed')} closed, ${count((s) => s.outcome === 'unsent')} refused connections, ${count((s) => s.outcome === 'pending')} never answered; ${checked} checked; ` +
    `final primary ${primary.name} at seq ${hash.lastSeq}`;
  note(figures);
  t.diagnostic(`seed ${SEED}: ${figures}`);
  for (const line of journal) t.diagnostic(line);
});
