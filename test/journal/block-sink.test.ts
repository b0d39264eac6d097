/**
 * The journal's replication hooks: every flushed group commit goes to the attached `BlockSink`
 * once, in seq order; a sink that holds acknowledgements (replicated durability) keeps
 * `durable` pending until it has shipped the block, one that does not (local) never delays it;
 * a sink that is fenced refuses its block's seqs and later ones, and leaves the disk working. `appendRecord` takes another journal's records
 * verbatim only when they continue this journal's sequence and hash chain.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BlockSink } from '../../src/journal/block-sink.ts';
import { Journal } from '../../src/journal/journal.ts';
import { JournalCorruptError } from '../../src/journal/record.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { CapturingLogger, payloadFor } from './fixtures/journal-fixtures.ts';

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/** A sink that records the blocks and ships each when the test says so. */
function gatedSink(holdsAcks: boolean) {
  const blocks: { first: number; count: number; ship: () => void; fence: (e: Error) => void }[] = [];
  const sink: BlockSink = {
    holdsAcks,
    block: (first, records) => new Promise((resolve, reject) => blocks.push({ first, count: records.length, ship: resolve, fence: reject })),
  };
  return { sink, blocks };
}

test('replicated durability: durable waits for the flush and for the sink; every seq is shipped once, in order', async () => {
  const disk = new SimulatedJournalStorage({ autoFlush: true });
  const journal = await Journal.open(disk, { logger: new CapturingLogger() });
  const { sink, blocks } = gatedSink(true);
  journal.ship(sink);
  const first = journal.append(1, payloadFor(1));
  journal.append(1, payloadFor(2));
  let durable = false;
  void journal.durable(first).then(() => (durable = true));
  await turns(5);
  assert.deepEqual(blocks.map((b) => [b.first, b.count]), [[1, 2]]);
  assert.equal(durable, false, 'flushed here, not yet stored by the sink');
  journal.append(1, payloadFor(3));
  await turns(5);
  assert.deepEqual(blocks.map((b) => [b.first, b.count]), [[1, 2], [3, 1]], 'the next group commit is the next block');
  blocks[0].ship();
  await turns(2);
  assert.equal(durable, true);
  assert.equal(journal.flushedSeq(), 2);
});

test('local durability: durable resolves at the flush, before the sink ships', async () => {
  const journal = await Journal.open(new SimulatedJournalStorage({ autoFlush: true }), { logger: new CapturingLogger() });
  const { sink, blocks } = gatedSink(false);
  journal.ship(sink);
  await journal.durable(journal.append(1, payloadFor(1)));
  assert.equal(blocks.length, 1, 'handed over, not shipped yet');
});

test('a sink that never stores does not hold a stop: flushedHere and close wait for this disk only', async () => {
  const disk = new SimulatedJournalStorage({ autoFlush: true });
  const journal = await Journal.open(disk, { logger: new CapturingLogger() });
  const { sink, blocks } = gatedSink(true); // never shipped: a cluster without quorum
  journal.ship(sink);
  journal.append(1, payloadFor(1));
  const last = journal.append(1, payloadFor(2));
  let durable = false;
  void journal.durable(last).then(() => (durable = true));
  await journal.flushedHere();
  assert.equal(durable, false, 'replicated durability still waits for the sink');
  journal.append(1, payloadFor(3));
  await journal.close(); // resolves: the third record is on this disk, not shipped
  assert.deepEqual(blocks.map((b) => [b.first, b.count]), [[1, 2], [3, 1]]);
  const reopened = await Journal.open(disk, { logger: new CapturingLogger() });
  assert.equal(reopened.lastSeq(), 3, 'every appended record is on this disk after the close');
  await reopened.close();
});

