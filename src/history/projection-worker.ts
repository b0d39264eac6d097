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
 * May import: history/, lmdb, ./history-wire, node:worker_threads, history/history-env.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { open } from 'lmdb';
import { HistoryStore } from './batch.ts';
import { unpackBatch } from './history-wire.ts';
import { HISTORY_ENV_OPTIONS } from './history-env.ts';

export interface ProjectionThreadData {
  path: string;
}

/** A batch travels packed (history/history-wire). */
export type ProjectionMessage = { type: 'batch'; bytes: Uint8Array } | { type: 'close' };
export type ProjectionReport = { type: 'written'; seq: number } | { type: 'failed'; error: string } | { type: 'closed' };

const port = parentPort!;
const env = open({ path: (workerData as ProjectionThreadData).path, ...HISTORY_ENV_OPTIONS });
const store = new HistoryStore(env);
let failed = false;

const report = (message: ProjectionReport): void => port.postMessage(message);

port.on('message', (message: ProjectionMessage) => {
  if (message.type === 'close') {
    void env.close().then(() => report({ type: 'closed' }));
    return;
  }
  if (failed) return;
  try {
    const batch = unpackBatch(message.bytes);
    store.write(batch);
    report({ type: 'written', seq: batch.seq });
  } catch (error) {
    failed = true;
    report({ type: 'failed', error: String(error) });
  }
});
