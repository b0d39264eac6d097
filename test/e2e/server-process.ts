/**
 * The exchange as its own process (`src/main.ts` on a temporary data directory and a free
 * loopback port), for the tests that kill it (crash/restart) or may kill it by accident (the
 * fuzzer): a dying server is reported with its last words instead of taking the test runner
 * down. The server's JSON log is kept: a 500 is explained by its `handler failed` entry (the
 * error and its stack). A server can be stopped keeping its data directory and started again
 * on it (the journal replayed).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiClient, type ApiClient } from './harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  port: number;
  dataDir: string;
  client: ApiClient;
  /** Once the process has exited: its signal or exit code. */
  exit(): string | undefined;
  /** Log entries at level error or above, in order. */
  errors: Record<string, any>[];
  /** The last log entry with this message (`journal replayed`, `stopped`…). */
  logged(msg: string): Record<string, any> | undefined;
  /** The last 4 KiB of stderr. */
  stderr(): string;
  /** Every JSON log entry so far, in order. */
  log: Record<string, any>[];
  /** Sends `signal` and waits for the process to end. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** SIGTERM, then the data directory is removed unless `keepData`. */
  stop(keepData?: boolean): Promise<void>;
}

/** Starts `src/main.ts` with `args` (after port, host and data directory) and `env` added, on a new data directory or `dataDir`. */
export async function startServerProcess(args: readonly string[] = [], env: Record<string, string> = {}, dataDir = mkdtempSync(join(tmpdir(), 'perp-server-'))): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, ...args], {
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
  const last = new Map<string, Record<string, any>>();
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line);
        if (entry.msg === 'exchange ready') resolve(entry.port);
        log.push(entry);
        if (entry.level >= 50) errors.push(entry);
        last.set(entry.msg, entry);
      }
    });
    exited.then(() => reject(new Error(`server exited (${exit}) before it was ready: ${stderr}`)));
  });
  return {
    port,
    dataDir,
    client: apiClient(`http://127.0.0.1:${port}`, env.OPERATOR_KEY),
    exit: () => exit,
    errors,
    logged: (msg) => last.get(msg),
    log,
    kill: async (signal) => {
      if (exit === undefined) child.kill(signal);
      await exited;
    },
    stderr: () => stderr,
    stop: async (keepData = false) => {
      if (exit === undefined) {
        child.kill('SIGTERM');
        await exited;
      }
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
