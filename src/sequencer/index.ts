/**
 * @module sequencer
 *
 * Decide → journal → route → settle → reply when durable: the `Sequencer` (sequencer.ts) runs
 * each command through the application, journals it and its book events, and resolves its
 * outcome once flushed; the gateway's signed account writes enter through it
 * (account-writes.ts, the shape of the gateway's port); the feeds hear each batch through the
 * tap it declares (`FeedTap`, which ws/feed-relay has the shape of). Start-up rebuilds the
 * application from the journal with byte-for-byte event checks (recovery.ts; replay-target.ts
 * for the journal CLI) after the newest snapshot that restores (start-state.ts), a serving
 * process's replay reporting its progress (start-up-replay.ts), then the markets record a
 * primary's start journals where the markets file changes the journal's markets
 * (markets-record.ts); snapshots are
 * encoded (snapshot-codec.ts) and taken on their own thread from a replica of the state
 * (snapshot-replica.ts, snapshot-worker.ts, snapshot-thread.ts), when and where
 * snapshot-schedule.ts says — the same on the primary and on a replica or standby;
 * the clock (clock.ts) and the testnet's price feed (testnet-feed.ts) are more sources of commands;
 * every command is stamped with the exchange's time (exchange-time.ts), which never goes back.
 * May import: types/ids, app/, transport/, journal/, history/projections,
 * engine/types, engine/fast-book, config/, node:worker_threads, node:zlib.
 *
 * Invariants: every command that reached a book is journaled before its effects are
 * acknowledged; replaying the journal reproduces `stateHash()` and every book event; the
 * journal's command times never go back (the sequencer runs a command stamped earlier at the
 * last one's time).
 */
export {};
