/**
 * An ask resting while its owner is long holds no initial margin for the lots the long will
 * absorb: filled, it closes them. When something else closes that long first — a reduce-only
 * sell, or a later ask the book fills first (which ask fills first is the book's choice, not
 * the order they came in) — the ask opens a short of all its lots instead, and the margin it
 * then needs is the margin closing the long frees. Before, the ledger called that margin free:
 * the owner withdrew it, the ask opened a short with no initial margin behind it, and a 2 %
 * rise of the index made her bankrupt, the insurance fund paying what she lacked (the in-flight
 * generator, seed 930080, went through both: an isolated long closed under resting asks, 50 USD
 * transferred out, the asks' fills took the cross collateral a cross short's loss needed; the
 * fund paid 0.03 USD). Now the margin closing the long frees stays held while the side's other
 * orders may open that many lots ("side holds", ledger/holds).
 *
 * Alice is long 1 BTC at 100 and asks 1 BTC at 101 (held: its fee). Carol bids 1 BTC at 99.
 * Alice closes the long into Carol's bid, then withdraws what the exchange says is free. Bob
 * buys her ask. The index goes from 100 to 102. BTC test market (test/ledger/fixtures): tick
 * 1 USD, lot 0.001 BTC, IMF 10 %, MMF 5 %, taker 0.05 %, maker −0.01 %.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind } from '../../src/app/commands.ts';
import { OrderFlag } from '../../src/engine/types.ts';
import { BTC, usd } from '../ledger/fixtures.ts';
import { ALICE, BOB, CAROL, deferredExchange } from '../harness/deferred-exchange.ts';

/** Alice (`collateral` USD) long 1 BTC bought from Bob at 100, her ask of 1 BTC at 101 and Carol's bid of 1 BTC at 99 resting, the fund at 1,000 USD. */
function aliceLongUnderHerAsk(collateral: number) {
  const books = deferredExchange();
  const { ex, flush, order } = books;
  for (const [account, amount] of [[ALICE, collateral], [BOB, 1000], [CAROL, 1000]] as const) {
    assert.equal(ex.execute({ kind: CommandKind.Deposit, time: 1, account, subaccountIndex: 0, amount: usd(amount) }).code, 0);
  }
  assert.equal(ex.ledger.fundInsurance(usd(1000), 1), 0);
  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 2, market: BTC, price: 100 }).code, 0);
  assert.equal(ex.execute(order(BOB, -1, 100, 1000)).code, 0);
  flush();
  assert.equal(ex.execute(order(ALICE, 1, 100, 1000)).code, 0, 'Alice buys 1 BTC at 100 (10 USD of initial margin)');
  flush();
  const ask = ex.execute(order(ALICE, -1, 101, 1000));
  assert.equal(ask.code, 0, 'Alice asks 1 BTC at 101');
  assert.equal(ex.ledger.holdOf(ask.orderId!), 50_500n, 'it holds its fee alone: filled, it closes her long');
  assert.equal(ex.execute(order(CAROL, 1, 99, 1000)).code, 0, 'Carol bids 1 BTC at 99');
  flush();
  return { ...books, alice: ex.ledger.findOwner(ALICE, 0)! };
}

/** With the long closed: Alice withdraws what is said free, Bob buys her ask, the index rises 2 % — the short the ask opened has its initial margin, and the fund pays nothing. */
function withdrawThenTheAskOpensAShort({ ex, flush, order, alice }: ReturnType<typeof aliceLongUnderHerAsk>) {
  assert.equal(ex.ledger.position(alice, BTC), 0, 'the long is closed');
  const free = ex.ledger.stats(alice)!.freeCollateral;
  assert.equal(ex.execute({ kind: CommandKind.Withdraw, time: 3, account: ALICE, subaccountIndex: 0, amount: free }).code, 0, `she withdraws the ${free} units said free`);
  assert.equal(ex.execute(order(BOB, 1, 101, 1000)).code, 0, 'Bob buys her ask');
  flush();
  assert.equal(ex.ledger.position(alice, BTC), -1000, 'her ask opened a short of 1 BTC at 101');
  const equity = ex.ledger.stats(alice)!.crossEquity;

  assert.equal(ex.execute(order(BOB, -1, 102, 1000)).code, 0, 'Bob asks 1 BTC at 102');
  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 4, market: BTC, price: 102 }).code, 0, 'the index rises 2 %');
  assert.equal(ex.execute({ kind: CommandKind.Tick, time: 5 }).code, 0);
  flush();
  ex.validateInternalState();
  assert.equal(ex.ledger.moneyReport().insuranceFund, usd(1000), `the insurance fund paid nothing (the short opened with equity ${equity})`);
  assert.ok(equity >= usd(10), `the short opened with its initial margin (10 USD at the mark of 100): equity ${equity}`);
  assert.equal(ex.ledger.position(alice, BTC), -1000, 'a 2 % rise does not liquidate a short opened with its initial margin');
}

test('a reduce-only sell that closes the long under a resting ask keeps the margin the ask then needs', () => {
  const books = aliceLongUnderHerAsk(20);
  assert.equal(books.ex.execute(books.order(ALICE, -1, 99, 1000, OrderFlag.ReduceOnly)).code, 0, 'her reduce-only sell closes the long at 99 (1 USD under the mark)');
  books.flush();
  withdrawThenTheAskOpensAShort(books);
});

test('a later ask the book fills first closes the long: the margin its fill releases stays held for the earlier ask', () => {
  const books = aliceLongUnderHerAsk(30);
  const sell = books.ex.execute(books.order(ALICE, -1, 99, 1000));
  assert.equal(sell.code, 0, 'Alice sells 1 BTC at 99');
  assert.equal(books.ex.ledger.holdOf(sell.orderId!), usd(10) + 50_000n + usd(1), 'held as opening a short: 10 USD of initial margin, its fee (valued at the mark), 1 USD of open loss');
  books.flush();
  withdrawThenTheAskOpensAShort(books);
});
