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
