/**
 * @module history/projection-writer
 *
 * What the projection thread does with each message (history/projection-worker), on whichever
 * thread runs it: a packed batch is written to the history store in one transaction and
 * reported `written` with its seq; the first batch that cannot be written is reported `failed`
 * and nothing is written after it; `close` closes the environment and reports `closed`.
 * May import: history/batch, history/history-wire, lmdb (types).
 */
import type { RootDatabase } from 'lmdb';
import { HistoryStore } from './batch.ts';
import { batchUnpacker } from './history-wire.ts';

/** A batch travels packed (history/history-wire): the batches of one Projections, every one, in order. */
export type ProjectionMessage = { type: 'batch'; bytes: Uint8Array } | { type: 'close' };
export type ProjectionReport = { type: 'written'; seq: number } | { type: 'failed'; error: string } | { type: 'closed' };

/** The handler of the messages for the history environment `env`; `report` hears the outcome of each. */
export function projectionWriter(env: RootDatabase, report: (message: ProjectionReport) => void): (message: ProjectionMessage) => void {
  const store = new HistoryStore(env);
  // One writer per thread, so one unpacker per packer (history/history-wire).
  const unpackBatch = batchUnpacker();
  let failed = false;
  return (message) => {
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
  };
}
