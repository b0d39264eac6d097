/**
 * @module sim/reproduce
 *
 * The one line that runs a seed again exactly: `npm run simulate` with the settings the seed ran
 * under. Printed by the simulator's CLI and by the tests that run seeds, so a failing seed is a
 * one-line reproduction whoever found it.
 * May import: nothing.
 */

export interface SeedSettingsLine {
  seed: number;
  commands: number;
  faults?: boolean;
  hostile?: boolean;
  checkEvery?: number;
  /** A crash about every this many steps (the simulator's crashRate is its inverse; 250 by default). */
  crashEvery?: number;
}

export function reproduce(s: SeedSettingsLine): string {
  const flags = [`--seed ${s.seed}`, `--commands ${s.commands}`];
  if (s.faults === false) flags.push('--faults off');
  if (s.hostile) flags.push('--hostile');
  if (s.crashEvery !== undefined) flags.push(`--crash-every ${s.crashEvery}`);
  if (s.checkEvery !== undefined) flags.push(`--check-every ${s.checkEvery}`);
  return `npm run simulate -- ${flags.join(' ')} --seeds 1 --workers 1`;
}
