/**
 * @module transport/spawn-worker
 *
 * Starts a worker thread on a module beside the caller, as this build has it: `.js` when the
 * exchange runs compiled from dist/ (`npm start`), started directly; `.ts` when it runs from
 * source (tests, `node --import tsx`), started on the module's bundle (transport/source-bundle)
 * with the parent's node options minus tsx — a thread loading the sources through tsx's hooks
 * took about a second of CPU, five of them per exchange.
 *
 * May import: node:worker_threads, ./source-bundle.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { execArgvWithoutTsx, isCompiled, runnableModule } from './source-bundle.ts';

/** The module `name` (written `./x.ts`) beside `base` (the caller's `import.meta.url`), with the caller's own extension. */
export function siblingModule(name: string, base: string): URL {
  return new URL(base.endsWith('.js') ? name.replace(/\.ts$/, '.js') : name, base);
}

export function spawnWorker(file: URL, options: WorkerOptions = {}): Worker {
  if (isCompiled(file)) return new Worker(file, options);
  return new Worker(runnableModule(file), { execArgv: execArgvWithoutTsx(), ...options });
}
