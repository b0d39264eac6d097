/**
 * @module storage
 *
 * What a data directory holds and who may use it: opening the journal with its snapshots and
 * the history projections so that they agree before anything is served (data-directory.ts),
 * one exchange per directory (directory-lock.ts), the token secret file (token-secret.ts),
 * the markets the state was built under (markets-in-use.ts) and writes that a crash leaves
 * whole or absent (atomic-file.ts).
 * May import: journal/, history/projections, history/history-env, history/store (its format),
 * config/market, config/market-changes, lmdb, node:fs, node:path, node:crypto.
 */
export {};
