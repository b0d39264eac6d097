/**
 * What a fenced publisher says of each block it was handed, against a stand-in JetStream that
 * stores or refuses each publish as the test says (no NATS server: the order of events is the
 * test's). A block refused by the server — in the message the server refused, or waiting behind
 * it — is rejected at once, so its writes are answered 421 before the deposed pipeline stops
 * (they waited out the stop's drain before, and their connections closed unanswered). A block
 * split over two messages whose first part the server stored is rejected naming the last seq
 * stored (`shippedThrough`): those writes were taken, and the journal makes them durable where
 * it refused the whole block before — answering 421 for writes the new primary holds. An answer
 * that proves nothing — a refusal after a try whose answer was lost (past the duplicate window
 * the server no longer knows that try), a duplicate's answer naming the wrong stream seq — is
 * settled by reading the stream where the message must be (an outside review's findings).
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

/**
 * A JetStream stream and client whose publishes wait until the test answers them: `store` (the
 * message goes in at the next stream seq, acknowledged), `lose` (it goes in, the answer is lost: a
 * timeout), `refuse` (a wrong `expect.lastSequence`), or `rival` (another writer's message goes in
 * first, and this one is refused), `answer(seq)` (a duplicate's answer naming `seq`, the stream
 * untouched). `stream` holds the message ids by stream seq (from 1).
 */
function standInJetStream() {
  const stream: string[] = [];
  const publishes: { records: number; id: string; store: () => void; lose: () => void; refuse: () => void; rival: () => void; answer: (seq: number) => void }[] = [];
  const js = {
    publish: (_subject: string, data: Uint8Array, options: { msgID: string; expect: { lastSequence: number } }) =>
      new Promise((resolve, reject) => {
        const put = () => stream.push(options.msgID);
        const fits = () => stream.length === options.expect.lastSequence;
        publishes.push({
          records: recordsOf(data).length,
          id: options.msgID,
          store: () => (fits() ? (put(), resolve({ seq: stream.length })) : reject(new StandInApiError(10071))),
          lose: () => (fits() && put(), reject(new Error('TimeoutError: timeout'))),
          refuse: () => reject(new StandInApiError(10071)),
          rival: () => (stream.push('writer-b:1'), reject(new StandInApiError(10071))),
          answer: (seq) => resolve({ seq, duplicate: true }),
        });
      }),
  };
  const whoseAt = async (seq: number) => stream[seq - 1] ?? null;
  return { js, whoseAt, publishes, stream };
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

function publisher({ js, whoseAt }: ReturnType<typeof standInJetStream>, maxBytes: number) {
  let fenced: FencedError | null = null;
  const p = new JetStreamPublisher(js as never, StandInApiError as never, whoseAt, EMPTY, 'writer-a', true, quiet, (e: FencedError) => (fenced = e), maxBytes);
  return { p, fenced: () => fenced };
}

const outcome = (promise: Promise<void>) => promise.then(() => 'stored', (e: Error & { shippedThrough?: number }) => `refused${e.shippedThrough === undefined ? '' : ` after ${e.shippedThrough}`}`);

test('the blocks of a message the server refused, and those behind it, are refused at once', async () => {
  const recs = await records(4);
  const jetStream = standInJetStream();
  const { publishes } = jetStream;
  const { p, fenced } = publisher(jetStream, 1 << 20);
  const a = outcome(p.block(1, recs.slice(0, 1)));
  await turns(2);
  const b = outcome(p.block(2, recs.slice(1, 2)));
  publishes[0].store();
  await turns(5);
  assert.equal(publishes.length, 2, 'b goes out once a is stored');
  const c = outcome(p.block(3, recs.slice(2, 4))); // waits behind b's message
  publishes[1].rival();
  assert.deepEqual(await Promise.all([a, b, c]), ['stored', 'refused', 'refused']);
  assert.ok(fenced() !== null);
  assert.equal(p.shipped, 1);
  assert.equal(publishes.length, 2, 'nothing is published once fenced');
});

test('a refusal after a try whose answer was lost: the stream says whether that try is there (stored) or another writer is (refused)', async () => {
  const recs = await records(2);
  for (const [ahead, expected] of [['ours', 'stored'], ['rival', 'refused']] as const) {
    const jetStream = standInJetStream();
    const { publishes, stream } = jetStream;
    const { p, fenced } = publisher(jetStream, 1 << 20);
    const a = outcome(p.block(1, recs));
    await turns(2);
    if (ahead === 'ours') publishes[0].lose(); // stored, the answer lost: past the duplicate window, the retry is refused
    else publishes[0].rival();
    if (ahead === 'rival') {
      assert.equal(await a, 'refused', 'a first try refused is refused');
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, 300)); // the publisher's retry pause
    assert.equal(publishes.length, 2, 'retried');
    publishes[1].refuse();
    assert.equal(await a, expected, `the stream holds ${stream.join()}`);
    assert.equal(fenced(), null);
    assert.equal(p.shipped, 2);
  }
});

