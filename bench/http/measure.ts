/**
 * @module bench/http/measure
 *
 * One run of the load generator's autocannon sender (bench/load/autocannon.ts), measured from
 * the server's side: the run's rate and latencies, this process's CPU (the server's, every
 * thread), the sender's, and the machine's (busy and steal, from /proc/stat). Shared by the
 * benches that run the exchange in their own process (bench/http.bench.ts, bench/feeds.bench.ts).
 * May import: node:, bench/load/autocannon (types).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import type { LoadResult } from '../load/autocannon.ts';

/** Machine-wide CPU from /proc/stat, in core-seconds: busy (all but idle and iowait) and steal. */
export function machineCpu(): { busy: number; steal: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields;
  return { busy: (user + nice + system + irq + softirq + steal) / 100, steal: steal / 100 };
}

/** The 1, 5 and 15 minute load averages, as printed beside every figure. */
export const loadAverage = (): string => loadavg().map((x) => x.toFixed(2)).join(', ');

export interface Measured extends LoadResult {
  /** Server (this process) CPU per 2xx response, µs. */
  serverMicros: number;
  serverCores: number;
  loadCores: number;
  machineCores: number;
  stealCores: number;
}

/** Runs `load` (a run of the autocannon sender, in its child process) and measures it. */
export async function measure(load: () => Promise<LoadResult>): Promise<Measured> {
  const cpu = process.cpuUsage();
  const machine = machineCpu();
  const start = performance.now();
  const r = await load();
  const wall = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const after = machineCpu();
  const serverSeconds = (used.user + used.system) / 1e6;
  return {
    ...r,
    serverMicros: (serverSeconds / Math.max(1, r.ok)) * 1e6,
    serverCores: serverSeconds / wall,
    loadCores: r.cpuSeconds / wall,
    machineCores: (after.busy - machine.busy) / wall,
    stealCores: (after.steal - machine.steal) / wall,
  };
}

/** One line: rate, latencies, status codes, and where the machine's CPU went. */
export function describe(label: string, m: Measured): void {
  const codes = Object.entries(m.statusCodes).map(([c, n]) => `${c}×${n}`).join(' ');
  console.log(
    `  ${label.padEnd(26)} ${Math.round(m.rate).toString().padStart(6)} /s  p50 ${m.p50.toFixed(2)} ms  p99 ${m.p99.toFixed(2)} ms  ` +
      `[${codes}${m.errors ? ` errors×${m.errors}` : ''}${m.timeouts ? ` timeouts×${m.timeouts}` : ''}]  ` +
      `CPU: server ${m.serverCores.toFixed(2)} + load gen ${m.loadCores.toFixed(2)} cores; others ${Math.max(0, m.machineCores - m.serverCores - m.loadCores).toFixed(2)}, steal ${m.stealCores.toFixed(2)}; machine busy ${m.machineCores.toFixed(2)} of ${availableParallelism()}`,
  );
  if (m.firstRefusal !== null) console.log(`    first refusal: ${m.firstRefusal}`);
}
