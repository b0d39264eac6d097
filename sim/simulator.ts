/**
 * @module sim/simulator
 *
 * One seed of the deterministic simulation (docs/simulator.md): simulated users submit
 * commands to a `SimNode` through the real sequencer; market threads, journal flushes,
 * snapshot saves and faults (crash, power loss with a torn write, slow flushes, an interrupted
 * snapshot) happen when the seed's generator says. After every crash the node restarts from
 * what storage holds and the checks run; any broken check stops the seed with a `Violation`
 * naming the step and a one-line reproduction.
 *
 * Acknowledgement is production's: a command counts as acknowledged when its `submit` promise
 * resolves (its records flushed, `Journal.durable`); what it reported is what `onComplete`
 * read. The simulator never reads a wall clock: time is the simulated one commands carry.
 *
 * May import: src/, sim/.
 */
import { decodeCommand, encodeCommand, CommandKind, type Command } from '../src/app/commands.ts';
import { payloadView } from '../src/journal/journal.ts';
import { lastJournaledTime } from '../src/sequencer/exchange-time.ts';
import type { ExecuteResult } from '../src/app/codes.ts';
import { isCommandKind } from '../src/app/commands.ts';
import { decodeEvent } from '../src/transport/codec.ts';
import { RecordKind } from '../src/transport/layout.ts';
import { isTerminal, type OrderState } from '../src/app/order-registry.ts';
import { Exchange } from '../src/app/exchange.ts';
import { NO_ROUTER, type ExchangeListeners } from '../src/app/ports.ts';
import { Replay } from '../src/sequencer/recovery.ts';
import { kJournalHeaderBytes } from '../src/journal/record.ts';
import type { MarketSpec } from '../src/config/market.ts';
import { AuthCode } from '../src/auth/codes.ts';
import type { BookListener } from '../src/engine/types.ts';
import { Bounds, type LeverageCheckCounts } from './bounds.ts';
import { Prng } from './prng.ts';
import { CountingLogger, LEDGER_OPTIONS, SimNode, SimSnapshots, marketsText, nextTurn, restoreNewest, settle } from './node.ts';
import { operatorMarketsFile } from './markets-file.ts';
import { startMarkets } from '../src/sequencer/start-state.ts';
import { Clients, USD, initialTicks, type SimContext } from './clients.ts';
import { HONEST, HOSTILE, StrategyTable } from './strategies/index.ts';
import type { OrderId, OwnerIndex } from '../src/types/ids.ts';

export interface SeedOptions {
  seed: number;
  commands: number;
  faults: boolean;
  hostile?: boolean;
  accounts?: number;
  /** Full invariant checks (ledger conservation, registry, conditional books) every this many steps; 1 = every step. */
  checkEvery?: number;
  /** The chance of a crash in each step (default 1/250: one every ~1,600 commands). */
  crashRate?: number;
  /** The chance of a snapshot capture in each step (default 1/50: one every ~330 commands; a restart replays from the newest saved). */
  snapshotRate?: number;
  /** Seeds whose number is a multiple of this end with a replay of the whole journal from nothing (default 10); the others from their newest snapshot. */
  fullReplayEvery?: number;
  /** The chance that the operator starts the process after a crash with a changed markets file (default 0.15; sim/markets-file). */
  marketsChangeRate?: number;
}

export interface SeedResult {
  seed: number;
  commands: number;
  steps: number;
  crashes: number;
  powerLosses: number;
  /** Steps back of the host's clock: while running, and at a restart on a host behind. */
  clockSteps: number;
  tornTails: number;
  snapshotsSaved: number;
  snapshotsInterrupted: number;
  acknowledged: number;
  retried: number;
  recoveredEvents: number;
  hashChecks: number;
  /** How often each leverage check ran (sim/bounds.ts), hostile runs only. */
  leverageChecks: LeverageCheckCounts;
  /** Originator fees the running exchange paid (replays after a restart not counted): the hostile fee siphon's, at its market's ceiling. */
  originatorFeesPaid: number;
  /** Restarts whose markets file the operator changed (sim/markets-file), markets records they journaled (the file differed from the journal's markets), markets appended. */
  marketsChanges: number;
  marketsRecords: number;
  marketsAppended: number;
  /** Markets records (after the journal's first) replayed: by a restart (from its snapshot to the journal's end) or by the end-of-seed replay. */
  marketsReplayed: number;
  /** The exchange's state hash at the end of the seed: the same seed ends on the same hash. */
  stateHash: string;
  violation: Violation | null;
}