test('an answer that does not put the message where expect.lastSequence does (a duplicate answered seq 0) is settled by the stream', async () => {
  const recs = await records(2);
  // Ours: the first try went in and its answer was lost; the retry is answered as a duplicate with seq 0.
  {
    const jetStream = standInJetStream();
    const { p } = publisher(jetStream, 1 << 20);
    const a = outcome(p.block(1, recs));
    await turns(2);
    jetStream.publishes[0].lose();
    await new Promise((resolve) => setTimeout(resolve, 300));
    jetStream.publishes[1].answer(0);
    assert.equal(await a, 'stored');
    assert.equal(p.shipped, 2);
  }
  // Not ours: another writer's message is there; this one's answer (seq 0) was not a store.
  {
    const jetStream = standInJetStream();
    const { p, fenced } = publisher(jetStream, 1 << 20);
    const a = outcome(p.block(1, recs));
    await turns(2);
    jetStream.stream.push('writer-b:1');
    jetStream.publishes[0].answer(0);
    assert.equal(await a, 'refused', 'answered 421, not 200: the stream does not hold it');
    assert.ok(fenced() !== null);
  }
});

test('a block none of whose records fit in the message under way is refused at once by a fence from outside', async () => {
  const recs = await records(4);
  const jetStream = standInJetStream();
  const { publishes } = jetStream;
  const { p } = publisher(jetStream, recs[1].length + recs[2].length);
  const x = outcome(p.block(1, recs.slice(0, 1)));
  await turns(2);
  const a = outcome(p.block(2, recs.slice(1, 3))); // fills the next message
  const b = outcome(p.block(4, recs.slice(3, 4))); // does not fit in it
  publishes[0].store();
  await turns(5);
  assert.equal(publishes.length, 2);
  assert.equal(publishes[1].records, 2, 'the message under way holds a alone');
  p.fence(new FencedError('the lease was taken'));
  assert.equal(await b, 'refused', 'b is in no message: refused, not left waiting for the answer');
  publishes[1].store();
  assert.deepEqual(await Promise.all([x, a]), ['stored', 'stored']);
});

test('a block split over messages whose first part was stored is refused naming the last seq stored', async () => {
  const recs = await records(6);
  const jetStream = standInJetStream();
  const { publishes } = jetStream;
  // Room for two records a message: the block of six goes out in three parts.
  const { p } = publisher(jetStream, recs[0].length + recs[1].length);
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

test('a fence from outside (the lease taken) while a split block’s next part is in flight waits for the server’s answer: stored, that part counts; refused, it does not', async () => {
  const recs = await records(6);
  for (const answer of ['store', 'refuse'] as const) {
    const jetStream = standInJetStream();
    const { publishes } = jetStream;
    const { p } = publisher(jetStream, recs[0].length + recs[1].length);
    const block = outcome(p.block(1, recs));
    await turns(2);
    publishes[0].store();
    await turns(5);
    // The next part is in a publish under way: the block waits for its answer.
    p.fence(new FencedError('the lease was taken'));
    publishes[1][answer]();
    const expected = answer === 'store' ? `refused after ${2 + publishes[1].records}` : 'refused after 2';
    assert.equal(await block, expected, `the part in flight: ${answer}d`);
  }
});
