/**
 * A command's reply when the journal's sink refuses a block (replication: another writer
 * appended to the stream, this node is fenced) tells whether the command was taken: whether its
 * own record was stored. Its book events need not be — a start completes the events of a command
 * cut short, the same ones, as the new primary does — and a reply waits for every record
 * journaled up to the command's completion, later commands' too. An order whose record the
 * stream had stored was rejected when its events or a later command's record went into the
 * refused block — answered 421 ("not taken") though the new primary held it
 * (test/replication/failover-chaos, seeds 6 and 26). It resolves now, with the outcome a start
 * from the stored records recovers; the later command is refused.
 *
 * The simulator's node (sim/node: the real sequencer and journal, the books in process), its
 * journal shipping to a sink the test stores or refuses block by block, the order's record in
 * one block and its book events, with a later command, in the next.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../../src/app/commands.ts';
import type { BlockSink } from '../../src/journal/block-sink.ts';
import { Journal } from '../../src/journal/journal.ts';
import { SimulatedJournalStorage } from '../../src/journal/simulated-storage.ts';
import { CountingLogger, SimNode, SimSnapshots, nextTurn } from '../../sim/node.ts';
import { ALICE, BOB, BTC, MARKETS, usd } from '../ledger/fixtures.ts';
import type { Address } from '../../src/types/address.ts';

const deposit = (account: string): Command => ({ kind: CommandKind.Deposit, time: 1, account: account as Address, subaccountIndex: 0, amount: usd(10_000) });

test('an order whose record was stored resolves, though its book events and a later command went into a refused block; a start from the stored records completes it alike', async () => {
  // Its journal begins with the markets record a start writes on an empty journal (seq 1).
  const node = await SimNode.fresh(MARKETS, {}, new CountingLogger(), 0);
  const blocks: { first: number; count: number; store: () => void; refuse: (e: Error) => void }[] = [];
  const sink: BlockSink = { holdsAcks: true, block: (first, records) => new Promise((store, refuse) => blocks.push({ first, count: records.length, store, refuse })) };
  node.journal.ship(sink);
  /** The end of the turn's flush request, the simulated disk's flush, and the block handed to the sink. */
  const flush = async () => {
    await nextTurn();
    node.storage.flush();
    await nextTurn();
  };

  const funded = node.sequencer.submit(deposit(ALICE));
  await flush();
  blocks[0].store();
  assert.equal((await funded).result.code, 0);

  const placed = node.sequencer.submit({
    kind: CommandKind.SubmitOrder, time: 2, account: ALICE as Address, subaccountIndex: 0, market: BTC, orderType: 'limit', side: 1, price: 100, quantity: 1000, flags: 0, expiresAt: 0,
    nonce: 1, clientId: null, originator: `0x${'0'.repeat(40)}`, originatorFee: 0, triggerPrice: null, parentOrderId: null, period: null, trailingPercent: null, signer: ALICE as Address, signature: '0x',
  });
  const stored = node.journal.lastSeq();
  await flush();
  // The book runs it, and a later command is journaled, in the next block.
  node.runMarket(BTC, 1);
  const later = node.sequencer.submit(deposit(BOB));
  await flush();
  assert.deepEqual(blocks.map((b) => [b.first, b.first + b.count - 1]), [[2, 2], [3, 3], [4, node.journal.lastSeq()]]);

  blocks[1].store();
  blocks[2].refuse(new Error('fenced: another primary has written to the journal stream'));
  const outcome = await placed;
  assert.equal(outcome.result.code, 0, 'the order is in the stream: its reply says so');
  await assert.rejects(later, /fenced/, 'the later command is not');

  // What the new primary does with the stored records: its start completes the order's events.
  const storage = new SimulatedJournalStorage({ autoFlush: true });
  const copy = await Journal.open(storage, { logger: new CountingLogger() });
  for (const entry of node.journal.range(1, stored)) copy.appendRecord(new Uint8Array(entry.record));
  await copy.close();
  const { node: next, report } = await SimNode.start(MARKETS, MARKETS, storage, new SimSnapshots(), {}, new CountingLogger(), 3);
  assert.ok(report.recoveredEvents > 0, 'its book events were recovered');
  assert.deepEqual(next.exchange.orderAsLeft(outcome.result.orderId!), outcome.orders[0]);
});
