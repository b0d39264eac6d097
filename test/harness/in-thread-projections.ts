/**
 * The projection thread's stand-in on the main thread, for `Projections.startThread`'s `spawn`:
 * the same message handler as the thread (history/projection-writer) on the history
 * environment at the same path, answering as the thread does — each message handled, and each
 * report heard, at a later turn (setImmediate), never inside the call that posted it.
 *
 * Limits: no thread, so no thread death (`error`/`exit` never fire) and no concurrency with the
 * main thread; the thread's own LMDB handle is a second `open` of the path in this process.
 */
import { EventEmitter } from 'node:events';
import { open } from 'lmdb';
import { HISTORY_ENV_OPTIONS } from '../../src/history/history-env.ts';
import type { ProjectionThread } from '../../src/history/projection-batches.ts';
import { projectionWriter, type ProjectionMessage } from '../../src/history/projection-writer.ts';
import type { ProjectionThreadData } from '../../src/history/projection-worker.ts';

class InThreadProjections extends EventEmitter implements ProjectionThread {
  private readonly handle: (message: ProjectionMessage) => void;

  constructor(data: ProjectionThreadData) {
    super();
    const env = open({ path: data.path, ...HISTORY_ENV_OPTIONS });
    this.handle = projectionWriter(env, (report) => setImmediate(() => this.emit('message', report)));
  }

  postMessage(message: ProjectionMessage): void {
    setImmediate(() => this.handle(message));
  }

  terminate(): Promise<number> {
    return Promise.resolve(0);
  }
}

export const inThreadProjections = (data: ProjectionThreadData): ProjectionThread => new InThreadProjections(data);
