/**
 * @module app
 *
 * The application state machine: the one deterministic machine on the sequencer thread that
 * decides everything, in journal order, as pure as the cores it drives (time passed in, no I/O,
 * no threads). Owns the application commands (commands.ts) and what executing one answers
 * (codes.ts); the `Exchange` (exchange.ts: ledger, nonce windows, delegations, order registry,
 * depth mirrors, conditional books, faucet days), with order entry (order-entry.ts: submissions,
 * released conditional orders, liquidations, account-limits.ts) and R2 settlement of book events
 * (settlement.ts); and its ports
 * (ports.ts): the `MarketRouter` it sends book commands through and the `ExchangeListeners` it
 * tells what changed. The thread transport, replay and the projections implement them: nothing
 * here knows a thread, a ring, the journal or HTTP.
 * May import: types/ (orders, ids, address), engine/ (codes, types), ledger/ (codes, events, ledger),
 * conditional/index, numeric/ (decimal, state-hash), config/ (market, market-changes), auth/ (admission, nonces,
 * delegation).
 *
 * Invariants: the state changes only through `Exchange.execute(command)` and the book events it
 * is handed, live and in replay alike, so replaying the journal reproduces `stateHash()`.
 * Limits: one machine, one thread (docs/benchmarks.md measures what a command costs).
 */
export {};
