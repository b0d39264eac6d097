/**
 * The owner's reduce-only orders in flight move the position the book counts too: a reduce-only
 * buy the book has filled closed the short the ledger still shows. Counted as a close, the buy
 * after it held no initial margin though it opened a long at the book; and the reduce-only sell
 * after that, sized on the short plus the open buys, held nothing though it closed that long
 * at 1 — the insurance fund paid what she lacked (79 USD with 20 USD of collateral; found by
 * an outside review of the in-flight fixes). Both are now held on the position the book may
 * hold: the sell is refused.
 *
 * Alice (35 USD) is short 1 BTC at 100; Bob asks 2 BTC at 100; Carol bids 1 BTC at 1. Alice
 * sends, before any of them reaches the book: a reduce-only buy of 1 at 100, a buy of 1 at
 * 100, a reduce-only sell of 1 at 1. Books run only when the test says (`flush`), as market
 * threads do. BTC test market (test/ledger/fixtures): tick 1 USD, lot 0.001 BTC, IMF 10 %, MMF 5 %.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandKind, type Command } from '../../src/app/commands.ts';
import { Exchange } from '../../src/app/exchange.ts';
import type { MarketRouter } from '../../src/app/ports.ts';
import { FastOrderBook } from '../../src/engine/fast-book.ts';
import { OrderFlag, type PlaceOrder } from '../../src/engine/types.ts';
import type { Address } from '../../src/types/address.ts';
import { LedgerCode } from '../../src/ledger/codes.ts';
import { BTC, MARKETS, usd } from '../ledger/fixtures.ts';

const ALICE: Address = `0x${'a'.repeat(40)}`;
const BOB: Address = `0x${'b'.repeat(40)}`;
const CAROL: Address = `0x${'c'.repeat(40)}`;
const ZERO: Address = `0x${'0'.repeat(40)}`;

function deferredExchange() {
  const queued: Array<() => void> = [];
  let books: FastOrderBook[] = [];
  const router: MarketRouter = {
    place: (m, cmd: PlaceOrder) => queued.push(() => books[m].place({ ...cmd })),
    cancel: (m, id, owner, time) => queued.push(() => books[m].cancel(id, owner, time)),
    cancelAll: (m, owner, time, reason) => queued.push(() => books[m].cancelAll(owner, time, reason)),
    expire: (m, time) => queued.push(() => books[m].expire(time)),
  };
  const ex = new Exchange(MARKETS, router, {}, { ledger: { faucet: true } });
  books = MARKETS.map((m) => new FastOrderBook(m.index, ex.listener(m.index), { minSizeLots: m.minSizeLots }));
  const flush = () => { while (queued.length > 0) queued.shift()!(); };
  let nonce = 0;
  const order = (account: Address, side: 1 | -1, price: number, quantity: number, flags = 0): Command => ({
    kind: CommandKind.SubmitOrder, time: 10, account, subaccountIndex: 0, market: BTC, orderType: 'limit', side, price, quantity, flags, expiresAt: 0,
    nonce: ++nonce, clientId: null, originator: ZERO, originatorFee: 0, triggerPrice: null, parentOrderId: null, period: null, trailingPercent: null,
    signer: account, signature: '0x',
  });
  return { ex, flush, order };
}

test("a reduce-only sell behind an in-flight reduce-only buy and buy is held on the long they may open at the book: refused, the fund pays nothing", () => {
  const { ex, flush, order } = deferredExchange();
  const deposit = (account: Address, amount: bigint) => assert.equal(ex.execute({ kind: CommandKind.Deposit, time: 1, account, subaccountIndex: 0, amount }).code, 0);
  deposit(ALICE, usd(35));
  deposit(BOB, usd(10000));
  deposit(CAROL, usd(100));
  assert.equal(ex.ledger.fundInsurance(usd(5000), 1), 0);
  assert.equal(ex.execute({ kind: CommandKind.IndexPrice, time: 2, market: BTC, price: 100 }).code, 0);
  assert.equal(ex.execute(order(BOB, 1, 100, 1000)).code, 0);
  flush();
  assert.equal(ex.execute(order(ALICE, -1, 100, 1000)).code, 0, 'Alice sells 1 BTC at 100 to Bob');
  flush();
  const alice = ex.ledger.findOwner(ALICE, 0)!;
  assert.equal(ex.ledger.position(alice, BTC), -1000);
  assert.equal(ex.execute(order(BOB, -1, 100, 2000)).code, 0, 'Bob asks 2 BTC at 100');
  assert.equal(ex.execute(order(CAROL, 1, 1, 1000)).code, 0, 'Carol bids 1 BTC at 1');
  flush();

  assert.equal(ex.execute(order(ALICE, 1, 100, 1000, OrderFlag.ReduceOnly)).code, 0, 'her reduce-only buy closes the short');
  assert.equal(ex.execute(order(ALICE, 1, 100, 1000)).code, 0, 'her buy, held as an opening one (10 USD of initial margin)');
  assert.equal(ex.execute(order(ALICE, -1, 1, 1000, OrderFlag.ReduceOnly)).code, LedgerCode.InsufficientMargin, 'her reduce-only sell at 1 would close that long 99 USD under the mark');
  flush();
  ex.validateInternalState();
  assert.equal(ex.ledger.moneyReport().insuranceFund, usd(5000), 'the insurance fund paid nothing');
  assert.equal(ex.ledger.position(alice, BTC), 1000, 'Alice holds the long she bought');
  assert.ok(ex.ledger.collateral(alice) >= 0n);
});
