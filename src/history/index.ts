/**
 * @module history
 *
 * The read side of the exchange: trades, candles of eleven intervals, account fills, orders
 * (open and finished), funding rates, transfers and every subaccount's numbered events (the
 * private feed's log), as LMDB projections of the journal — built
 * incrementally as events happen, never recomputed per request. The gateway reads them
 * directly and never waits on matching.
 *
 * Owns: the records (types.ts), the key layouts and codecs (store.ts), candle aggregation
 * (candles.ts, pure), writing a batch in one transaction with the journal position it reaches
 * (batch.ts, writer.ts), the records made of the exchange's reports (projections.ts) and when
 * their batches are written and where (projection-batches.ts), the queries (reader.ts,
 * transfers.ts) and their API shapes (views.ts).
 * May import: types/ids, lmdb, msgpackr (history-wire), engine/types, config/market,
 * numeric/decimal, ledger/events, ledger/accounts (what projections.ts turns into records),
 * app/ports, app/order-registry, types/orders (the application's reports it listens to),
 * transport/spawn-worker, node:worker_threads. The read side opens no environment and starts no
 * thread; projection-batches.ts and projection-worker.ts (its own worker plumbing: history-wire.ts,
 * history-env.ts) do both.
 *
 * Invariants: a batch and its position commit together, so a restart projects exactly what came
 * after it; candles equal a recomputation from the raw trades however events are batched.
 * Limits: history is derived data written without fsync; a lost tail is projected again from
 * the journal, and an unreadable environment is rebuilt from the whole journal (a long start).
 */
export {};
