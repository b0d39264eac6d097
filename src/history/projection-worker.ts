/**
 * @module history/projection-worker
 *
 * The projection thread: writes history batches (history/batch) into the history LMDB
 * environment, one transaction each, in the order they arrive, and reports the journal
 * position each one reached. It keeps the history's LMDB work (encoding, B-tree updates,
 * candle upkeep) off the main thread, which only builds the records.
 *
 * Messages in: `{ type: 'batch', bytes }` (a packed batch), `{ type: 'close' }`. Out: `{ type: 'written', seq }`
 * after each batch commits, `{ type: 'failed', error }` if one cannot be written (nothing more
 * is written after it), `{ type: 'closed' }` once the environment is closed.
 * What it does with each message is history/projection-writer's (a test harness runs the same in-thread).
 * May import: history/, lmdb, node:worker_threads.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { open } from 'lmdb';
import { HISTORY_ENV_OPTIONS } from './history-env.ts';
import { projectionWriter } from './projection-writer.ts';

export interface ProjectionThreadData {
  path: string;
}

const port = parentPort!;
const env = open({ path: (workerData as ProjectionThreadData).path, ...HISTORY_ENV_OPTIONS });
port.on('message', projectionWriter(env, (message) => port.postMessage(message)));
