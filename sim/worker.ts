/**
 * @module sim/worker
 *
 * A simulator worker thread (sim/pool.ts): runs each seed number it is sent with the settings
 * it was started with, and posts back the seed's report.
 *
 * May import: node:worker_threads, src/config, sim/pool.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadSettings } from '../src/config/process.ts';
import { runReported, type SeedSettings } from './pool.ts';

const { markets } = loadSettings([], {});
const { settings } = workerData as { settings: SeedSettings };
parentPort!.on('message', async (seed: number) => {
  parentPort!.postMessage(await runReported(markets, settings, seed));
});
