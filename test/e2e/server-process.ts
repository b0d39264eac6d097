/**
 * The exchange as its own process (`src/main.ts` on a temporary data directory and a free
 * loopback port), for the tests that kill it (crash/restart) or may kill it by accident (the
 * fuzzer): a dying server is reported with its last words instead of taking the test runner
 * down. The server's JSON log is kept: a 500 is explained by its `handler failed` entry (the
 * error and its stack). A server can be stopped keeping its data directory and started again
 * on it (the journal replayed), or killed before it is ready (`spawnServerProcess`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiClient, type ApiClient } from './harness.ts';
import { cpuSeconds, nodeArgsFor } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** How long a SIGTERM may take before the stop counts as hung (drain grace, snapshot, replication hand-over, with room for a loaded machine). */
const STOP_WITHIN_MS = 30_000;

export interface ServerProcess {
  port: number;
  /** The process id (a test may pause it with SIGSTOP). */
  pid: number;
  dataDir: string;
  client: ApiClient;
  /**
   * The CPU seconds the process had used when it logged `exchange ready`: the work of its
   * start-up (loading its modules, the replay), which a busy machine stretches in wall time but
   * does not change.
   */
  startCpuSeconds: number;
  /** Once the process has exited: its signal or exit code. */
  exit(): string | undefined;
  /** Log entries at level error or above, in order. */
  errors: Record<string, any>[];
  /** The last log entry with this message (`journal replayed`, `stopped`…). */
  logged(msg: string): Record<string, any> | undefined;
  /**
   * The first log entry `match` accepts, read already or once it is: a line the server writes
   * after its answer (the access log) reaches the test through a pipe, later than the answer.
   * Fails after `timeoutMs`.
   */
  untilLogged(match: (entry: Record<string, any>) => boolean, what: string, timeoutMs?: number): Promise<Record<string, any>>;
  /** The last 4 KiB of stderr. */
  stderr(): string;
  /** Every JSON log entry so far, in order. */
  log: Record<string, any>[];
  /** Sends `signal` and waits for the process to end. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** SIGTERM, then the data directory is removed unless `keepData`. */
  stop(keepData?: boolean): Promise<void>;
}

/** A server process that may not be ready yet: a crash test can kill it during start-up. */
export interface StartingServerProcess {
  dataDir: string;
  /** The process id (a test may hold it with SIGSTOP during its start). */
  pid: number;
  /** Resolves once it logs `exchange ready`; rejects if it exits before. */
  ready: Promise<ServerProcess>;
  /** Every JSON log entry so far, in order. */
  log: Record<string, any>[];
  /** Calls `listener` with every JSON log entry from now on, as it is read. */
  onLog(listener: (entry: Record<string, any>) => void): void;
  /** Sends `signal` and waits for the process to end. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Once the process has exited: its signal or exit code. */
  exit(): string | undefined;
  /** The last 4 KiB of stderr. */
  stderr(): string;
}

/** Starts `src/main.ts` with `args` (after port, host and data directory) and `env` added, on a new data directory or `dataDir`. */
export async function startServerProcess(args: readonly string[] = [], env: Record<string, string> = {}, dataDir?: string): Promise<ServerProcess> {
  return spawnServerProcess(args, env, dataDir).ready;
}

/** `startServerProcess` without waiting for it to be ready. */
export function spawnServerProcess(args: readonly string[] = [], env: Record<string, string> = {}, dataDir = mkdtempSync(join(tmpdir(), 'perp-server-'))): StartingServerProcess {
  const child = spawn(process.execPath, [...nodeArgsFor('src/main.ts'), '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let exit: string | undefined;
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4096);
  });
  // 'close': the process has exited and its output has been read to the end.
  const exited = new Promise<void>((resolve) =>
    child.once('close', (code, signal) => {
      exit = signal ?? `exit code ${code}`;
      resolve();
    }),
  );
  const errors: Record<string, any>[] = [];
  const log: Record<string, any>[] = [];
  const listeners: Array<(entry: Record<string, any>) => void> = [];
  const last = new Map<string, Record<string, any>>();
  const untilLogged = (match: (entry: Record<string, any>) => boolean, what: string, timeoutMs = 10_000) =>
    new Promise<Record<string, any>>((resolve, reject) => {
      const found = log.find(match);
      if (found !== undefined) return resolve(found);
      const listener = (entry: Record<string, any>) => {
        if (!match(entry)) return;
        clearTimeout(timer);
        listeners.splice(listeners.indexOf(listener), 1);
        resolve(entry);
      };
      const timer = setTimeout(() => {
        listeners.splice(listeners.indexOf(listener), 1);
        reject(new Error(`no ${what} logged within ${timeoutMs} ms`));
      }, timeoutMs);
      listeners.push(listener);
    });
  const kill = async (signal: NodeJS.Signals) => {
    if (exit === undefined) child.kill(signal);
    await exited;
  };
  let startCpuSeconds = 0;
  const port = new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line);
        if (entry.msg === 'exchange ready') {
          // NaN if it is already gone: a start that dies at once is reported by its exit.
          startCpuSeconds = exit === undefined ? cpuSeconds(child.pid!) : NaN;
          resolve(entry.port);
        }
        log.push(entry);
        if (entry.level >= 50) errors.push(entry);
        last.set(entry.msg, entry);
        for (const listener of listeners) listener(entry);
      }
    });
    exited.then(() => reject(new Error(`server exited (${exit}) before it was ready: ${stderr}`)));
  });
  const ready = port.then((port) => ({
    port,
    pid: child.pid!,
    dataDir,
    client: apiClient(`http://127.0.0.1:${port}`, env.OPERATOR_KEY),
    startCpuSeconds,
    exit: () => exit,
    errors,
    logged: (msg: string) => last.get(msg),
    untilLogged,
    log,
    kill,
    stderr: () => stderr,
    stop: async (keepData = false) => {
      if (exit === undefined) {
        child.kill('SIGTERM');
        // A stop is bounded (the drain grace and the waits after it): one that hangs is a defect,
        // reported as one, and the process is killed so no test leaves it behind.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const hung = await Promise.race([exited.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_WITHIN_MS)))]);
        clearTimeout(timer);
        if (hung) {
          await kill('SIGKILL');
          const tail = log.slice(-8).map((e) => JSON.stringify(e)).join('\n');
          throw new Error(`the server did not stop within ${STOP_WITHIN_MS / 1000} s of SIGTERM; its last log lines:\n${tail}`);
        }
      }
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  }));
  // A start the caller killed on purpose is not an unhandled rejection.
  ready.catch(() => {});
  return { dataDir, pid: child.pid!, ready, log, onLog: (listener) => listeners.push(listener), kill, exit: () => exit, stderr: () => stderr };
}
