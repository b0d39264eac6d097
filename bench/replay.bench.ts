/**
 * Replay speed: read + checksum + hash chain + decode, beside a raw lmdb range read of the
 * same database in the same run.
 *
 * Workload: a journal of 2,000,000 records, each a 96-byte onFill event record (128-byte
 * journal record; ~0.4 GB on disk with LMDB overhead), built first (build time not measured
 * as replay). Replay = `Journal.range(1)` (crc32c, seq, 64-bit chain link per record) and
 * `decodeEvent` into a listener that sums the quantities. Baseline: lmdb-js `getRange` over
 * the same blocks of records with `encoding: 'binary'` (a copy per value), walking each
 * record's header to count records and sum their lengths — reading the bytes, nothing else.
 * Also: `Journal.open` with full verification (what a cold start without snapshot pays).
 * Target: 10 million events in under 20 s (the 10M figure is projected from the measured rate).
 * Data under os.tmpdir(), deleted afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseOptions } from 'lmdb';
import type { BookListener } from '../src/engine/types.ts';
import { Journal } from '../src/journal/journal.ts';
import { LmdbJournalStorage, seqKeyEncoder } from '../src/journal/lmdb-storage.ts';
import { kJournalHeaderBytes, kJournalPayloadLength } from '../src/journal/record.ts';
import { BookEventWriter, RecordBuffer, decodeEvent } from '../src/transport/codec.ts';
import { RecordKind } from '../src/transport/layout.ts';
import { report, type Figure } from './report.ts';
import { marketNo, orderNo, ownerNo } from '../test/fixtures/ids.ts';

const RECORDS = 2_000_000;
const quiet = { info: () => {}, error: console.error };

class SumListener implements BookListener {
  quantity = 0;
  onAccepted(): void {}
  onRested(): void {}
  onFill(_seq: number, _m: number, _t: number, _mo: number, _to: number, _side: number, _price: number, quantity: number): void {
    this.quantity += quantity;
  }
  onCancelled(): void {}
  onExpired(): void {}
  onRejected(): void {}
  onLevel(): void {}
}

const root = mkdtempSync(join(tmpdir(), 'bench-replay-'));
try {
  const dir = join(root, 'journal');
  // Build.
  const buildStart = performance.now();
  {
    const journal = await Journal.open(LmdbJournalStorage.open(dir), { logger: quiet, maxUnflushed: Infinity });
    const buffer = new RecordBuffer();
    const writer = new BookEventWriter(buffer, marketNo(1));
    for (let seq = 1; seq <= RECORDS; ) {
      for (let k = 0; k < 20_000 && seq <= RECORDS; k++, seq++) {
        buffer.reset();
        writer.onFill(seq, orderNo(seq * 2), orderNo(seq * 2 + 1), ownerNo(7), ownerNo(9), 1, 100_000 + (seq % 1000), 1 + (seq % 50), 10, 0, 1_700_000_000_000 + seq);
        journal.append(RecordKind.Fill, buffer.bytes, 0, buffer.length);
      }
      if (seq % 200_000 === 1) await journal.durable(seq - 1);
      else await new Promise((r) => setImmediate(r));
    }
    await journal.close();
  }
  const buildSeconds = (performance.now() - buildStart) / 1000;

  // Baseline: raw lmdb range read of the same blocks, split into records by their headers.
  const storage = LmdbJournalStorage.open(dir);
  const raw = storage.env.openDB<Uint8Array, number>('journal.blocks', { keyEncoder: seqKeyEncoder, encoding: 'binary' } as DatabaseOptions);
  let t0 = performance.now();
  let bytes = 0;
  let rawCount = 0;
  for (const { value } of raw.getRange({ start: 1 })) {
    const view = new DataView(value.buffer, value.byteOffset, value.length);
    for (let at = 0; at < value.length; rawCount++) {
      const length = kJournalHeaderBytes + view.getUint32(at + kJournalPayloadLength, true);
      bytes += length;
      at += length;
    }
  }
  const rawSeconds = (performance.now() - t0) / 1000;

  // Cold open with full verification.
  t0 = performance.now();
  const journal = await Journal.open(storage, { logger: quiet });
  const openSeconds = (performance.now() - t0) / 1000;

  // Replay: verify + decode.
  const listener = new SumListener();
  t0 = performance.now();
  let replayed = 0;
  for (const entry of journal.range(1)) {
    decodeEvent(entry.view, entry.payloadOffset, listener);
    replayed++;
  }
  const replaySeconds = (performance.now() - t0) / 1000;
  await journal.close();
  if (replayed !== RECORDS || rawCount !== RECORDS || bytes === 0) throw new Error(`counts: replayed ${replayed}, raw ${rawCount}`);

  const replayRate = RECORDS / replaySeconds;
  const rawRate = RECORDS / rawSeconds;
  const figures: Figure[] = [
    { name: `replay (read+crc+chain+decode), ${RECORDS / 1e6}M records`, value: replayRate, unit: 'records/s', baseline: { name: 'raw lmdb getRange', value: rawRate } },
    { name: '10M events replay, projected', value: 10_000_000 / replayRate, unit: 's', baseline: { name: 'raw lmdb getRange, projected', value: 10_000_000 / rawRate } },
    { name: 'open with full verification', value: RECORDS / openSeconds, unit: 'records/s', baseline: { name: 'raw lmdb getRange', value: rawRate } },
    { name: 'build (append, group commit, flushed)', value: RECORDS / buildSeconds, unit: 'records/s' },
  ];
  report('replay', figures);
} finally {
  rmSync(root, { recursive: true, force: true });
}
