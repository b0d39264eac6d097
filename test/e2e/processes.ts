/**
 * The processes a test starts and reads: how node runs one of the project's TypeScript entry
 * points, and what Linux /proc says of a process (what `npm start` leaves running, what it runs).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runnableModule } from '../../src/transport/source-bundle.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * node's arguments that run the TypeScript entry `file` (relative to the repository root): its
 * bundle (transport/source-bundle), the same code `node --import tsx file` runs, without the
 * second of CPU tsx spends loading it in every process.
 */
export function nodeArgsFor(file: string): string[] {
  return [bundleOf(file)];
}

/** The path of the bundle of the TypeScript module `file` (relative to the repository root): a module another program imports, such as a journal replay hook. */
export function bundleOf(file: string): string {
  return fileURLToPath(runnableModule(pathToFileURL(join(ROOT, file))));
}

/** Every process below `pid`, children first. */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    for (const child of children === '' ? [] : children.split(' ').map(Number)) out.push(child, ...descendants(child));
  }
  return out;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A process's command line, its arguments joined by spaces. */
export function commandLine(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '').join(' ');
}

/**
 * The CPU time `pid` has used so far, every thread, in seconds (`utime + stime` of
 * /proc/PID/stat, in the kernel's 100 ticks a second): its own work, however busy the machine.
 */
export function cpuSeconds(pid: number): number {
  // The fields after the command name, which is in parentheses and may hold spaces.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
