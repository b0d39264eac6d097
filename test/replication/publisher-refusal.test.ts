/**
 * What a fenced publisher says of each block it was handed, against a stand-in JetStream that
 * stores or refuses each publish as the test says (no NATS server: the order of events is the
 * test's). A block refused by the server — in the message the server refused, or waiting behind
 * it — is rejected at once, so its writes are answered 421 before the deposed pipeline stops
 * (they waited out the stop's drain before, and their connections closed unanswered). A block
 * split over two messages whose first part the server stored is rejected naming the last seq
 * stored (`shippedThrough`): those writes were taken, and the journal makes them durable where
 * it refused the whole block before — answering 421 for writes the new primary holds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Journal } from '../../src/journal/journal.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { FencedError, JetStreamPublisher } from '../../src/replication/publisher.ts';
import { recordsOf, type StreamTail } from '../../src/replication/jetstream.ts';
import { CapturingLogger, payloadFor } from '../journal/fixtures/journal-fixtures.ts';

/** JetStream's API error as the publisher tells it apart: code 10071 is a wrong `expect.lastSequence`. */
class StandInApiError extends Error {
  constructor(readonly code: number) {
    super(`wrong last sequence (${code})`);
  }
}

/** A JetStream client whose publishes wait until the test stores or refuses them. */
function standInJetStream() {
  const publishes: { records: number; store: () => void; refuse: () => void }[] = [];
  let seq = 0;
  const js = {
    publish: (_subject: string, data: Uint8Array) =>
      new Promise((resolve, reject) => {
        publishes.push({ records: recordsOf(data).length, store: () => resolve({ seq: ++seq }), refuse: () => reject(new StandInApiError(10071)) });
      }),
  };
  return { js, publishes };
}

const EMPTY: StreamTail = { streamSeq: 0, journalSeq: 0, data: null, storedAt: 0 };
const quiet = { warn() {}, error() {} };
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

async function records(count: number): Promise<Uint8Array[]> {
  const journal = await Journal.open(new SimulatedJournalStorage({ autoFlush: true }), { logger: new CapturingLogger() });
  for (let i = 1; i <= count; i++) journal.append(1, payloadFor(i));
  return Array.from(journal.range(1), (e) => new Uint8Array(e.record));
}

function publisher(js: unknown, maxBytes: number) {
  let fenced: FencedError | null = null;
  const p = new JetStreamPublisher(js as never, StandInApiError as never, EMPTY, 'writer-a', true, quiet, (e) => (fenced = e), maxBytes);
  return { p, fenced: () => fenced };
}

const outcome = (promise: Promise<void>) => promise.then(() => 'stored', (e: Error & { shippedThrough?: number }) => `refused${e.shippedThrough === undefined ? '' : ` after ${e.shippedThrough}`}`);

test('the blocks of a message the server refused, and those behind it, are refused at once', async () => {
  const recs = await records(4);
  const { js, publishes } = standInJetStream();
  const { p, fenced } = publisher(js, 1 << 20);
  const a = outcome(p.block(1, recs.slice(0, 1)));
  await turns(2);
  const b = outcome(p.block(2, recs.slice(1, 2)));
  const c = outcome(p.block(3, recs.slice(2, 4)));
  publishes[0].store();
  await turns(5);
  assert.equal(publishes.length, 2, 'the blocks that waited go out together');
  publishes[1].refuse();
  assert.deepEqual(await Promise.all([a, b, c]), ['stored', 'refused', 'refused']);
  assert.ok(fenced() !== null);
  assert.equal(p.shipped, 1);
});

test('a block split over messages whose first part was stored is refused naming the last seq stored', async () => {
  const recs = await records(6);
  const { js, publishes } = standInJetStream();
  // Room for two records a message: the block of six goes out in three parts.
  const { p } = publisher(js, recs[0].length + recs[1].length);
  const block = outcome(p.block(1, recs));
  await turns(2);
  assert.equal(publishes[0].records, 2);
  publishes[0].store();
  await turns(5);
  assert.equal(publishes.length, 2);
  publishes[1].refuse();
  assert.equal(await block, 'refused after 2');
  assert.equal(p.shipped, 2);
});

test('a fence from outside (the lease taken) while a split block’s next part is in flight waits for the server: stored, that part counts', async () => {
  const recs = await records(6);
  const { js, publishes } = standInJetStream();
  const { p } = publisher(js, recs[0].length + recs[1].length);
  const block = outcome(p.block(1, recs));
  await turns(2);
  publishes[0].store();
  await turns(5);
  // Records 3–4 are in a publish under way: the block waits for its answer.
  p.fence(new FencedError('the lease was taken'));
  publishes[1].store();
  assert.equal(await block, `refused after ${2 + publishes[1].records}`, 'the part in flight was stored: its writes were taken');
});

test('a fence from outside while a split block’s part is in flight, and the server refuses that part: refused after the part stored before', async () => {
  const recs = await records(6);
  const { js, publishes } = standInJetStream();
  const { p } = publisher(js, recs[0].length + recs[1].length);
  const block = outcome(p.block(1, recs));
  await turns(2);
  publishes[0].store();
  await turns(5);
  p.fence(new FencedError('the lease was taken'));
  publishes[1].refuse();
  assert.equal(await block, 'refused after 2');
});