export class Violation extends Error {
  constructor(
    readonly seed: number,
    readonly step: number,
    readonly check: string,
    detail: string,
  ) {
    super(`seed ${seed}, step ${step}: ${check}: ${detail}`);
    this.name = 'Violation';
  }
}

/** A submitted command, followed until it is acknowledged or lost in a crash. */
interface Submission {
  command: Command;
  /** Its journal seq (0 when it changed nothing and was not journaled). */
  seq: number;
  result: ExecuteResult | null;
  /** The orders its reply reports, read at completion. */
  orders: { orderId: OrderId; filled: number; status: string }[];
  acknowledged: boolean;
  /** Set on a retry after a crash: the original's seq, and whether the original survived. */
  retryOf: { seq: number; survived: boolean } | null;
}

/** A quiescent point: the exchange's and books' hashes after journal record `seq`, and the markets in force there (`marketsText`: the state hash does not cover them). */
interface Checkpoint {
  seq: number;
  hash: string;
  books: string[];
  markets: string;
}

const T0 = 1_700_000_000_000;
/** With faults: the host's clock steps back now and then while running (an NTP step), by up to an hour. */
const CLOCK_STEP_RATE = 0.003;
/** With faults: how often a crashed node comes back on a host whose clock is behind (a machine's clock, a standby's). */
const RESTART_BEHIND_RATE = 0.3;
const CLOCK_STEP_MAX_MS = 3_600_000;
/** Seeds the clock faults' stream apart from the seed's own (any fork would draw from another stream). */
const CLOCK_STREAM = 0x5c1a_c0c5;
const SIGNED = new Set<number>([CommandKind.SubmitOrder, CommandKind.SubmitPair, CommandKind.SubmitSlices, CommandKind.Transfer, CommandKind.SetMargin, CommandKind.Delegation]);

export async function runSeed(specs: readonly MarketSpec[], options: SeedOptions): Promise<SeedResult> {
  const sim = new Simulation(specs, options);
  try {
    await sim.run();
  } catch (error) {
    sim.result.violation = error instanceof Violation ? error : new Violation(options.seed, sim.step, 'exception', error instanceof Error ? (error.stack ?? error.message) : String(error));
  }
  return sim.result;
}

class Simulation {
  readonly result: SeedResult;
  step = 0;
  private readonly rng: Prng;
  /** Faults draw from their own stream, so turning them off leaves the clients' commands alike. */
  private readonly faultRng: Prng;
  private readonly clients: Clients;
  private readonly table: StrategyTable;
  private readonly logger = new CountingLogger();
  private readonly snapshots = new SimSnapshots();
  /** By market, where its index starts (a market appended at a restart adds its own). */
  private readonly initialTicks: number[];
  private node!: SimNode;
  /** The exchange's time, as the node last gave it: what commands carry and the users read. */
  private time = T0;
  /** The machine's clocks under it (sim/node `SimClock`): the host's, stepped back by the faults, and the steady one. */
  private host = T0;
  private steady = T0;
  private readonly clock = { host: () => this.host, steady: () => this.steady };
  /** The latest command time the journal holds (durably, or appended since the last start): no request expired by then may be accepted. */
  private journaledTime = T0;
  /** The time of the last command record `scanJournal` read: the journal's times never go back. */
  private scannedTime = 0;
  private lastTick = T0;
  private submitted = 0;
  private inflight = new Set<Submission>();
  private acked: Submission[] = [];
  /** Orders that ended during the current step (the registry drops them; a reply reads them here). */
  private readonly finished = new Map<number, { filled: number; status: string }>();
  private readonly listeners: ExchangeListeners;
  /** Money the operator moved, by journal seq: Σ must equal the ledger's net deposits. */
  private moneyLog: { seq: number; delta: bigint }[] = [];
  private checkpoints: Checkpoint[] = [];
  /** Fills per orderId summed over the journal up to `scannedSeq` (all of it durable). */
  private readonly journalFills = new Map<number, number>();
  private scannedSeq = 0;
  private slowTurns = 0;
  private readonly checkEvery: number;
  private readonly crashRate: number;
  private readonly snapshotRate: number;
  private readonly fullReplayEvery: number;
  private readonly addressIndex = new Map<string, number>();
  /** Issue 13's bounds (leverage, the insurance fund's moves), checked with every invariant check. */
  private readonly bounds: Bounds;
  /** A command the exchange must refuse that it accepted (reported at the next check). */
  private wronglyAccepted: string | null = null;
  /** A signed request accepted though the journal's time had passed its expiresAt (reported at the next check). */
  private expiredAccepted: string | null = null;
  /** A restart is replaying the journal: its events were counted when they first happened. */
  private recovering = false;
  /** The operator's markets file: what the next start runs under (a markets record where it differs from the journal's). */
  private file: readonly MarketSpec[];
  /** The markets file the last start ran under (production's storage/markets-in-use). */
  private inUse: readonly MarketSpec[];
  /** The operator's edits draw from a stream of their own. */
  private readonly marketsRng: Prng;
  /** So do the host clock's steps back: seeded apart, so the other faults and the operator's edits fall as they did before them. */
  private readonly clockRng: Prng;
  private readonly marketsChangeRate: number;
  /** Markets in the first file (the operator appends at most `MAX_APPENDED` beyond them). */
  private readonly initialCount: number;
  /** Seqs of the markets records restarts journaled (the journal's first record apart), all durable. */
  private marketsSeqs: number[] = [];

