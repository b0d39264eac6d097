/**
 * @module history/history-env
 *
 * How the history environment is opened, the same on every thread that opens it. History is
 * derived data, rebuilt from the journal, so it is written without fsync (`noSync`): a power
 * cut may lose its tail, and the "projected up to" position written in the same transaction
 * makes the next start project that tail again.
 */
export const HISTORY_ENV_OPTIONS = { maxDbs: 16, noSync: true } as const;
