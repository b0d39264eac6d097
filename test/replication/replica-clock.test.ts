/**
 * A replica's time is the exchange's time too (sequencer/exchange-time): its gateway, login,
 * request budgets, feeds and market-data routes read a time that never goes back, started from
 * its journal's last command and kept at or after each command it applies from the stream.
 * Before, a replica read the host's `Date.now` directly: with its host clock stepped back an hour
 * (NTP), every address that had read from it in the last second was refused 429 for the hour
 * (GET /time included), GET /time went back an hour and GET /summary left out the trades of
 * the last hour — on the nodes that serve the reads.
 *
 * In process, on a stream of the primary's records read back from its journal (no NATS): the
 * replica is the real one (`startReplica`), over HTTP. The host clock is `Date.now`, stepped here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadSettings } from '../../src/config/process.ts';
import { LmdbJournalStorage } from '../../src/journal/lmdb-storage.ts';
import { Lease, type LeaseKey } from '../../src/replication/lease.ts';
import { startReplica, type BlockSource, type ShippedBlock } from '../../src/replication/replica.ts';
import { apiClient, fundedTraders, startTestExchange, tempDataDir, type Reply } from '../e2e/harness.ts';

const HOUR = 3_600_000;

function answered(reply: Reply): any {
  assert.equal(reply.status, 200, `${reply.status} ${reply.text} (retry-after ${reply.headers.get('retry-after')})`);
  return reply.json();
}

/** The records of the journal in `dataDir` (its exchange stopped), as the stream ships them. */
async function recordsOf(dataDir: string): Promise<Uint8Array[]> {
  const storage = LmdbJournalStorage.open(join(dataDir, 'journal'));
  const records: Uint8Array[] = [];
  for (let seq = 1; seq <= storage.lastKey(); seq++) records.push(Uint8Array.from(storage.get(seq)!));
  await storage.close();
  return records;
}

/** A stream holding `records`: one block of them, then nothing more until closed. */
function streamOf(records: Uint8Array[], storedAt: () => number): BlockSource {
  let closed!: () => void;
  const closing = new Promise<void>((resolve) => (closed = resolve));
  return {
    async *follow(after: number): AsyncIterable<ShippedBlock> {
      if (after < records.length) yield { records: records.slice(after), storedAt: storedAt() };
      await closing;
    },
    tail: async () => records.length,
    recordAt: async (seq) => records[seq - 1] ?? null,
    close: async () => closed(),
  };
}

/** A lease nobody holds, read only (a replica takes none). */
const NO_LEASE: LeaseKey = { read: async () => ({ value: null, revision: 0 }), write: async () => Promise.reject(new Error('read only')) };

test("a replica whose host clock steps back an hour serves on: no 429 for the hour, GET /time and /summary on the journal's time", { timeout: 90_000 }, async (t) => {
  const primaryDir = tempDataDir(t, 'perp-replica-clock-primary-');
  const primary = await startTestExchange({ dataDir: primaryDir });
  const [maker, taker] = await fundedTraders(primary, 2, '100000');
  answered(await maker.place({ price: '95000', quantity: '-0.01' }));
  answered(await taker.place({ price: '95000', quantity: '0.01' }));
  const traded = answered(await primary.request('GET', '/summary?symbol=BTC-USD-PERP')).markets[0];
  assert.notEqual(traded.volume, '0', 'the primary traded');
  await primary.stop();
  const records = await recordsOf(primaryDir);

  const realNow = Date.now;
  let step = 0;
  Date.now = () => realNow() + step;
  t.after(() => {
    Date.now = realNow;
  });
  const replicaDir = tempDataDir(t, 'perp-replica-clock-replica-');
  const settings = loadSettings(['--port', '0', '--host', '127.0.0.1', '--data-dir', replicaDir, '--role', 'replica', '--nats', 'nats://127.0.0.1:1'], {});
  const logger = pino({ level: 'silent' });
  const lease = new Lease(NO_LEASE, { holder: 'replica', url: '' }, 1500);
  const replica = await startReplica(settings, logger, streamOf(records, realNow), lease);
  t.after(async () => {
    await replica.stop();
    // The replica watches the lease; replication/node stops it.
    lease.stop();
  });
  const client = apiClient(`http://127.0.0.1:${replica.port}`);
  for (let i = 0; i < 50 && replica.appliedSeq() < records.length; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(replica.appliedSeq(), records.length, 'the replica applied the stream');

  const before = answered(await client.request('GET', '/time')).serverTime;
  // History is written on its own thread: the trade shows once it has.
  let summary: any;
  for (let i = 0; i < 50; i++, await new Promise((resolve) => setTimeout(resolve, 100))) {
    summary = answered(await client.request('GET', '/summary?symbol=BTC-USD-PERP')).markets[0];
    if (summary.volume === traded.volume) break;
  }
  assert.equal(summary.volume, traded.volume, "the replica's summary has the trade");

  step = -HOUR;
  const after = answered(await client.request('GET', '/time')).serverTime;
  assert.ok(after >= before, `GET /time went back ${before - after} ms`);
  const stepped = answered(await client.request('GET', '/summary?symbol=BTC-USD-PERP')).markets[0];
  assert.equal(stepped.volume, traded.volume, "the replica's summary still has the trade after the step");
});