  constructor(
    specs: readonly MarketSpec[],
    private readonly options: SeedOptions,
  ) {
    this.rng = new Prng(options.seed);
    this.faultRng = this.rng.fork();
    this.marketsRng = this.faultRng.fork();
    this.clockRng = new Prng(options.seed ^ CLOCK_STREAM);
    this.marketsChangeRate = options.marketsChangeRate ?? 0.15;
    this.file = specs;
    this.inUse = specs;
    this.initialCount = specs.length;
    this.clients = new Clients(options.accounts ?? 40);
    this.clients.accounts.forEach((a, i) => this.addressIndex.set(a.address, i));
    this.table = new StrategyTable(options.hostile ? [...HONEST, ...HOSTILE] : HONEST);
    this.initialTicks = specs.map(initialTicks);
    this.checkEvery = options.checkEvery ?? 64;
    this.crashRate = options.crashRate ?? 1 / 250;
    this.snapshotRate = options.snapshotRate ?? 1 / 150;
    this.fullReplayEvery = options.fullReplayEvery ?? 10;
    this.bounds = new Bounds(specs);
    this.listeners = {
      orderChanged: (o: OrderState) => {
        if (isTerminal(o.status)) this.finished.set(o.orderId, { filled: o.filled, status: o.status });
      },
      ledgerEvent: (e) => {
        if (e.type === 'balance' && e.reason === 'originatorFee' && !this.recovering) this.result.originatorFeesPaid++;
        this.bounds.onLedgerEvent(e);
      },
    };
    this.result = {
      seed: options.seed,
      commands: 0,
      steps: 0,
      crashes: 0,
      powerLosses: 0,
      clockSteps: 0,
      tornTails: 0,
      snapshotsSaved: 0,
      snapshotsInterrupted: 0,
      acknowledged: 0,
      retried: 0,
      recoveredEvents: 0,
      hashChecks: 0,
      leverageChecks: this.bounds.counts,
      originatorFeesPaid: 0,
      marketsChanges: 0,
      marketsRecords: 0,
      marketsAppended: 0,
      marketsReplayed: 0,
      stateHash: '',
      violation: null,
    };
  }

  private fail(check: string, detail: string): never {
    throw new Violation(this.options.seed, this.step, check, detail);
  }

  async run(): Promise<void> {
    this.node = await SimNode.fresh(this.file, this.listeners, this.logger, this.clock);
    this.time = this.node.now();
    for (const m of this.file) this.submit({ kind: CommandKind.IndexPrice, time: this.time, market: m.index, price: this.initialTicks[m.index] });
    for (const a of this.clients.accounts) this.submit({ kind: CommandKind.Deposit, time: this.time, account: a.address, subaccountIndex: 0, amount: BigInt(this.rng.between(1_000, 50_000)) * USD });
    const ctx = this.context();
    while (this.submitted < this.options.commands) {
      this.step++;
      this.finished.clear();
      this.advanceClock();
      ctx.time = this.time;
      // Where in this step a crash strikes, if one does: after the clients, after the markets, or after the flush.
      const crashAt = this.options.faults && this.faultRng.chance(this.crashRate) ? this.faultRng.below(3) : -1;
      const burst = this.rng.between(1, 12);
      for (let i = 0; i < burst; i++) {
        const command = this.table.pick(this.rng.u32()).next(ctx);
        if (command !== null) this.submit(command);
        for (const next of this.clients.followUps.splice(0)) this.submit(next);
      }
      if (crashAt === 0) {
        await this.crash();
        continue;
      }
      this.runMarkets();
      if (this.rng.chance(this.snapshotRate)) this.snapshot();
      await nextTurn();
      if (crashAt === 1) {
        await this.crash();
        continue;
      }
      this.flushDisk();
      await nextTurn();
      if (this.options.hostile || this.step % this.checkEvery === 0) this.checkLive();
      if (crashAt === 2) await this.crash();
    }
    await this.finish();
  }

