/**
 * @module sim/pool
 *
 * Runs a range of seeds on every core: `workers` worker threads (sim/worker.ts) each take the
 * next seed when they finish one, so a slow seed never holds the others back. Seeds stay
 * independent — each is a whole simulation from nothing — so a seed's result is the same
 * whichever thread ran it, and `--seed N --seeds 1` reproduces it alone. With one worker (or
 * one seed) the seeds run on this thread.
 *
 * May import: src/config (types), src/transport/spawn-worker, sim/simulator.
 */
import type { MarketSpec } from '../src/config/market.ts';
import { spawnWorker } from '../src/transport/spawn-worker.ts';
import { runSeed, type SeedOptions, type SeedResult } from './simulator.ts';

/** A seed's result as it crosses threads: the violation as its message, and the wall-clock seconds it took. */
export type SeedReport = Omit<SeedResult, 'violation'> & { violation: string | null; seconds: number };

export type SeedSettings = Omit<SeedOptions, 'seed'>;

/** Runs one seed on this thread. */
export async function runReported(specs: readonly MarketSpec[], settings: SeedSettings, seed: number): Promise<SeedReport> {
  const started = performance.now();
  const r = await runSeed(specs, { ...settings, seed });
  return { ...r, violation: r.violation === null ? null : r.violation.message, seconds: (performance.now() - started) / 1000 };
}

/** Runs seeds `first` … `first + count − 1`; `done` gets each result in seed order. */
export async function runSeeds(specs: readonly MarketSpec[], first: number, count: number, settings: SeedSettings, workers: number, done: (r: SeedReport) => void): Promise<void> {
  if (workers <= 1 || count <= 1) {
    for (let seed = first; seed < first + count; seed++) done(await runReported(specs, settings, seed));
    return;
  }
  let next = first;
  let printed = first;
  const waiting = new Map<number, SeedReport>();
  const deliver = (r: SeedReport) => {
    waiting.set(r.seed, r);
    while (waiting.has(printed)) {
      done(waiting.get(printed)!);
      waiting.delete(printed++);
    }
  };
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const worker = spawnWorker(new URL('./worker.ts', import.meta.url), { workerData: { settings } });
      const feed = () => (next < first + count ? worker.postMessage(next++) : void worker.terminate().then(() => resolve()));
      worker.on('message', (r: SeedReport) => {
        deliver(r);
        feed();
      });
      worker.on('error', reject);
      worker.once('online', feed);
    });
  await Promise.all(Array.from({ length: Math.min(workers, count) }, one));
}
