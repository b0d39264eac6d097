/**
 * @module transport
 *
 * The thread transport: every byte offset shared between threads (layout.ts), the
 * single-producer single-consumer rings in SharedArrayBuffers (ring.ts), the binary records of
 * book commands and events (codec.ts, event-fields.ts), the main thread's end of a market thread
 * (market-link.ts, the application's `MarketRouter` by shape) and the market thread itself
 * (market-worker.ts), and how any worker thread is started from source or compiled
 * (spawn-worker.ts, on a bundle of the sources when running from them: source-bundle.ts).
 * May import: types/ids, engine/types, engine/fast-book, config/market, node:worker_threads, node:url,
 * node:path, node:module, node:fs, node:crypto, esbuild (workers bundled when running from source).
 *
 * Invariants: one producer and one consumer per ring; a full command ring is reported before
 * anything changes, so nothing accepted is dropped.
 */
export {};