  private context(): SimContext & { time: number } {
    const node = () => this.node;
    return {
      rng: this.rng,
      time: this.time,
      // The markets in force (a restart's markets record may have changed them): what the users read of the exchange.
      get markets() {
        return node().specs;
      },
      get exchange() {
        return node().exchange;
      },
      clients: this.clients,
      initialTicks: this.initialTicks,
    };
  }

  /**
   * Milliseconds pass; now and then a long gap (funding intervals, expiries, TWAP slices); the
   * clock ticks every second. With faults the host's clock steps back now and then.
   */
  private advanceClock(): void {
    const passed = this.rng.chance(0.002) ? this.rng.between(60_000, 3_600_000) : this.rng.between(0, 40);
    this.steady += passed;
    this.host += passed;
    if (this.options.faults && this.clockRng.chance(CLOCK_STEP_RATE)) this.stepHostClockBack();
    this.time = this.node.now();
    if (this.time - this.lastTick >= 1000) {
      this.lastTick = this.time;
      // Executed at once unless the sequencer is paused (then it runs later, unchecked).
      if (this.submit({ kind: CommandKind.Tick, time: this.time }).seq > 0) this.bounds.afterTick(this.node.exchange);
    }
  }

  private stepHostClockBack(): void {
    this.host -= this.clockRng.between(1, CLOCK_STEP_MAX_MS);
    this.result.clockSteps++;
  }

  /** Hands `command` to the sequencer as the gateway does, and follows it to its acknowledgement. */
  private submit(command: Command): Submission {
    const journal = this.node.journal;
    const before = journal.lastSeq();
    const s: Submission = { command, seq: 0, result: null, orders: [], acknowledged: false, retryOf: null };
    this.submitted++;
    this.result.commands++;
    this.inflight.add(s);
    // Issue 13's per-command leverage check (hostile runs only, as the other bounds).
    const owner = this.options.hostile ? actingOwner(command, this.node.exchange) : undefined;
    const span = owner === undefined ? null : this.bounds.beforeCommand(this.node.exchange, owner);
    const journaledBefore = this.journaledTime;
    const promise = this.node.sequencer.submit(command, ({ result }) => {
      // Right after it executed (a command without book work): an index price moves a mark with no ledger event.
      this.bounds.watchMarks();
      if (span !== null) this.bounds.afterCommand(span);
      s.result = result;
      if (result.code === 0 && this.clients.mustRefuse.has(command)) this.wronglyAccepted ??= `a ${command.kind} command that must be refused (an order signed by neither the account nor its delegate) was accepted`;
      // A signed request whose expiresAt the journal's time had passed: accepted after the exchange said its time was later.
      const expiresAt = 'expiresAt' in command ? command.expiresAt : 0;
      if (result.code === 0 && expiresAt > 0 && expiresAt <= journaledBefore) this.expiredAccepted ??= `a ${command.kind} command expiring at ${expiresAt} was accepted after the journal's time reached ${journaledBefore}`;
      const ids = result.orderIds ?? (result.orderId !== undefined ? [result.orderId] : []);
      for (const orderId of ids) {
        const live = this.node.exchange.orders.get(orderId);
        const done = this.finished.get(orderId);
        if (live !== undefined) s.orders.push({ orderId, filled: live.filled, status: live.status });
        else if (done !== undefined) s.orders.push({ orderId, ...done });
        this.rememberOrder(command, orderId);
      }
    });
    if (journal.lastSeq() > before) {
      s.seq = before + 1;
      if (command.time > this.journaledTime) this.journaledTime = command.time;
    }
    // A crash drops the node: its promises never settle, and the submission stays in flight.
    promise.then(
      () => {
        s.acknowledged = true;
        this.inflight.delete(s);
        this.acked.push(s);
        this.result.acknowledged++;
        if (s.result!.code === 0 && s.seq > 0) this.logMoney(s);
      },
      (error: unknown) => this.fail('submit', `a command was refused with ${String(error)}`),
    );
    return s;
  }

