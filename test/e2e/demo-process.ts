/**
 * `npm run demo` as its own process, for the tests that use it as a newcomer does: src/demo/main.ts
 * on a free loopback port and a temporary data directory, ready once it prints `demo ready:
 * <url>`; `stop` sends SIGTERM and answers how the process ended.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeArgsFor } from './processes.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface DemoProcess {
  url: string;
  /** SIGTERM, then the exit code (or signal) once it has ended; the data directory is removed. */
  stop(): Promise<string>;
  /** What it printed so far, stdout and stderr. */
  output(): string;
}

export async function startDemo(): Promise<DemoProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'perp-demo-'));
  const child = spawn(process.execPath, [...nodeArgsFor('src/demo/main.ts'), '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<string>((resolve) => child.once('close', (code, signal) => resolve(signal ?? `exit code ${code}`)));
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      const ready = /demo ready: (\S+)/.exec(output);
      if (ready) resolve(ready[1]);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exited.then((how) => reject(new Error(`the demo ended (${how}) before it was ready:\n${output}`)));
  });
  return {
    url,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      const how = await exited;
      rmSync(dataDir, { recursive: true, force: true });
      return how;
    },
  };
}