test('a fenced sink refuses its block and every later seq; this disk goes on: records appended after (the events of commands in flight) are flushed, committed and closed here', async () => {
  const disk = new SimulatedJournalStorage({ autoFlush: true });
  const journal = await Journal.open(disk, { logger: new CapturingLogger() });
  const { sink, blocks } = gatedSink(true);
  journal.ship(sink);
  const first = journal.durable(journal.append(1, payloadFor(1)));
  await turns(3);
  const second = journal.durable(journal.append(1, payloadFor(2)));
  await turns(3);
  blocks[1].fence(new Error('fenced: another primary has written'));
  await assert.rejects(second, /fenced: another primary has written/);
  await assert.rejects(journal.durable(2), /fenced/, 'never durable');
  assert.equal(journal.isBehind(), true, 'new commands are refused');
  assert.match(journal.problem() ?? '', /fenced/);
  // The block before the refused one was in flight: it may yet be stored, and then it is acknowledged.
  blocks[0].ship();
  await first;
  // A command in flight still journals its book events (replication/node stops the pipeline,
  // its history and its journal, and follows the stream): here, not shipped, never acknowledged.
  const event = journal.append(1, payloadFor(3));
  await journal.whenCommitted(event);
  await assert.rejects(journal.durable(event), /fenced/);
  await journal.flushedHere();
  await journal.close();
  assert.equal(blocks.length, 2, 'nothing more was shipped');
  const reopened = await Journal.open(disk, { logger: new CapturingLogger() });
  assert.equal(reopened.lastSeq(), 3);
  await reopened.close();
});

test("appendRecord copies another journal's records verbatim and refuses one that does not continue it", async () => {
  const primary = await Journal.open(new SimulatedJournalStorage({ autoFlush: true }), { logger: new CapturingLogger() });
  for (let i = 1; i <= 3; i++) primary.append(1, payloadFor(i));
  const other = await Journal.open(new SimulatedJournalStorage({ autoFlush: true }), { logger: new CapturingLogger() });
  other.append(1, payloadFor(9));
  // `range` reuses its entry object: copy each record as it is yielded.
  const records = Array.from(primary.range(1), (e) => new Uint8Array(e.record));
  const foreign = Array.from(other.range(1), (e) => new Uint8Array(e.record));

  const replica = await Journal.open(new SimulatedJournalStorage({ autoFlush: true }), { logger: new CapturingLogger() });
  assert.throws(() => replica.appendRecord(records[1]), (e: unknown) => e instanceof JournalCorruptError && /seq 1: sequence number out of place/.test(e.message));
  replica.appendRecord(records[0]);
  assert.throws(() => replica.appendRecord(foreign[0]), (e: unknown) => e instanceof JournalCorruptError, 'seq 1 of another journal is not seq 2 of this one');
  replica.appendRecord(records[1]);
  replica.appendRecord(records[2]);
  await replica.durable(3);
  assert.deepEqual(Array.from(replica.range(1), (e) => Buffer.from(e.record).toString('hex')), records.map((r) => Buffer.from(r).toString('hex')));
});

test('a block the sink stored in part (it split the block) makes its stored seqs durable and refuses the rest', async () => {
  const journal = await Journal.open(new SimulatedJournalStorage({ autoFlush: true }), { logger: new CapturingLogger() });
  const { sink, blocks } = gatedSink(true);
  journal.ship(sink);
  const waits = [1, 2, 3, 4].map((i) => journal.durable(journal.append(1, payloadFor(i))).then(() => 'durable', (e: Error) => e.message));
  await turns(5);
  assert.deepEqual(blocks.map((b) => [b.first, b.count]), [[1, 4]]);
  blocks[0].fence(Object.assign(new Error('fenced: another primary has written'), { shippedThrough: 2 }));
  assert.deepEqual(await Promise.all(waits), ['durable', 'durable', 'fenced: another primary has written', 'fenced: another primary has written']);
  assert.equal(journal.flushedSeq(), 2);
  await journal.close();
});

test('refusals that come later block first still refuse every seq from the earliest refused block on', async () => {
  const journal = await Journal.open(new SimulatedJournalStorage({ autoFlush: true }), { logger: new CapturingLogger() });
  const { sink, blocks } = gatedSink(true);
  journal.ship(sink);
  const first = journal.durable(journal.append(1, payloadFor(1))).then(() => 'durable', (e: Error) => e.message);
  await turns(3);
  const second = journal.durable(journal.append(1, payloadFor(2))).then(() => 'durable', (e: Error) => e.message);
  await turns(3);
  assert.equal(blocks.length, 2);
  // A fenced publisher rejects what waits in its queue before the block its refused publish held.
  blocks[1].fence(new Error('fenced'));
  await turns(2);
  blocks[0].fence(new Error('fenced'));
  assert.deepEqual(await Promise.all([first, second]), ['fenced', 'fenced'], 'both answered, neither durable');
  await assert.rejects(journal.durable(1), /fenced/);
  await journal.close();
});