  /** An order a submission made, kept among its account's recent ones (what a cancel names is known already). */
  private rememberOrder(command: Command, orderId: OrderId): void {
    const address =
      command.kind === CommandKind.SubmitOrder ? command.account
      : command.kind === CommandKind.SubmitPair ? command.takeProfit.account
      : command.kind === CommandKind.SubmitSlices ? command.orders[0].account
      : undefined;
    const index = address === undefined ? undefined : this.addressIndex.get(address);
    if (index !== undefined) this.clients.remember(this.clients.accounts[index], orderId);
  }

  private logMoney(s: Submission): void {
    const c = s.command;
    if (c.kind === CommandKind.Deposit || c.kind === CommandKind.Faucet) this.moneyLog.push({ seq: s.seq, delta: c.amount });
    else if (c.kind === CommandKind.Withdraw) this.moneyLog.push({ seq: s.seq, delta: -c.amount });
  }

  /** Market threads take some of their commands, in an order the seed decides. */
  private runMarkets(): void {
    const node = this.node;
    const n = node.markets.length;
    const first = this.rng.below(n);
    for (let i = 0; i < n; i++) {
      const market = (first + i) % n;
      if (node.markets[market].pending() && this.rng.chance(0.8)) node.runMarket(market, this.rng.between(1, 24));
    }
  }

  /** The group commit lands: all of it, part of it, or — during a slow spell — none of it. */
  private flushDisk(): void {
    const storage = this.node.storage;
    const rng = this.faultRng;
    if (this.options.faults && this.slowTurns === 0 && rng.chance(0.01)) this.slowTurns = rng.between(1, 30);
    if (this.slowTurns > 0) {
      this.slowTurns--;
      return;
    }
    const pending = storage.unflushedWrites();
    storage.flush(this.options.faults && rng.chance(0.2) ? rng.below(pending + 1) : pending);
    const save = this.snapshots.pendingSave;
    if (save !== null && this.node.journal.flushedSeq() >= save.seq && rng.chance(0.3)) {
      this.snapshots.complete();
      this.result.snapshotsSaved++;
    }
  }

  /** A snapshot is captured (at a quiescent point); its save completes in a later turn, or a crash interrupts it. */
  private snapshot(): void {
    if (this.snapshots.pendingSave !== null) return;
    const taken = this.node.captureSnapshot(this.snapshots);
    this.checkpoint(taken);
  }

  private checkpoint(c: Checkpoint): void {
    if (this.checkpoints.length > 0 && this.checkpoints[this.checkpoints.length - 1].seq === c.seq) return;
    this.checkpoints.push(c);
    if (this.checkpoints.length > 16) this.checkpoints.shift();
  }

  /** The invariants of the running exchange: conservation to the unit, the ledger's, the registry's, the conditional books'. */
  private checkLive(): void {
    const exchange = this.node.exchange;
    try {
      exchange.validateInternalState();
      for (const m of this.node.markets) m.book.validateInternalState();
    } catch (error) {
      this.fail('invariant', (error as Error).message);
    }
    this.checkMoney(exchange, Number.MAX_SAFE_INTEGER);
    // Issue 13: no account above its maximum leverage outside the liquidation window; every insurance move accounted for.
    if (this.wronglyAccepted !== null) this.fail('refusal', this.wronglyAccepted);
    if (this.expiredAccepted !== null) this.fail('expiry', this.expiredAccepted);
    if (this.options.hostile) {
      const broken = this.bounds.check(exchange);
      if (broken !== null) this.fail(broken.startsWith('owner') ? 'maximum leverage' : 'insurance fund', broken);
    }
  }

  /** Net deposits in the ledger equal what the operator put in and took out (up to journal seq `upTo`). */
  private checkMoney(exchange: Exchange, upTo: number): void {
    let expected = 0n;
    for (const entry of this.moneyLog) if (entry.seq <= upTo) expected += entry.delta;
    // Commands not acknowledged yet count too when they are in the journal up to `upTo`.
    for (const s of this.inflight) {
      if (s.seq === 0 || s.seq > upTo || s.result === null || s.result.code !== 0) continue;
      const c = s.command;
      if (c.kind === CommandKind.Deposit || c.kind === CommandKind.Faucet) expected += c.amount;
      else if (c.kind === CommandKind.Withdraw) expected -= c.amount;
    }
    if (exchange.ledger.netDeposits !== expected) this.fail('money', `ledger net deposits ${exchange.ledger.netDeposits} ≠ ${expected} deposited − withdrawn`);
  }

