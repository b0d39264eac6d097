/**
 * @module history/history-wire
 *
 * History batches as they cross from the main thread to the projection thread: msgpack bytes
 * (msgpackr, with its record structures and bigint extension), sent as one transferred
 * buffer. A structured clone walks every field of every record on both threads; packing costs
 * the main thread a fraction of that (measured: 0.4 µs per fill record against 1.25 µs), and
 * the bytes move without a copy. bigints of any size, undefined and null survive the trip.
 *
 * The wire is a stream, one per projection thread: `batchPacker()` on the main thread (the
 * Projections' own, which starts one thread) and `batchUnpacker()` on the thread (its writer's
 * own). In msgpackr's sequential
 * mode a record shape (a trade's, an order's field names) is defined in the first batch that
 * uses it and referred to by number after, so the unpacker must read every batch of its packer,
 * in the order packed — one thread, one port, a new pair for a new thread. Defined once, a
 * shape's reader is compiled once too: packed apart, every batch defined its shapes again and
 * the thread compiled new readers for each (`--trace-opt` showed msgpackr's readers and writers
 * compiled again late in bench:order-path).
 * Packing 7.6 → 5.8 µs and unpacking 1.7 → 1.0 µs an order in a microbenchmark of 50-order
 * batches (docs/benchmarks.md).
 * May import: msgpackr, history/batch (types).
 */
import { Packr, Unpackr } from 'msgpackr';
import type { HistoryBatch } from './batch.ts';

/** A fresh object for each Packr and Unpackr: msgpackr keeps a stream's shapes in the options object it is given. */
const options = () => ({ useBigInt64: true, useBigIntExtension: true, sequential: true });

/** Packs batches for one unpacker: each as bytes in a buffer of their own (msgpackr packs into a reused one), ready to transfer. */
export function batchPacker(): (batch: HistoryBatch) => Uint8Array<ArrayBuffer> {
  const packr = new Packr(options());
  return (batch) => {
    const packed = packr.pack(batch);
    const bytes = new Uint8Array(packed.length);
    bytes.set(packed);
    return bytes;
  };
}

/** Unpacks what one packer packed, every batch in the order it was packed. */
export function batchUnpacker(): (bytes: Uint8Array) => HistoryBatch {
  const unpackr = new Unpackr(options());
  return (bytes) => unpackr.unpack(bytes) as HistoryBatch;
}
