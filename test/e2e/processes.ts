/** The processes a test started, read from Linux /proc: what `npm start` leaves running, and what it runs. */
import { readdirSync, readFileSync } from 'node:fs';

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
