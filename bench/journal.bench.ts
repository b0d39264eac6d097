/**
 * Durable journaling under a paced offered load, beside a raw lmdb put loop in the same run.
 *
 * Workload: 100,000 events/s offered for 3 s (after 0.5 s of warm-up at the same rate);
 * each event is a 96-byte book-event record (an onFill), so a journal record is 128 bytes.
 * Every ~1 ms the due events are appended; the batch's latency is measured from its due time
 * to `durable(last seq)` resolving, i.e. the record is FLUSHED (lmdb-js `flushed`), and counted
 * once per event. Baseline: the same pacing with `db.put` of the same bytes (key = seq as
 * 8 bytes big-endian) and the ack on `db.flushed`: what LMDB alone costs.
 * Target: 100k events/s durable at p99 < 25 ms. Data under os.tmpdir(), deleted afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { Journal } from '../src/journal/journal.ts';
import { LmdbJournalStorage } from '../src/journal/lmdb-storage.ts';
import { BookEventWriter, RecordBuffer } from '../src/transport/codec.ts';
import { RecordKind } from '../src/transport/layout.ts';
import { percentile, report, type Figure } from './report.ts';
import { CommandKind, commandText, encodeCommand, type SubmitOrder } from '../src/app/commands.ts';
import { marketNo, orderNo, ownerNo } from '../test/fixtures/ids.ts';

const RATE = 100_000;
const WARMUP_SECONDS = 0.5;
const SECONDS = 3;

const fill = new RecordBuffer();
new BookEventWriter(fill, marketNo(3)).onFill(1, orderNo(0x3_0000_0001), orderNo(0x3_0000_0002), ownerNo(17), ownerNo(42), 1, 1_234_567, 25, 75, 0, 1_700_000_000_000);
const EVENT = fill.contents().slice();

interface Run {
  eventsPerSecond: number;
  p50: number;
  p99: number;
  max: number;
}

/** Offers RATE events/s; `append(n)` queues n events and returns a promise of their durability. */
async function pacedRun(append: (n: number) => Promise<unknown>): Promise<Run> {
  const latencies: number[] = [];
  const pending: Promise<unknown>[] = [];
  const start = performance.now();
  const total = RATE * (WARMUP_SECONDS + SECONDS);
  const warmup = RATE * WARMUP_SECONDS;
  let offered = 0;
  let measuredStart = 0;
  let lastAck = 0;
  while (offered < total) {
    const now = performance.now();
    const due = Math.min(total, Math.floor(((now - start) / 1000) * RATE));
    if (due > offered) {
      const count = due - offered;
      const dueAt = start + (offered / RATE) * 1000; // the oldest event's due time
      const measured = offered >= warmup;
      if (measured && measuredStart === 0) measuredStart = dueAt;
      offered = due;
      pending.push(
        append(count).then(() => {
          const t = performance.now();
          lastAck = t;
          if (measured) for (let i = 0; i < count; i++) latencies.push(t - dueAt - (i / RATE) * 1000);
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  return { eventsPerSecond: (RATE * SECONDS) / ((lastAck - measuredStart) / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: percentile(latencies, 100) };
}

async function journalRun(dir: string): Promise<Run> {
  const journal = await Journal.open(LmdbJournalStorage.open(dir), { logger: { info: () => {}, error: console.error } });
  const run = await pacedRun((n) => {
    let seq = 0;
    for (let i = 0; i < n; i++) seq = journal.append(RecordKind.Fill, EVENT);
    return journal.durable(seq);
  });
  await journal.close();
  return run;
}

async function rawLmdbRun(dir: string): Promise<Run> {
  const db = open({ path: dir, keyEncoding: 'binary', encoding: 'binary' });
  let seq = 0;
  const key = Buffer.alloc(8);
  const run = await pacedRun((n) => {
    for (let i = 0; i < n; i++) {
      key.writeBigUInt64BE(BigInt(++seq));
      const value = new Uint8Array(EVENT.length + 32); // the same record size, fresh per put
      value.set(EVENT, 32);
      void db.put(key, value);
    }
    return db.flushed;
  });
  await db.close();
  return run;
}

/** A signed limit order as the sequencer journals it (a testnet-sized command, 0x-hex signature). */
const SIGNED_ORDER: SubmitOrder = {
  kind: CommandKind.SubmitOrder, time: 1_764_000_000_000, account: `0x${'ab'.repeat(20)}`, subaccountIndex: 0, orderType: 'limit', side: 1,
  price: 9_500_000, quantity: 1, flags: 0, expiresAt: 0, nonce: 1_764_000_000_000_123, clientId: 'bench-1', originator: `0x${'00'.repeat(20)}`,
  originatorFee: 0, triggerPrice: null, parentOrderId: null, period: null, trailingPercent: null, market: marketNo(0),
  signer: `0x${'ab'.repeat(20)}`, signature: `0x${'5a'.repeat(65)}`,
};
const COMMANDS = 50_000;

/**
 * CPU per command journaled the sequencer's way (`appendText`: the JSON encoded straight into
 * the journal's buffer) beside encoding it to its own array first (`append(encodeCommand)`),
 * alternating three times, the commands' durability awaited outside the clock.
 */
async function commandAppendRuns(dir: string): Promise<{ text: number; bytes: number }> {
  const journal = await Journal.open(LmdbJournalStorage.open(dir), { logger: { info: () => {}, error: console.error } });
  const best = { text: Infinity, bytes: Infinity };
  for (let round = 0; round < 3; round++) {
    for (const way of ['bytes', 'text'] as const) {
      const started = process.cpuUsage();
      let seq = 0;
      for (let i = 0; i < COMMANDS; i++) seq = way === 'text' ? journal.appendText(SIGNED_ORDER.kind, commandText(SIGNED_ORDER)) : journal.append(SIGNED_ORDER.kind, encodeCommand(SIGNED_ORDER));
      const used = process.cpuUsage(started);
      best[way] = Math.min(best[way], (used.user + used.system) / COMMANDS);
      await journal.durable(seq);
    }
  }
  await journal.close();
  return best;
}

const root = mkdtempSync(join(tmpdir(), 'bench-journal-'));
try {
  const raw = await rawLmdbRun(join(root, 'raw'));
  const journaled = await journalRun(join(root, 'journal'));
  const commands = await commandAppendRuns(join(root, 'commands'));
  const figures: Figure[] = [
    { name: 'CPU per signed order command appended (appendText, best of 3 × 50,000)', value: commands.text, unit: 'µs', baseline: { name: 'append(encodeCommand(…)), the same runs', value: commands.bytes } },
    { name: 'durable journaled events/s (offered 100k/s)', value: journaled.eventsPerSecond, unit: 'events/s', baseline: { name: 'raw lmdb put + flushed', value: raw.eventsPerSecond } },
    { name: 'ack latency p50 (flushed)', value: journaled.p50, unit: 'ms', baseline: { name: 'raw lmdb p50', value: raw.p50 } },
    { name: 'ack latency p99 (flushed)', value: journaled.p99, unit: 'ms', baseline: { name: 'raw lmdb p99', value: raw.p99 } },
    { name: 'ack latency max (flushed)', value: journaled.max, unit: 'ms', baseline: { name: 'raw lmdb max', value: raw.max } },
  ];
  report('journal', figures);
} finally {
  rmSync(root, { recursive: true, force: true });
}
