/**
 * @module journal/refusal
 *
 * `DataRefusedError`: the data directory cannot be served as it stands — a damaged journal, a
 * replay that diverges, files that contradict each other. Its message is the operator's whole
 * report: what was found, that nothing was changed, and what to do. The process prints it
 * without a stack (`main.ts`, the journal tool) and exits with status 1.
 *
 * May import: nothing.
 */
export class DataRefusedError extends Error {
  override name = 'DataRefusedError';
}