  /** A crash at this point: power lost (a prefix of the unflushed writes survives, the next torn) or the process killed. */
  private async crash(): Promise<void> {
    const rng = this.faultRng;
    const storage = this.node.storage;
    const unflushed = storage.unflushedWrites();
    const power = rng.chance(0.6);
    const surviving = power ? rng.below(unflushed + 1) : unflushed;
    const torn = power && rng.chance(0.5) ? rng.below(160) : undefined;
    this.result.crashes++;
    if (power) this.result.powerLosses++;
    const disk = storage.powerLoss({ survivingWrites: surviving, tornBytes: torn });
    this.snapshots.crash(rng);
    const lost = [...this.inflight];
    this.inflight = new Set();
    // The records that survived, as this run appended them (seq → command): a survivor must be journaled as sent.
    const tornBefore = this.logger.tornTails;
    const checkpoints = this.checkpoints;
    let replayedTo: number | undefined;
    // The operator starts the new process with an edited markets file now and then (sim/markets-file).
    if (this.marketsRng.chance(this.marketsChangeRate)) {
      this.file = operatorMarketsFile(this.marketsRng, this.file, this.initialCount);
      this.result.marketsChanges++;
    }
    this.bounds.restarting();
    this.recovering = true;
    if (this.clockRng.chance(RESTART_BEHIND_RATE)) this.stepHostClockBack();
    const { node, report } = await SimNode.start(this.file, this.inUse, disk, this.snapshots, this.listeners, this.logger, this.clock, {
      onRecord: (seq, exchange) => {
        this.bounds.started(exchange);
        const after = seq === Number.MAX_SAFE_INTEGER ? replayedTo : seq - 1;
        if (seq !== Number.MAX_SAFE_INTEGER) replayedTo = seq;
        const c = after === undefined ? undefined : checkpoints.find((k) => k.seq === after);
        if (c === undefined || seq === Number.MAX_SAFE_INTEGER && replayedTo === undefined) return;
        this.result.hashChecks++;
        if (exchange.stateHash() !== c.hash) {
          const parts = exchange.stateHashes();
          this.fail('replay hash', `after journal seq ${c.seq} the replayed exchange hashes ${exchange.stateHash()} but the running one hashed ${c.hash} (parts now ${JSON.stringify(parts)})`);
        }
        // The state hash does not cover the parameters: the replay must be under the markets the running exchange had there.
        if (marketsText(exchange.markets) !== c.markets) this.fail('replay markets', `after journal seq ${c.seq} the replayed exchange runs under other markets than the running one did there`);
      },
      onBadSnapshot: (seq, differ) => this.fail('snapshot', `snapshot at seq ${seq} verifies but restores to a different hash (parts ${differ.join(', ')})`),
      // Every snapshot here was taken of this journal: one skipped as another's is a wrong tie.
      onForeignSnapshot: (_seq, message) => this.fail('snapshot', message),
    });
    this.node = node;
    this.recovering = false;
    this.time = node.now();
    this.journaledTime = lastJournaledTime(node.journal);
    this.result.marketsReplayed += this.marketsSeqs.filter((seq) => seq > report.snapshotSeq && seq <= report.openedSeq).length;
    this.marketsSeqs = this.marketsSeqs.filter((seq) => seq <= report.openedSeq);
    if (report.marketsSeq !== null) {
      this.marketsSeqs.push(report.marketsSeq);
      this.result.marketsRecords++;
    }
    if (marketsText(node.exchange.markets) !== marketsText(this.file)) this.fail('markets', 'the exchange does not run under the markets file it was started with');
    this.inUse = this.file;
    // A market appended: its index starts where the file says (the oracle strategy moves it from there).
    const appended: MarketSpec[] = this.file.slice(this.initialTicks.length);
    for (const m of appended) this.initialTicks.push(initialTicks(m));
    this.result.marketsAppended += appended.length;
    this.result.tornTails += this.logger.tornTails - tornBefore;
    this.result.recoveredEvents += report.recoveredEvents;
    this.result.snapshotsInterrupted = this.snapshots.interrupted;
    const durable = report.openedSeq;
    this.checkAfterRestart(durable, report.recoveredEvents, lost);
    for (const m of appended) this.submit({ kind: CommandKind.IndexPrice, time: this.time, market: m.index, price: this.initialTicks[m.index] });
    // Clients retry what was never acknowledged, with the same signed payload (nonce and all).
    for (const s of lost) {
      if (!SIGNED.has(s.command.kind)) continue;
      const survived = s.seq > 0 && s.seq <= durable;
      const retry = this.submit({ ...s.command, time: this.time } as Command);
      retry.retryOf = { seq: s.seq, survived };
      this.result.retried++;
      this.checkRetry(retry);
    }
  }

