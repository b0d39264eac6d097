/**
 * @module runtime
 *
 * The exchange at work: threads, memory shared between them, and the one deterministic state
 * machine on the main thread that decides everything, in journal order.
 *
 * Owns: the application commands and their codec (commands.ts); the `Exchange` (exchange.ts:
 * ledger, nonces, delegations, order registry, depth mirrors, conditional books), with order
 * entry (order-entry.ts: submissions, released conditional orders, liquidations) and R2
 * settlement of book events (settlement.ts); the `Sequencer` (decide → journal → route →
 * settle → reply when durable and projected); market threads behind SharedArrayBuffer rings
 * (layout.ts, ring.ts, codec.ts, market-link.ts, market-worker.ts); history projection on its
 * own thread (projections.ts, projection-worker.ts); start-up replay with byte-for-byte event
 * checks (recovery.ts) and snapshots (snapshot-codec.ts); opening a data directory and
 * refusing or repairing what contradicts the journal (data-directory.ts); the token secret
 * file (token-secret.ts, atomic-file.ts); the testnet price feed.
 * May import: engine/, ledger/, auth/ (stores, admission), conditional/, journal/, history/,
 * config/, numeric/, node:worker_threads, node:fs, node:path, node:url, node:module, node:zlib,
 * node:crypto (data directory files), lmdb, msgpackr;
 * http/ports and http/errors for the ports it implements.
 *
 * Invariants: only the main thread changes the exchange's state, and only through journaled
 * commands and book events; every command that reached a book is journaled before its effects
 * are acknowledged; replaying the journal reproduces `stateHash()` and every book event.
 * Limits: one process, one main thread: the gateway, the sequencer and settlement share it
 * (docs/benchmarks.md measures what that costs per order).
 */
export { Exchange } from './exchange.ts';
export { NO_ROUTER, type MarketRouter, type ExchangeListeners } from './ports.ts';
export { ExchangeCode, type ExecuteResult } from './codes.ts';
export { Sequencer, OverloadedError, type Outcome } from './sequencer.ts';
export { CommandKind, type Command } from './commands.ts';
export { Projections } from './projections.ts';
export { recover } from './recovery.ts';
