/**
 * `npm run simulate -- --seed N --commands M [--seeds K] [--faults on|off] [--hostile] [--crash-every R] [--check-every C] [--workers W] [--quiet]`
 *
 * Runs seeds N, N+1, … N+K−1 of the deterministic simulator with M commands each on W worker
 * threads (default: one per core; sim/pool.ts), prints one line per seed in seed order and a
 * total with the simulation's speed (commands/s wall-clock and per CPU-second). A failing seed prints
 * the broken check, the step, and the command that reproduces it; the exit code is 1.
 * `--crash-every R`: a crash about every R steps when faults are on (default 250; the test
 * tier's seeds use 30, so their failures reproduce with `--crash-every 30`).
 */
import { parseArgs } from 'node:util';
import { availableParallelism } from 'node:os';
import type { SeedReport } from './pool.ts';
import { reproduce } from './reproduce.ts';

const USAGE = 'usage: npm run simulate -- --seed N --commands M [--seeds K] [--faults on|off] [--hostile] [--crash-every R] [--check-every C] [--workers W] [--quiet]';

/** A wrong argument: one line naming it and the usage, exit status 2 (as the exchange's own tools). */
function refuse(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      commands: { type: 'string', default: '100000' },
      seeds: { type: 'string', default: '1' },
      faults: { type: 'string', default: 'on' },
      hostile: { type: 'boolean', default: false },
      'check-every': { type: 'string' },
      'crash-every': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      workers: { type: 'string', default: String(availableParallelism()) },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (error) {
  refuse((error as Error).message);
}
const { values } = parsed;
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
for (const name of ['seed', 'commands', 'seeds', 'check-every', 'crash-every', 'workers'] as const) {
  const text = values[name];
  if (text !== undefined && !/^\d{1,15}$/.test(text)) refuse(`--${name}: must be a whole number, got ${JSON.stringify(text)}`);
}
if (values.faults !== 'on' && values.faults !== 'off') refuse(`--faults: must be on or off, got ${JSON.stringify(values.faults)}`);

const first = Number(values.seed);
const commands = Number(values.commands);
const seeds = Number(values.seeds);
const faults = values.faults !== 'off';
const hostile = values.hostile;
const checkEvery = values['check-every'] === undefined ? undefined : Number(values['check-every']);
const crashEvery = values['crash-every'] === undefined ? undefined : Number(values['crash-every']);
if (crashEvery === 0) refuse('--crash-every: must be at least 1 (use --faults off for no crashes)');
const workers = Math.max(1, Number(values.workers));
// The exchange and the simulator load once the arguments are known good: a refusal is instant.
const [{ loadSettings }, { runSeeds }] = await Promise.all([import('../src/config/process.ts'), import('./pool.ts')]);
const { markets } = loadSettings([], {});

const totals = { commands: 0, crashes: 0, powerLosses: 0, clockSteps: 0, tornTails: 0, snapshots: 0, interrupted: 0, retried: 0, acknowledged: 0, hashChecks: 0, originatorFeesPaid: 0, marketsChanges: 0, marketsRecords: 0, marketsAppended: 0, marketsReplayed: 0, afterTick: 0, atTickMarks: 0, ownCommand: 0, shortfalls: 0 };
const failed: SeedReport[] = [];
const started = performance.now();
const cpuStarted = process.cpuUsage();
await runSeeds(markets, first, seeds, { commands, faults, hostile, checkEvery, ...(crashEvery === undefined ? {} : { crashRate: 1 / crashEvery }) }, workers, (r) => {
  totals.commands += r.commands;
  totals.crashes += r.crashes;
  totals.powerLosses += r.powerLosses;
  totals.clockSteps += r.clockSteps;
  totals.tornTails += r.tornTails;
  totals.snapshots += r.snapshotsSaved;
  totals.interrupted += r.snapshotsInterrupted;
  totals.retried += r.retried;
  totals.acknowledged += r.acknowledged;
  totals.hashChecks += r.hashChecks;
  totals.originatorFeesPaid += r.originatorFeesPaid;
  totals.marketsChanges += r.marketsChanges;
  totals.marketsRecords += r.marketsRecords;
  totals.marketsAppended += r.marketsAppended;
  totals.marketsReplayed += r.marketsReplayed;
  totals.afterTick += r.leverageChecks.afterTick;
  totals.atTickMarks += r.leverageChecks.atTickMarks;
  totals.ownCommand += r.leverageChecks.ownCommand;
  totals.shortfalls += r.leverageChecks.shortfalls;
  if (!values.quiet || r.violation !== null) {
    console.log(
      `seed ${r.seed}: ${r.commands} commands in ${r.seconds.toFixed(2)} s (${Math.round(r.commands / r.seconds)}/s), ${r.crashes} crashes (${r.powerLosses} power, ${r.tornTails} torn tails), ${r.clockSteps} clock steps back, ` +
        `${r.snapshotsSaved} snapshots (${r.snapshotsInterrupted} interrupted), ${r.acknowledged} acknowledged, ${r.retried} retried, ${r.hashChecks} hash checks, ` +
        `${r.marketsRecords} markets records (${r.marketsAppended} markets appended), ${r.marketsReplayed} replayed: ${r.violation === null ? 'ok' : 'FAILED'}`,
    );
  }
  if (r.violation !== null) {
    failed.push(r);
    console.log(`  ${r.violation}`);
    console.log(`  reproduce: ${reproduce({ seed: r.seed, commands, faults, hostile, checkEvery, crashEvery })}`);
  }
});
const seconds = (performance.now() - started) / 1000;
// Process-wide: the worker threads' CPU time is in it.
const cpu = process.cpuUsage(cpuStarted);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
console.log(
  `${seeds} seeds on ${Math.min(workers, seeds)} threads, ${totals.commands} commands in ${seconds.toFixed(1)} s: ${Math.round(totals.commands / seconds)} commands/s wall-clock, ${Math.round(totals.commands / cpuSeconds)} per CPU-second (${cpuSeconds.toFixed(1)} CPU-s); ` +
    `${totals.crashes} crashes (${totals.powerLosses} power losses, ${totals.tornTails} torn tails), ${totals.clockSteps} clock steps back, ${totals.snapshots} snapshots saved (${totals.interrupted} interrupted), ${totals.acknowledged} acknowledged, ${totals.retried} retried, ${totals.hashChecks} hash checks, ${totals.originatorFeesPaid} originator fees paid, ` +
    `${totals.marketsRecords} markets records from ${totals.marketsChanges} markets file changes (${totals.marketsAppended} markets appended), ${totals.marketsReplayed} replays across one; ${failed.length} failed`,
);
// The leverage bound's checks that ran (sim/bounds.ts): a bound never evaluated would prove nothing.
if (hostile) console.log(`leverage checks run: ${totals.afterTick} right after a Tick, ${totals.atTickMarks} at the Tick's marks, ${totals.ownCommand} after an account's own command; ${totals.shortfalls} losses paid by others checked against what the market took`);
process.exit(failed.length > 0 ? 1 : 0);
