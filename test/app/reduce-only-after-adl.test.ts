/**
 * ADL moves positions outside the books, and the cancel of the owners' resting reduce-only
 * orders it causes is a book command like any other: queued behind the ones already sent. Until
 * it arrives, the book counts the position ADL closed and lets a resting reduce-only order
 * "close" it — in the ledger, that opens a position no initial margin was held for, by an owner
 * just made bankrupt.
 *
 * Here: Alice (20 USD) long 1 BTC at 100 rests a reduce-only sell at 81 (her equity covers the
 * 19 it loses at the mark of 100). The index falls to 80: she is bankrupt, her liquidation order
 * finds no bid and ADL closes her against Bob at 81. Carol's bid at 81, sent before the ADL's
 * cancel, met Alice's stale sell; now the liquidation takes the sell off the book before it is
 * even priced (it waits for the sell's end), and the bid rests. Books run only when the test
 * says (`flush`), as market threads do. BTC test market (test/ledger/fixtures): tick 1 USD, lot 0.001 BTC, IMF 10 %, MMF 5 %.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind } from '../../src/app/commands.ts';
import { OrderFlag } from '../../src/engine/types.ts';
import { BTC, usd } from '../ledger/fixtures.ts';
import { ALICE, BOB, CAROL, deferredExchange } from '../harness/deferred-exchange.ts';


test("a bankrupt owner's resting reduce-only order does not open a position after ADL closed the one it reduced", () => {
  const { ex, queued, flush, order } = deferredExchange();
  for (const [account, amount] of [[ALICE, 20], [BOB, 1000], [CAROL, 100]] as const) {
    assert.equal(ex.execute({ kind: CommandKind.Deposit, time: 1, account, subaccountIndex: 0, amount: usd(amount) }).code, 0);
  }
  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 2, market: BTC, price: 100 }).code, 0);
  assert.equal(ex.execute(order(BOB, -1, 100, 1000)).code, 0);
  flush();
  assert.equal(ex.execute(order(ALICE, 1, 100, 1000, OrderFlag.ImmediateOrCancel)).code, 0, 'Alice buys 1 BTC at 100');
  flush();
  const alice = ex.ledger.findOwner(ALICE, 0)!;
  assert.equal(ex.ledger.position(alice, BTC), 1000);
  const sell = ex.execute(order(ALICE, -1, 81, 1000, OrderFlag.ReduceOnly));
  assert.equal(sell.code, 0, 'her reduce-only sell at 81 rests (no bid)');
  flush();
  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 20, market: BTC, price: 80 }).code, 0);
  assert.equal(ex.execute({ kind: CommandKind.Tick, time: 1_000 }).code, 0, 'Alice is liquidated');
  // The Tick's commands: the expiries and the cancel of her sell, whose end lets the liquidation
  // order be priced and sent (docs/ledger.md: a liquidation waits for its owner's orders to end).
  flush(queued.length);
  assert.deepEqual(((o) => [o?.status, o?.reason])(ex.orderAsLeft(sell.orderId!)), ['cancelled', 'exchangeCancelled'], 'her sell left the book before the liquidation was priced');
  // Carol's bid is sent while the liquidation order is with the book: ahead of whatever its end causes.
  assert.equal(ex.execute(order(CAROL, 1, 81, 1000)).code, 0, 'Carol bids 1 BTC at 81');
  flush(1); // the liquidation order finds no bid and ends, ADL closes Alice against Bob
  assert.equal(ex.ledger.position(alice, BTC), 0, 'ADL closed Alice');
  flush();
  ex.validateInternalState();
  assert.equal(ex.ledger.position(alice, BTC), 0, `Alice's reduce-only sell opened a short of ${-ex.ledger.position(alice, BTC)} lots with ${ex.ledger.collateral(alice)} units of collateral`);
});
