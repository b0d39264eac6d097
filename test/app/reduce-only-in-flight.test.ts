/**
 * A reduce-only order is admitted against the ledger's position, but its book caps it at the
 * book's own count of the owner's fills — which runs ahead of the ledger by the fills still on
 * their way back from the market thread (the sequencer decides the next command while the
 * books work on the last). A reduce-only order placed right behind the order that opens the
 * position was held on the position the ledger knew — none — and so held no open loss, yet
 * its book let it close the whole position the moment before had opened, at any price.
 *
 * Here: Alice (20 USD) buys 1 BTC at 100 from Bob and, before that fill is back, sells it
 * reduce-only at 1 into her accomplice Carol's bid at 1. Alice realises −99, of which the
 * insurance fund paid the 79 she did not have, and Carol holds a long bought 99 below the
 * mark. Books here run only when the test says (`flush`), as a market thread would.
 * BTC test market (test/ledger/fixtures): tick 1 USD, lot 0.001 BTC, IMF 10 %.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind } from '../../src/app/commands.ts';
import { OrderFlag } from '../../src/engine/types.ts';
import type { Address } from '../../src/types/address.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { BTC, usd } from '../ledger/fixtures.ts';
import { ALICE, BOB, CAROL, deferredExchange } from '../harness/deferred-exchange.ts';


test('a reduce-only order placed while the fill that opened its position is in flight holds its open loss: no bankruptcy on purpose', () => {
  const { ex, flush, order } = deferredExchange();
  const deposit = (account: Address, amount: bigint) => assert.equal(ex.execute({ kind: CommandKind.Deposit, time: 1, account, subaccountIndex: 0, amount }).code, 0);
  deposit(ALICE, usd(20));
  deposit(BOB, usd(1000));
  deposit(CAROL, usd(10));
  assert.equal(ex.ledger.fundInsurance(usd(500), 1), 0);
  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 2, market: BTC, price: 100 }).code, 0);
  assert.equal(ex.execute(order(BOB, -1, 100, 1000)).code, 0, 'Bob asks 1 BTC at 100');
  assert.equal(ex.execute(order(CAROL, 1, 1, 1000)).code, 0, 'Carol bids 1 BTC at 1');
  flush();
  assert.equal(ex.execute(order(ALICE, 1, 100, 1000)).code, 0, 'Alice buys 1 BTC at 100 (IM 10 held)');
  // Decided before the book's answer to the buy is back: the ledger knows no position of Alice's yet.
  const sell = ex.execute(order(ALICE, -1, 1, 1000, OrderFlag.ReduceOnly));
  assert.equal(sell.code, LedgerCode.InsufficientMargin, "its open loss on the lots the buy may have opened: 99 against 9.95 free");
  flush();
  const alice = ex.ledger.findOwner(ALICE, 0)!;
  const carol = ex.ledger.findOwner(CAROL, 0)!;
  const shortfalls = ex.ledger.moneyReport().insuranceFund;
  ex.validateInternalState();
  assert.ok(ex.ledger.collateral(alice) >= 0n, `Alice left with ${ex.ledger.collateral(alice)} (reduce-only sell: code ${sell.code})`);
  assert.ok(shortfalls >= usd(500), `the insurance fund paid ${usd(500) - shortfalls} units; Carol holds ${ex.ledger.position(carol, BTC)} lots`);
});

test('a reduce-only order at the mark placed while its position is in flight is still admitted, and closes it', () => {
  const { ex, flush, order } = deferredExchange();
  assert.equal(ex.execute({ kind: CommandKind.Deposit, time: 1, account: ALICE, subaccountIndex: 0, amount: usd(20) }).code, 0);
  assert.equal(ex.execute({ kind: CommandKind.Deposit, time: 1, account: BOB, subaccountIndex: 0, amount: usd(1000) }).code, 0);
  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 2, market: BTC, price: 100 }).code, 0);
  assert.equal(ex.execute(order(BOB, -1, 100, 1000)).code, 0);
  assert.equal(ex.execute(order(BOB, 1, 99, 1000)).code, 0);
  flush();
  assert.equal(ex.execute(order(ALICE, 1, 100, 1000)).code, 0);
  assert.equal(ex.execute(order(ALICE, -1, 99, 1000, OrderFlag.ReduceOnly)).code, 0, 'open loss 1 + fee fits');
  flush();
  assert.equal(ex.ledger.position(ex.ledger.findOwner(ALICE, 0)!, BTC), 0, 'closed');
  ex.validateInternalState();
});