  /** Exactly once: a retry of a command that survived is refused; one whose original was lost is not refused as a used nonce. */
  private checkRetry(retry: Submission): void {
    const { survived, seq } = retry.retryOf!;
    if (survived && retry.seq > 0) this.fail('exactly once', `the command at seq ${seq} survived the crash, yet its retry was journaled again at seq ${retry.seq}`);
    const code = retry.result?.code;
    if (!survived && seq > 0 && (code === AuthCode.NonceUsed || code === AuthCode.NonceTooLow)) this.fail('exactly once', `the command journaled at seq ${seq} was lost, yet its retry was refused as a used nonce`);
  }

  /** What a restart must show: every acknowledged write, its promised state, conservation, the invariants. */
  private checkAfterRestart(durable: number, recoveredEvents: number, lost: Submission[]): void {
    const node = this.node;
    const journal = node.journal;
    for (const s of this.acked) {
      if (s.seq === 0) continue;
      if (s.seq > durable) this.fail('acknowledged write', `command ${s.command.kind} acknowledged at seq ${s.seq} is missing (journal ends at ${durable})`);
      const record = node.storage.get(s.seq)!;
      const payload = record.subarray(kJournalHeaderBytes);
      const sent = encodeCommand(s.command);
      if (!equalBytes(payload, sent)) this.fail('acknowledged write', `journal seq ${s.seq} holds a different record than the command acknowledged there`);
    }
    // A surviving unacknowledged command must be the one sent (never another's bytes).
    for (const s of lost) {
      if (s.seq === 0 || s.seq > durable) continue;
      const payload = node.storage.get(s.seq)!.subarray(kJournalHeaderBytes);
      if (!equalBytes(payload, encodeCommand(s.command))) this.fail('journal', `journal seq ${s.seq} holds a record other than the command appended there`);
    }
    // Fills in the journal: every acknowledged order has at least the fills its reply reported.
    this.scanJournal(journal.lastSeq());
    for (const s of this.acked) {
      for (const o of s.orders) {
        const journaled = this.journalFills.get(o.orderId) ?? 0;
        if (journaled < o.filled) this.fail('acknowledged fills', `order ${o.orderId} was acknowledged with ${o.filled} lots filled; the journal holds ${journaled}`);
        const live = node.exchange.orders.get(o.orderId);
        if (live !== undefined && isTerminal(o.status as OrderState['status'])) this.fail('acknowledged status', `order ${o.orderId} was acknowledged ${o.status} but is open again (${live.status}) after the restart`);
        if (live !== undefined && live.filled !== journaled) this.fail('order state', `order ${o.orderId} shows ${live.filled} lots filled; its journal fills sum to ${journaled}`);
      }
    }
    this.acked = [];
    // Book hashes at a checkpoint the journal ends on.
    const last = this.checkpoints.find((c) => c.seq === durable);
    if (last !== undefined && recoveredEvents === 0) {
      node.markets.forEach((m, i) => {
        // A market appended by this start's markets record was not there at the checkpoint.
        if (i < last.books.length && m.book.stateHash() !== last.books[i]) this.fail('book hash', `market ${i}'s rebuilt book differs from the one running at journal seq ${durable}`);
      });
    }
    // Checkpoints beyond the journal's end were lost with the crash.
    this.checkpoints = this.checkpoints.filter((c) => c.seq <= durable);
    this.moneyLog = this.moneyLog.filter((e) => e.seq <= durable);
    for (const s of lost) {
      if (s.seq === 0 || s.seq > durable || s.result === null || s.result.code !== 0) continue;
      this.logMoney(s);
    }
    this.checkLive();
  }

