/**
 * A start completes the events of the commands a crash cut short (sequencer/recovery
 * `Replay.finish`): it applies the events the replay's books produced that the journal lacks,
 * and journals them. Applying one may route book commands to another market: a liquidation
 * that waited for its owner's orders to end is priced at the event that ended the last one —
 * here the end of Alice's ETH bid (market 1) — and its order goes to the BTC book (market 0).
 * The replay's books answer at once, so that order's events were produced in a market `finish`
 * had already drained: they were never applied (the ledger kept the liquidation in flight, its
 * hold and the position the book had sold) nor journaled, yet the BTC book the market thread
 * started from had run them. The next order in BTC was journaled with the book's event numbers
 * after them, and any later replay of the journal diverged there (simulator scale tier, seeds 6
 * and 9: `replay diverged at journal seq 17786, market 0`, the replay's books producing the
 * liquidation order's Accepted where the journal held a later order's). `finish` drains the
 * markets until none has an event left.
 *
 * The simulator's node (sim/node: the real sequencer and journal, the books in process, run
 * only when the test says). Alice (40 USD) is long 2 BTC at 100 and bids for 0.02 ETH at 1,200;
 * the BTC index falls to 84 and the Tick finds her below maintenance: her liquidation waits for
 * the cancel of her bid, sent to the ETH book. The process stops with the Tick journaled and
 * flushed, and the cancel unanswered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { Exchange } from '../../src/app/exchange.ts';
import { NO_ROUTER } from '../../src/app/ports.ts';
import { OrderFlag } from '../../src/engine/types.ts';
import { Replay } from '../../src/sequencer/recovery.ts';
import type { Address } from '../../src/types/address.ts';
import type { MarketIndex } from '../../src/types/ids.ts';
import { CountingLogger, LEDGER_OPTIONS, SimNode, SimSnapshots, nextTurn } from '../../sim/node.ts';
import { ALICE, BOB, BTC, CAROL, ETH, MARKETS, usd } from '../ledger/fixtures.ts';

const ZERO: Address = `0x${'0'.repeat(40)}`;
let nonce = 0;
const order = (account: string, side: 1 | -1, price: number, quantity: number, flags = 0, market: MarketIndex = BTC, time = 10): Command => ({
  kind: CommandKind.SubmitOrder, time, account: account as Address, subaccountIndex: 0, market, orderType: 'limit', side, price, quantity, flags, expiresAt: 0,
  nonce: ++nonce, clientId: null, originator: ZERO, originatorFee: 0, triggerPrice: null, parentOrderId: null, period: null, trailingPercent: null,
  signer: account as Address, signature: '0x',
});

/** Lets the end of the turn's flush request run and the simulated disk flush it. */
async function flush(node: SimNode): Promise<void> {
  await nextTurn();
  node.storage.flush();
  await nextTurn();
}

test("a start completes a crashed command's events across markets: the liquidation its owner's last order's end made ready in another market is applied and journaled, and the journal replays", async () => {
  const node = await SimNode.fresh(MARKETS, {}, new CountingLogger(), 0);
  const run = async (command: Command) => {
    const result = node.sequencer.submit(command);
    node.quiesce();
    await flush(node);
    assert.equal((await result).result.code, 0, `${command.kind} at ${command.time}`);
  };
  for (const [account, amount] of [[ALICE, 40], [BOB, 10_000], [CAROL, 10_000]] as const) {
    await run({ kind: CommandKind.Deposit, time: 1, account: account as Address, subaccountIndex: 0, amount: usd(amount) });
  }
  await run({ kind: CommandKind.IndexPrice, time: 2, market: BTC, price: 100 });
  await run({ kind: CommandKind.IndexPrice, time: 2, market: ETH, price: 100_000 });
  await run(order(BOB, -1, 100, 2000));
  await run(order(ALICE, 1, 100, 2000, OrderFlag.ImmediateOrCancel));
  await run(order(ALICE, 1, 120_000, 2000, 0, ETH));
  await run(order(CAROL, 1, 84, 2000));
  await run({ kind: CommandKind.IndexPrice, time: 20, market: BTC, price: 84 });
  const alice = node.exchange.ledger.findOwner(ALICE as Address, 0)!;
  assert.deepEqual(node.exchange.ledger.liquidatable(alice), [BTC], 'equity 7.9 < maintenance 8.4');

  // The Tick: her liquidation waits for the cancel of her ETH bid; the books do not run it.
  node.sequencer.submit({ kind: CommandKind.Tick, time: 1_000 });
  assert.deepEqual(node.exchange.ledger.liquidatingIn(alice), [BTC]);
  await flush(node);
  const disk = node.storage.powerLoss();

  const { node: next, report } = await SimNode.start(MARKETS, MARKETS, disk, new SimSnapshots(), {}, new CountingLogger(), 1_001);
  assert.ok(report.recoveredEvents > 0);
  next.quiesce();
  next.exchange.validateInternalState();
  next.exchange.ledger.checkConservation();
  const ledger = next.exchange.ledger;
  assert.deepEqual([ledger.liquidatingIn(alice), ledger.position(alice, BTC)], [[], 0], 'the liquidation order the recovered cancel made ready was applied: her BTC long is sold, her liquidation over');
  assert.equal(ledger.position(ledger.findOwner(CAROL as Address, 0)!, BTC), 2000, "Carol's bid bought it");

  // The running node goes on in BTC: its book's events follow the liquidation's in the journal.
  const later = next.sequencer.submit(order(BOB, 1, 80, 1000, 0, BTC, 1_002));
  next.quiesce();
  await flush(next);
  assert.equal((await later).result.code, 0);

  // A replay of the whole journal reaches the running node's state and books.
  const replayed = new Exchange(MARKETS, NO_ROUTER, {}, LEDGER_OPTIONS);
  const replay = new Replay(replayed);
  for (const entry of next.journal.range(1)) replay.apply(entry);
  assert.equal(replay.finish(), 0, 'every event is in the journal');
  assert.equal(replayed.stateHash(), next.exchange.stateHash());
  replay.rebuilt.forEach((book, i) => assert.equal(book.stateHash(), next.markets[i].book.stateHash(), `market ${i}'s book`));
});
