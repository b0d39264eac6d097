/**
 * @module transport/spawn-worker
 *
 * Starts a worker thread on a module beside the caller, as this build has it: `.ts` when the
 * exchange runs from source (tests, `node --import tsx`), `.js` when it runs compiled from
 * dist/ (`npm start`). Node 20 does not carry `--import tsx` loader hooks into worker threads,
 * so a TypeScript worker first registers tsx's ESM hooks, then imports the file; a compiled one
 * is started directly.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The module `name` (written `./x.ts`) beside `base` (the caller's `import.meta.url`), with the caller's own extension. */
export function siblingModule(name: string, base: string): URL {
  return new URL(base.endsWith('.js') ? name.replace(/\.ts$/, '.js') : name, base);
}

export function spawnWorker(file: URL, options: WorkerOptions = {}): Worker {
  if (file.pathname.endsWith('.js')) return new Worker(file, options);
  const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsxApi = pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const source = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(file.href)}); });`;
  return new Worker(source, { ...options, eval: true });
}
