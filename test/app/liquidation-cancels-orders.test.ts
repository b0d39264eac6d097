/**
 * A liquidation spends the collateral that held its owner's open orders: an order left on a
 * book after it fills on nothing. So a cross liquidation takes every order its owner has on
 * any book off it, an isolated one those of its market, before the liquidation order is sent
 * (the same rings, so the cancels arrive first).
 *
 * Found by the hostile simulator's payout check (seed 620008): a market maker wiped out by ADL
 * kept a 13,887 USD bid on the book with 0.16 USD left; the taker that sold into it a second
 * later opened it a long nobody's margin covered, and the ADL counterparties paid its loss.
 *
 * Here: Alice (20 USD) is long 1 BTC at 100 and bids for 0.1 BTC at 60 and for 0.02 ETH at
 * 1,000. The index falls to 80: she is bankrupt, her liquidation order finds no bid and ADL
 * closes her against Bob. Carol then sells into both bids. Books run only when the test says
 * (`flush`), as market threads do. Test markets (test/ledger/fixtures): BTC tick 1 USD, lot
 * 0.001 BTC, IMF 10 %, MMF 5 %; ETH tick 0.01 USD, lot 0.00001 ETH.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind } from '../../src/app/commands.ts';
import { OrderFlag } from '../../src/engine/types.ts';
import { BTC, ETH, usd } from '../ledger/fixtures.ts';
import { ALICE, BOB, CAROL, deferredExchange } from '../harness/deferred-exchange.ts';


test("a liquidated owner's orders leave every book before its liquidation order: none fills on the collateral the liquidation spent", () => {
  const { ex, flush, order } = deferredExchange();
  for (const [account, amount] of [[ALICE, 20], [BOB, 1000], [CAROL, 1000]] as const) {
    assert.equal(ex.execute({ kind: CommandKind.Deposit, time: 1, account, subaccountIndex: 0, amount: usd(amount) }).code, 0);
  }
  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 2, market: BTC, price: 100 }).code, 0);
  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 2, market: ETH, price: 100_000 }).code, 0);
  assert.equal(ex.execute(order(BOB, -1, 100, 1000, 0, BTC)).code, 0);
  flush();
  assert.equal(ex.execute(order(ALICE, 1, 100, 1000, OrderFlag.ImmediateOrCancel, BTC)).code, 0, 'Alice buys 1 BTC at 100');
  const bids = [order(ALICE, 1, 60, 100, 0, BTC), order(ALICE, 1, 100_000, 2000, 0, ETH)].map((bid) => {
    const placed = ex.execute(bid);
    assert.equal(placed.code, 0, 'Alice bids for 0.1 BTC at 60 and for 0.02 ETH at 1,000');
    return placed.orderId!;
  });
  flush();
  const alice = ex.ledger.findOwner(ALICE, 0)!;
  assert.equal(ex.ledger.position(alice, BTC), 1000);

  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 20, market: BTC, price: 80 }).code, 0);
  assert.equal(ex.execute({ kind: CommandKind.Tick, time: 1_000 }).code, 0, 'Alice is liquidated');
  flush(); // the liquidation order finds no bid and ends; ADL closes Alice against Bob
  assert.equal(ex.ledger.position(alice, BTC), 0, 'ADL closed Alice');

  assert.equal(ex.execute(order(CAROL, -1, 60, 100, 0, BTC)).code, 0, 'Carol sells 0.1 BTC at 60');
  assert.equal(ex.execute(order(CAROL, -1, 100_000, 2000, 0, ETH)).code, 0, 'Carol sells 0.02 ETH at 1,000');
  flush();
  ex.validateInternalState();
  for (const id of bids) assert.deepEqual(((o) => [o?.status, o?.reason])(ex.orderAsLeft(id)), ['cancelled', 'exchangeCancelled'], 'her bids end as the exchange cancelled them');
  for (const market of [BTC, ETH]) {
    assert.equal(ex.ledger.position(alice, market), 0, `Alice's bid left on market ${market} opened ${ex.ledger.position(alice, market)} lots with ${ex.ledger.collateral(alice)} units of collateral`);
  }
});