  /**
   * Sums Fill events of the journal from `scannedSeq + 1` to `to` into `journalFills`, and
   * checks that its command times never go back (what a replay and every time a user reads stand on).
   */
  private scanJournal(to: number): void {
    const fills = this.journalFills;
    const listener = FILL_SUM(fills);
    for (const entry of this.node.journal.range(this.scannedSeq + 1, to)) {
      if (isCommandKind(entry.kind)) {
        const { time } = decodeCommand(payloadView(entry));
        if (time < this.scannedTime) this.fail('time', `journal seq ${entry.seq} holds a command at ${time}, ${this.scannedTime - time} ms before the one before it`);
        this.scannedTime = time;
      } else if (entry.kind === RecordKind.Fill) decodeEvent(entry.view, entry.payloadOffset, listener);
    }
    this.scannedSeq = to;
  }

  /**
   * The end of a seed: everything delivered and flushed; a replay of the journal must equal the
   * running exchange and books. It starts where a clean restart would — the newest snapshot
   * that restores to its hash — so its cost is the journal's suffix; every `fullReplayEvery`th
   * seed replays the whole journal from nothing instead.
   */
  private async finish(): Promise<void> {
    const node = this.node;
    node.quiesce();
    await settle(node.storage, node.journal.durable(node.journal.lastSeq()));
    for (let i = 0; i < 4; i++) await nextTurn();
    this.checkLive();
    // From nothing, the replay begins under the markets record the journal begins with; from a snapshot, under the snapshot's markets.
    const start =
      this.options.seed % this.fullReplayEvery === 0
        ? { seq: 0, exchange: new Exchange(startMarkets(node.journal, this.inUse).first, NO_ROUTER, {}, LEDGER_OPTIONS), books: [] }
        : restoreNewest(this.inUse, node.journal, this.snapshots, {});
    const from = start.seq;
    const replayed = start.exchange;
    const replay = new Replay(replayed, start.books);
    for (const entry of node.journal.range(from + 1)) replay.apply(entry);
    replay.finish();
    this.result.marketsReplayed += this.marketsSeqs.filter((seq) => seq > from).length;
    this.result.hashChecks++;
    if (marketsText(replayed.markets) !== marketsText(node.exchange.markets)) this.fail('replay markets', `a replay of the journal after seq ${from} ends under other markets than the running exchange's`);
    if (replayed.stateHash() !== node.exchange.stateHash()) {
      const a = replayed.stateHashes();
      const b = node.exchange.stateHashes();
      this.fail('replay hash', `a replay of the journal after seq ${from} differs from the running exchange in ${Object.keys(a).filter((k) => a[k] !== b[k]).join(', ')}`);
    }
    replay.rebuilt.forEach((book, i) => {
      if (book.stateHash() !== node.markets[i].book.stateHash()) this.fail('book hash', `a replay of the journal after seq ${from} rebuilds market ${i}'s book differently`);
    });
    this.result.steps = this.step;
    this.result.stateHash = node.exchange.stateHash();
    this.result.snapshotsInterrupted = this.snapshots.interrupted;
  }
}

/** The account a command acts for (the sender of a transfer), if it has one yet. */
function actingOwner(c: Command, exchange: Exchange): OwnerIndex | undefined {
  const ledger = exchange.ledger;
  switch (c.kind) {
    case CommandKind.SubmitOrder:
    case CommandKind.CancelAll:
    case CommandKind.Withdraw:
    case CommandKind.SetMargin:
    case CommandKind.Delegation:
      return ledger.findOwner(c.account, c.subaccountIndex);
    case CommandKind.Transfer:
      return ledger.findOwner(c.accountFrom, c.subaccountIndexFrom);
    case CommandKind.SubmitPair:
      return ledger.findOwner(c.takeProfit.account, c.takeProfit.subaccountIndex);
    case CommandKind.SubmitSlices:
      return ledger.findOwner(c.orders[0].account, c.orders[0].subaccountIndex);
    default:
      return undefined;
  }
}

function FILL_SUM(fills: Map<number, number>): BookListener {
  const add = (orderId: number, q: number) => fills.set(orderId, (fills.get(orderId) ?? 0) + q);
  const none = () => {};
  return {
    onAccepted: none,
    onRested: none,
    onFill(_seq, maker, taker, _mo, _to, _side, _price, quantity) {
      add(maker, quantity);
      add(taker, quantity);
    },
    onCancelled: none,
    onExpired: none,
    onRejected: none,
    onLevel: none,
  };
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

