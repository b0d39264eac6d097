/**
 * A liquidation takes its owner's orders off the books first, but a book may have matched one
 * before the cancel arrived: that fill is on its way to the ledger. Priced when the account was
 * found below maintenance, the liquidation order's bankruptcy price gave its buyer the equity
 * the fill then spent, and the insurance fund paid the order's open loss. So a liquidation whose
 * owner has orders open waits for every one of them to end (each book reports an order's fills
 * before its end) and is priced then, on the state those fills left (docs/ledger.md).
 *
 * Here: Alice (40 USD) is long 2 BTC at 100 and bids for 0.02 ETH at 1,200 (the ETH index
 * 1,000: 4 USD of open loss, held). The BTC index falls to 84: her equity 7.9 is below her
 * maintenance margin 8.4. Her accomplice Carol, who bids 2 BTC at 81 (the bankruptcy price her
 * equity of 7.9 gives), sends an ask into the ETH bid just before the Tick, so the book matches
 * it ahead of the cancel. Priced at the Tick, the liquidation sold the 2 BTC at 81 to Carol, the
 * bid's loss then left her ETH long bankrupt, and the fund paid 1.80 USD (0.875 with 0.015 ETH
 * of the bid filled). Now the order is priced once the bid has ended, on the equity its fill left:
 * above Carol's bid, and ADL closes the long there. Books run only when the test says (`flush`), as market
 * threads do. Test markets (test/ledger/fixtures): BTC tick 1 USD, lot 0.001 BTC, IMF 10 %,
 * MMF 5 %; ETH tick 0.01 USD, lot 0.00001 ETH, IMF 5 %, MMF 3 %.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind } from '../../src/app/commands.ts';
import { OrderFlag } from '../../src/engine/types.ts';
import { BTC, ETH, usd } from '../ledger/fixtures.ts';
import { ALICE, BOB, CAROL, deferredExchange } from '../harness/deferred-exchange.ts';

/** Alice's cross account below maintenance with her ETH bid resting and Carol's ask into it on its way to the ETH book, `lots` of the bid's 2,000. */
function aliceBelowMaintenanceWithAFillInFlight(lots: number) {
  const { ex, queued, flush, order } = deferredExchange();
  for (const [account, amount] of [[ALICE, 40], [BOB, 10_000], [CAROL, 10_000]] as const) {
    assert.equal(ex.execute({ kind: CommandKind.Deposit, time: 1, account, subaccountIndex: 0, amount: usd(amount) }).code, 0);
  }
  assert.equal(ex.ledger.fundInsurance(usd(1000), 1), 0);
  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 2, market: BTC, price: 100 }).code, 0);
  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 2, market: ETH, price: 100_000 }).code, 0);
  assert.equal(ex.execute(order(BOB, -1, 100, 2000)).code, 0);
  flush();
  assert.equal(ex.execute(order(ALICE, 1, 100, 2000, OrderFlag.ImmediateOrCancel)).code, 0, 'Alice buys 2 BTC at 100');
  const bid = ex.execute(order(ALICE, 1, 120_000, 2000, 0, ETH));
  assert.equal(bid.code, 0, 'Alice bids for 0.02 ETH at 1,200 (IM 1.2 + fee 0.012 + open loss 4 held)');
  assert.equal(ex.execute(order(CAROL, 1, 81, 2000)).code, 0, 'Carol bids 2 BTC at 81');
  flush();
  const alice = ex.ledger.findOwner(ALICE, 0)!;
  assert.equal(ex.ledger.position(alice, BTC), 2000);
  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 20, market: BTC, price: 84 }).code, 0);
  assert.deepEqual(ex.ledger.liquidatable(alice), [BTC], 'equity 7.9 < maintenance 8.4');
  assert.equal(ex.execute(order(CAROL, -1, 120_000, lots, 0, ETH)).code, 0, 'Carol sells into the ETH bid: on its way to the book');
  return { ex, queued, flush, alice, bid: bid.orderId! };
}

for (const lots of [2000, 1500]) {
  test(`a liquidation is priced once its owner's orders have ended, on the fills they had on their way (${lots} of the bid's 2,000 lots matched before the cancel): the fund pays nothing`, () => {
    const { ex, queued, flush, alice, bid } = aliceBelowMaintenanceWithAFillInFlight(lots);
    const fund = ex.ledger.insuranceFund;
    const sent = queued.length;
    assert.equal(ex.execute({ kind: CommandKind.Tick, time: 1_000 }).code, 0, 'Alice is below maintenance');
    assert.equal(queued.length, sent + 3, 'the expiries and the cancel of her ETH orders; no liquidation order yet');
    assert.deepEqual([ex.ledger.liquidatingIn(alice), ex.ledger.liquidatable(alice)], [[BTC], []], 'her liquidation has begun');
    flush(1); // Carol's ask meets the bid
    assert.equal(ex.ledger.position(alice, ETH), lots, 'the fill the book made before the cancel is settled');
    if (lots < 2000) assert.equal(queued.length, sent + 2, 'the rest of the bid is open: still no liquidation order');
    flush();
    // A second Tick liquidates whatever is still below maintenance (before: her ETH long, which the BTC sold at 81 left bankrupt).
    assert.equal(ex.execute({ kind: CommandKind.Tick, time: 2_000 }).code, 0);
    flush();
    ex.validateInternalState();
    ex.ledger.checkConservation();
    assert.deepEqual(((o) => [o?.status, o?.reason])(ex.orderAsLeft(bid)), lots < 2000 ? ['cancelled', 'exchangeCancelled'] : ['filled', null]);
    // Both positions were liquidated; the BTC long's end left her ETH long above maintenance (kept, not deleveraged).
    assert.equal(ex.ledger.position(alice, BTC), 0, 'her BTC long is closed');
    assert.deepEqual([ex.ledger.liquidatable(alice), ex.ledger.liquidatingIn(alice)], [[], []], 'her liquidation is over');
    assert.ok(ex.ledger.insuranceFund >= fund, `the fund paid ${fund - ex.ledger.insuranceFund} units`);
    assert.ok(ex.ledger.collateral(alice) >= 0n);
  });
}

test('a liquidation whose owner has no order open is priced at the Tick, as before', () => {
  const { ex, queued, flush, alice } = aliceBelowMaintenanceWithAFillInFlight(2000);
  flush(); // the bid fills before the Tick
  const sent = queued.length;
  assert.equal(ex.execute({ kind: CommandKind.Tick, time: 1_000 }).code, 0);
  assert.equal(queued.length, sent + 2 + 2, 'the expiries and the two liquidation orders');
  flush();
  ex.validateInternalState();
  assert.deepEqual([ex.ledger.position(alice, BTC), ex.ledger.liquidatingIn(alice)], [0, []]);
});
