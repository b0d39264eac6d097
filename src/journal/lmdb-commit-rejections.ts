/**
 * @module journal/lmdb-commit-rejections
 *
 * How lmdb-js reports a failed commit (a full disk, an I/O error), and the two promises of it
 * that nobody would handle. When a transaction fails, every write promise of it is rejected
 * with `Commit failed (see commitError for details)`, and that error's `commitError` is a
 * promise of its own, rejected next with lmdb's error (`No space left on device: …`). So:
 *  - whoever handles a write's failure must handle its `commitError` too, or that promise is
 *    an unhandled rejection: `lmdbWrite` does both, and gives the caller lmdb's error, which
 *    says what went wrong, instead of the wrapper;
 *  - at the start of each event-turn batch lmdb-js makes the commit promise of the transaction
 *    to come (write.js, the task that calls `writeBatchStart`) and hands it only to writes made
 *    after that. The journal writes once per group commit, so when that transaction fails the
 *    promise is held by nobody, and is rejected all the same.
 * Under Node's default `--unhandled-rejections=throw` either ended the process with exit
 * status 1 and no log line, instead of the journal's documented failure (`journal storage
 * failed: no further writes are accepted`, every write refused): test/e2e/disk-full.
 * `tolerateLmdbCommitRejections()` (once per thread, from journal/lmdb-storage's
 * `openEnvironment`) lets exactly the unheld one go — the failure reaches the journal through
 * the promises it holds — and throws any other unhandled rejection again, so that one still
 * ends the process as Node's default would.
 *
 * May import: nothing.
 */

/** lmdb-js's message for every write of a failed transaction (write.js `rejectCommit`). */
const COMMIT_FAILED = 'Commit failed (see commitError for details)';

function commitErrorOf(reason: unknown): Promise<unknown> | undefined {
  if (!(reason instanceof Error) || reason.message !== COMMIT_FAILED || !('commitError' in reason)) return undefined;
  return reason.commitError as Promise<unknown>;
}

/** `write` (an lmdb-js write promise or `flushed`/`committed`), failing with lmdb's own error when its transaction fails. */
export function lmdbWrite<T>(write: PromiseLike<T>): Promise<T> {
  return Promise.resolve(write).catch(async (error: unknown) => {
    const details = commitErrorOf(error);
    if (details === undefined) throw error;
    throw await details.then(
      () => error,
      (cause: unknown) => cause,
    );
  });
}

let installed = false;

export function tolerateLmdbCommitRejections(): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => {
    const details = commitErrorOf(reason);
    if (details === undefined) throw reason;
    // The unheld commit promise: its details are handled here, before Node looks at them.
    details.catch(() => {});
  });
}
