/**
 * @module runtime/spawn-worker
 *
 * Starts a TypeScript worker thread. Node 20 does not carry `--import tsx` loader hooks into
 * worker threads, so the worker first registers tsx's ESM hooks, then imports the file.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
const tsxApi = pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href;

export function spawnTsWorker(file: URL, options: WorkerOptions = {}): Worker {
  const source = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(file.href)}); });`;
  return new Worker(source, { ...options, eval: true });
}
