/**
 * `npm run simulate -- --seed N --commands M [--seeds K] [--faults on|off] [--hostile] [--check-every C]`
 *
 * Runs seeds N, N+1, … N+K−1 of the deterministic simulator with M commands each, prints one
 * line per seed and a total with the simulation's speed (commands/s). A failing seed prints
 * the broken check, the step, and the command that reproduces it; the exit code is 1.
 */
import { parseArgs } from 'node:util';
import { loadSettings } from '../src/config/process.ts';
import { runSeed, type SeedResult } from './simulator.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    commands: { type: 'string', default: '100000' },
    seeds: { type: 'string', default: '1' },
    faults: { type: 'string', default: 'on' },
    hostile: { type: 'boolean', default: false },
    'check-every': { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
});

const first = Number(values.seed);
const commands = Number(values.commands);
const seeds = Number(values.seeds);
const faults = values.faults !== 'off';
const hostile = values.hostile;
const checkEvery = values['check-every'] === undefined ? undefined : Number(values['check-every']);
const { markets } = loadSettings([], {});

const totals = { commands: 0, crashes: 0, powerLosses: 0, tornTails: 0, snapshots: 0, interrupted: 0, retried: 0, acknowledged: 0, hashChecks: 0 };
const failed: SeedResult[] = [];
const started = performance.now();
const cpuStarted = process.cpuUsage();
for (let seed = first; seed < first + seeds; seed++) {
  const t = performance.now();
  const r = await runSeed(markets, { seed, commands, faults, hostile, checkEvery });
  const seconds = (performance.now() - t) / 1000;
  totals.commands += r.commands;
  totals.crashes += r.crashes;
  totals.powerLosses += r.powerLosses;
  totals.tornTails += r.tornTails;
  totals.snapshots += r.snapshotsSaved;
  totals.interrupted += r.snapshotsInterrupted;
  totals.retried += r.retried;
  totals.acknowledged += r.acknowledged;
  totals.hashChecks += r.hashChecks;
  if (!values.quiet || r.violation !== null) {
    console.log(
      `seed ${seed}: ${r.commands} commands in ${seconds.toFixed(2)} s (${Math.round(r.commands / seconds)}/s), ${r.crashes} crashes (${r.powerLosses} power, ${r.tornTails} torn tails), ` +
        `${r.snapshotsSaved} snapshots (${r.snapshotsInterrupted} interrupted), ${r.acknowledged} acknowledged, ${r.retried} retried, ${r.hashChecks} hash checks: ${r.violation === null ? 'ok' : 'FAILED'}`,
    );
  }
  if (r.violation !== null) {
    failed.push(r);
    console.log(`  ${r.violation.message}`);
    console.log(`  reproduce: npm run simulate -- --seed ${seed} --commands ${commands}${faults ? '' : ' --faults off'}${hostile ? ' --hostile' : ''}${checkEvery === undefined ? '' : ` --check-every ${checkEvery}`}`);
  }
}
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuStarted);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
console.log(
  `${seeds} seeds, ${totals.commands} commands in ${seconds.toFixed(1)} s: ${Math.round(totals.commands / seconds)} commands/s (${Math.round(totals.commands / cpuSeconds)} per CPU-second); ${totals.crashes} crashes (${totals.powerLosses} power losses, ${totals.tornTails} torn tails), ` +
    `${totals.snapshots} snapshots saved (${totals.interrupted} interrupted), ${totals.acknowledged} acknowledged, ${totals.retried} retried, ${totals.hashChecks} hash checks; ${failed.length} failed`,
);
process.exit(failed.length > 0 ? 1 : 0);
