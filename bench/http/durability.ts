/**
 * @module bench/http/durability
 *
 * The floor under a durable reply: one journal append + `durable()` (an LMDB flush to disk) at a
 * time, on a fresh journal beside the exchange's, while nothing else is submitted. The latency of
 * a signed order can be no lower than this on this disk, now.
 * May import: src/journal, src/transport/layout, ../report.
 */
import { Journal } from '../../src/journal/journal.ts';
import { LmdbJournalStorage } from '../../src/journal/lmdb-storage.ts';
import { RecordKind } from '../../src/transport/layout.ts';
import { percentile } from '../report.ts';

/** `count` sequential commits of a 200-byte record (about an order command); latencies in ms. */
export async function durableCommitLatency(dir: string, count: number): Promise<{ p50: number; p99: number }> {
  const journal = await Journal.open(LmdbJournalStorage.open(dir), { logger: { info: () => {}, error: console.error } });
  const payload = new Uint8Array(200);
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const start = performance.now();
      await journal.durable(journal.append(RecordKind.Place, payload));
      samples.push(performance.now() - start);
    }
  } finally {
    await journal.close();
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}
